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

local INDEX_TTL_SECONDS = 604800

local metrics_key = KEYS[1]
local index_key = KEYS[2]
local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))
local width = tonumber(ARGV[3])
local start = math.floor(second / width) * width
local bucket = 'bucket:' .. start

swc_v6_evict(metrics_key, index_key, second - window)
redis.call('HINCRBY', metrics_key, bucket .. ':f', 1)
redis.call('HINCRBY', metrics_key, 'total_failures', 1)
redis.call('ZADD', index_key, start, bucket)
redis.call('EXPIRE', index_key, INDEX_TTL_SECONDS)
swc_meta_record(metrics_key, 'failure', second, ARGV[4])

return start
