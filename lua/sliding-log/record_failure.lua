-- sliding-log/record_failure.lua: log one failure as one sorted-set member,
-- pruning both logs to the window.
--
-- KEYS[1]  success log    <prefix>:{<light>}:success   sorted set, member = event id, score = second
-- KEYS[2]  failure log    <prefix>:{<light>}:failure
-- KEYS[3]  metadata       <prefix>:{<light>}:meta      hash
-- ARGV[1]  window         seconds; the window is (floor(now) - window, floor(now)]
-- ARGV[2]  event time     seconds, fractional allowed; '' = Redis TIME
-- ARGV[3]  event id       unique per event (24 hex characters)
-- ARGV[4]  error JSON     stored as last_error_json when this failure is the newest
--
-- Returns: the integer second the event was scored with.
--include lib/now.lua
--include sliding-log/_log.lua

local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))

swc_log_record(KEYS[2], KEYS[1], KEYS[3], window, second, ARGV[3], 'failure', ARGV[4])

return second
