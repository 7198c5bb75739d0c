-- coarse/_bucket.lua: the write both coarse scripts make (included, never
-- loaded alone).
--
-- swc_coarse_record(metrics_key, index_key, window, second, width, outcome, error_json)
--   Evicts as 6.0 does, then counts one event of `outcome` ('success' or
--   'failure') in the bucket of `width` seconds that holds `second` (bucket
--   starts are multiples of width), indexes the bucket, keeps the index for
--   7 days and records the outcome's metadata (error_json: '' for a success).
--   Returns the start of the bucket counted.
local COARSE_INDEX_TTL_SECONDS = 604800

local function swc_coarse_record(metrics_key, index_key, window, second, width, outcome, error_json)
  local start = math.floor(second / width) * width
  local bucket = 'bucket:' .. start
  local suffix, total_field = ':s', 'total_successes'
  if outcome == 'failure' then
    suffix, total_field = ':f', 'total_failures'
  end
  swc_v6_evict(metrics_key, index_key, second - window)
  redis.call('HINCRBY', metrics_key, bucket .. suffix, 1)
  redis.call('HINCRBY', metrics_key, total_field, 1)
  redis.call('ZADD', index_key, start, bucket)
  redis.call('EXPIRE', index_key, COARSE_INDEX_TTL_SECONDS)
  swc_meta_record(metrics_key, outcome, second, error_json)
  return start
end
