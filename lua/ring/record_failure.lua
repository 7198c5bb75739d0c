-- ring/record_failure.lua: count one failure in the ring slot of its second.
--
-- KEYS[1]  ring           <prefix>:{<light>}:ring   hash: slot fields "<second mod window>" and metadata
-- ARGV[1]  window         seconds (also the number of slots); the window is (floor(now) - window, floor(now)]
-- ARGV[2]  event time     seconds, fractional allowed; '' = Redis TIME
-- ARGV[3]  error JSON     stored as last_error_json when this failure is the newest
--
-- Returns: the integer second counted.
--include lib/now.lua
--include ring/_ring.lua

local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))

swc_ring_record(KEYS[1], window, second, 'failure', ARGV[3])

return second
