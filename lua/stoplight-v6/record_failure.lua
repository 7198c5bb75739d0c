-- stoplight-v6/record_failure.lua: evict, count one failure, and return the
-- snapshot in the same round trip (the caller decides whether to open the light).
--
-- KEYS[1]  metrics hash   stoplight:v6:<sys>:{<light>}:window_metrics
-- KEYS[2]  bucket index   stoplight:v6:<sys>:{<light>}:window_metrics:ts_idx
-- ARGV[1]  window         seconds; the window is (floor(now) - window, floor(now)]
-- ARGV[2]  event time     seconds, fractional allowed; '' = Redis TIME
-- ARGV[3]  error JSON     stored as last_error_json when this failure is the newest
--
-- Returns: the snapshot, as get_metrics.lua returns it.
--include lib/now.lua
--include stoplight-v6/_window.lua

local metrics_key = KEYS[1]
local index_key = KEYS[2]
local window = tonumber(ARGV[1])
local now = swc_now(ARGV[2])
local second = math.floor(now)
local error_json = ARGV[3]

swc_v6_evict(metrics_key, index_key, second - window)
if swc_v6_record(metrics_key, index_key, second, swc_millis(now), ':f', 'total_failures',
    'last_error_at', 'consecutive_successes', 'consecutive_errors') then
  redis.call('HSET', metrics_key, 'last_error_json', error_json)
end

return swc_v6_snapshot(metrics_key)
