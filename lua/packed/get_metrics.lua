-- packed/get_metrics.lua: sum the packed slots that are in the window;
-- read-only, O(window).
--
-- KEYS[1]  counters       <prefix>:{<light>}:counters
-- KEYS[2]  metadata       <prefix>:{<light>}:meta
-- ARGV[1]  window         seconds; counts slots whose second is in (floor(now) - window, floor(now)]
-- ARGV[2]  now            seconds, fractional allowed; '' = Redis TIME
--
-- Returns: { successes, failures, last_success_at, last_error_at,
--            last_error_json, consecutive_errors, consecutive_successes }
--          (missing metadata fields are nil).
--include lib/now.lua
--include lib/meta.lua
--include packed/_packed.lua

local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))

local successes, failures = swc_packed_counts(KEYS[1], window, second)
local reply = { successes, failures }
-- A missing field comes back from HMGET as false, so positions stay fixed.
local meta = swc_meta_fields(KEYS[2])
for i = 1, 5 do
  reply[2 + i] = meta[i]
end
return reply
