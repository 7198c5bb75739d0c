-- stoplight-v6/get_metrics.lua: evict, then read the running totals and the
-- metadata. O(1) apart from eviction; note that a read writes (it evicts).
--
-- KEYS[1]  metrics hash   stoplight:v6:<sys>:{<light>}:window_metrics
-- KEYS[2]  bucket index   stoplight:v6:<sys>:{<light>}:window_metrics:ts_idx
-- ARGV[1]  window         seconds; the window is (floor(now) - window, floor(now)]
-- ARGV[2]  now            seconds, fractional allowed; '' = Redis TIME
--
-- Returns: { total_successes, total_failures, last_success_at, last_error_at,
--            last_error_json, consecutive_errors, consecutive_successes }
--          (missing fields are nil).
--include lib/now.lua
--include stoplight-v6/_window.lua

local metrics_key = KEYS[1]
local index_key = KEYS[2]
local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))

swc_v6_evict(metrics_key, index_key, second - window)

return swc_v6_snapshot(metrics_key)
