-- coarse/get_metrics.lua: evict the buckets whose start left the window, then
-- read the running totals and the metadata (a read writes, as in 6.0).
--
-- KEYS[1]  metrics hash   <prefix>:{<light>}:window_metrics
-- KEYS[2]  bucket index   <prefix>:{<light>}:window_metrics:ts_idx
-- ARGV[1]  window         seconds; a bucket counts while its start is in (floor(now) - window, floor(now)]
-- ARGV[2]  now            seconds, fractional allowed; '' = Redis TIME
--
-- Returns: { total_successes, total_failures, last_success_at, last_error_at,
--            last_error_json, consecutive_errors, consecutive_successes }
--          (missing fields are nil).
--include lib/now.lua
--include stoplight-v6/_window.lua

local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))

swc_v6_evict(KEYS[1], KEYS[2], second - window)

return swc_v6_snapshot(KEYS[1])
