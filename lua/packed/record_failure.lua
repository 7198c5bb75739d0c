-- packed/record_failure.lua: count one failure in the packed slot of its second.
--
-- KEYS[1]  counters       <prefix>:{<light>}:counters   string, 12 bytes per slot (see _packed.lua)
-- KEYS[2]  metadata       <prefix>:{<light>}:meta       hash
-- ARGV[1]  window         seconds (also the number of slots); the window is (floor(now) - window, floor(now)]
-- ARGV[2]  event time     seconds, fractional allowed; '' = Redis TIME
-- ARGV[3]  error JSON     stored as last_error_json when this failure is the newest
--
-- Returns: the integer second counted.
--include lib/now.lua
--include lib/meta.lua
--include packed/_packed.lua

local PACKED_TTL_SECONDS = 604800

local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))

swc_packed_record(KEYS[1], window, second, 'failure')
redis.call('EXPIRE', KEYS[1], PACKED_TTL_SECONDS)
swc_meta_record(KEYS[2], 'failure', second, ARGV[3])

return second
