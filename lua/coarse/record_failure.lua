-- coarse/record_failure.lua: evict as 6.0 does, then count one failure in
-- the bucket of bucket-seconds that holds its second.
--
-- KEYS[1]  metrics hash   <prefix>:{<light>}:window_metrics          bucket:<start>:s/:f, totals, metadata
-- KEYS[2]  bucket index   <prefix>:{<light>}:window_metrics:ts_idx   sorted set, member bucket:<start>, score <start>
-- ARGV[1]  window         seconds; a bucket counts while its start is in (floor(now) - window, floor(now)]
-- ARGV[2]  event time     seconds, fractional allowed; '' = Redis TIME
-- ARGV[3]  bucket seconds bucket width; bucket starts are multiples of it
-- ARGV[4]  error JSON     stored as last_error_json when this failure is the newest
--
-- Returns: the start of the bucket counted.
--include lib/now.lua
--include lib/meta.lua
--include stoplight-v6/_window.lua
--include coarse/_bucket.lua

local metrics_key = KEYS[1]
local index_key = KEYS[2]
local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))
local width = tonumber(ARGV[3])
local error_json = ARGV[4]

return swc_coarse_record(metrics_key, index_key, window, second, width, 'failure', error_json)
