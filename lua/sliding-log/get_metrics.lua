-- sliding-log/get_metrics.lua: count each log over the window; read-only (the
-- writes prune).
--
-- KEYS[1]  success log    <prefix>:{<light>}:success
-- KEYS[2]  failure log    <prefix>:{<light>}:failure
-- KEYS[3]  metadata       <prefix>:{<light>}:meta
-- ARGV[1]  window         seconds; counts scores in [floor(now) - window + 1, floor(now)]
-- ARGV[2]  now            seconds, fractional allowed; '' = Redis TIME
--
-- Returns: { successes, failures, last_success_at, last_error_at,
--            last_error_json, consecutive_errors, consecutive_successes }
--          (missing metadata fields are nil).
--include lib/now.lua
--include lib/meta.lua

local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))
local from = second - window + 1

local reply = {
  redis.call('ZCOUNT', KEYS[1], from, second),
  redis.call('ZCOUNT', KEYS[2], from, second),
}
-- A missing field comes back from HMGET as false, so positions stay fixed.
local meta = swc_meta_fields(KEYS[3])
for i = 1, 5 do
  reply[2 + i] = meta[i]
end
return reply
