-- stoplight-v6/record_success.lua: evict, then count one success in its second's bucket.
--
-- KEYS[1]  metrics hash   stoplight:v6:<sys>:{<light>}:window_metrics
-- KEYS[2]  bucket index   stoplight:v6:<sys>:{<light>}:window_metrics:ts_idx
-- ARGV[1]  window         seconds; the window is (floor(now) - window, floor(now)]
-- ARGV[2]  event time     seconds, fractional allowed; '' = Redis TIME
--
-- Returns: the integer second of the bucket that was incremented.
--include lib/now.lua
--include stoplight-v6/_window.lua

local metrics_key = KEYS[1]
local index_key = KEYS[2]
local window = tonumber(ARGV[1])
local now = swc_now(ARGV[2])
local second = math.floor(now)

swc_v6_evict(metrics_key, index_key, second - window)
swc_v6_record(metrics_key, index_key, second, swc_millis(now), ':s', 'total_successes',
  'last_success_at', 'consecutive_errors', 'consecutive_successes')

return second
