-- stoplight-v6/_window.lua: eviction, write and snapshot helpers shared by the
-- 6.0 scripts (included, never loaded alone).
--
-- swc_v6_evict(metrics_key, index_key, cutoff)
--   Removes every bucket whose second is <= cutoff: subtracts its counters
--   from the running totals (swc_v6_subtract, stoplight-v6/_subtract.lua:
--   a zero count is skipped), deletes its :s and :f fields and its index
--   member. Works in batches of EVICT_BATCH buckets, because unpack() takes
--   about 8000 values at most and each bucket is two fields.
-- swc_v6_record(metrics_key, index_key, second, stamp, counter_suffix, total_field,
--               stamp_field, reset_field, bump_field)
--   Adds one event to the bucket of `second` and to the running total, indexes
--   the bucket, updates the consecutive counters and the last_* stamp to
--   `stamp` (the event time with its milliseconds; only if newer, deciding on
--   the milliseconds; returns true then, see lib/outcome.lua), and keeps both
--   keys for 7 days.
-- swc_v6_snapshot(metrics_key)
--   { total_successes, total_failures, last_success_at, last_error_at,
--     last_error_json, consecutive_errors, consecutive_successes }
--   as HMGET returns them (missing fields are nil).
--include lib/outcome.lua
--include stoplight-v6/_subtract.lua

local EVICT_BATCH = 1000
local KEY_TTL_SECONDS = 604800

local function swc_v6_evict(metrics_key, index_key, cutoff)
  while true do
    local buckets = redis.call('ZRANGE', index_key, '-inf', cutoff, 'BYSCORE', 'LIMIT', 0, EVICT_BATCH)
    local count = #buckets
    if count == 0 then
      return
    end
    local fields = {}
    for i = 1, count do
      fields[2 * i - 1] = buckets[i] .. ':s'
      fields[2 * i] = buckets[i] .. ':f'
    end
    local values = redis.call('HMGET', metrics_key, unpack(fields))
    local successes, failures = 0, 0
    for i = 1, count do
      successes = successes + (tonumber(values[2 * i - 1]) or 0)
      failures = failures + (tonumber(values[2 * i]) or 0)
    end
    swc_v6_subtract(metrics_key, 'total_successes', successes)
    swc_v6_subtract(metrics_key, 'total_failures', failures)
    redis.call('HDEL', metrics_key, unpack(fields))
    redis.call('ZREM', index_key, unpack(buckets))
  end
end

local function swc_v6_record(metrics_key, index_key, second, stamp, counter_suffix, total_field,
                             stamp_field, reset_field, bump_field)
  local bucket = 'bucket:' .. second
  redis.call('HINCRBY', metrics_key, bucket .. counter_suffix, 1)
  redis.call('HINCRBY', metrics_key, total_field, 1)
  redis.call('ZADD', index_key, second, bucket)
  local newer = swc_record_outcome(metrics_key, stamp_field, stamp, reset_field, bump_field)
  redis.call('EXPIRE', metrics_key, KEY_TTL_SECONDS)
  redis.call('EXPIRE', index_key, KEY_TTL_SECONDS)
  return newer
end

local function swc_v6_snapshot(metrics_key)
  return redis.call('HMGET', metrics_key,
    'total_successes', 'total_failures', 'last_success_at', 'last_error_at',
    'last_error_json', 'consecutive_errors', 'consecutive_successes')
end
