-- lib/outcome.lua: the outcome fields both layouts keep in a hash (included,
-- never loaded alone).
--
-- swc_record_outcome(hash_key, stamp_field, second, reset_field, bump_field)
--   Sets stamp_field (last_success_at / last_error_at) to second only if that
--   is newer than what is stored, resets one consecutive counter and
--   increments the other. Returns true when the stamp moved forward, so a
--   failure knows whether its error JSON is the newest.
local function swc_record_outcome(hash_key, stamp_field, second, reset_field, bump_field)
  local previous = tonumber(redis.call('HGET', hash_key, stamp_field))
  local newer = previous == nil or second > previous
  if newer then
    redis.call('HSET', hash_key, stamp_field, second)
  end
  redis.call('HSET', hash_key, reset_field, 0)
  redis.call('HINCRBY', hash_key, bump_field, 1)
  return newer
end
