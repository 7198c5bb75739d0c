-- lib/outcome.lua: the outcome fields both layouts keep in a hash (included,
-- never loaded alone).
--
-- swc_record_outcome(hash_key, stamp_field, stamp, reset_field, bump_field)
--   Sets stamp_field (last_success_at / last_error_at) to stamp (a number of
--   seconds: whole for 5.x, with milliseconds for 6.0, as each stores it) only
--   if that is newer than what is stored, resets one consecutive counter and
--   increments the other. Returns true when the stamp moved forward, so a
--   failure knows whether its error JSON is the newest.
local function swc_record_outcome(hash_key, stamp_field, stamp, reset_field, bump_field)
  local previous = tonumber(redis.call('HGET', hash_key, stamp_field))
  local newer = previous == nil or stamp > previous
  if newer then
    -- A Lua number: Redis writes it as its own float text (on 7.0, %.17g),
    -- exactly as Stoplight's scripts store theirs.
    redis.call('HSET', hash_key, stamp_field, stamp)
  end
  redis.call('HSET', hash_key, reset_field, 0)
  redis.call('HINCRBY', hash_key, bump_field, 1)
  return newer
end
