-- stoplight-v5/_metadata.lua: metadata updates shared by record_success and
-- record_failure (included, never loaded alone).
--
-- swc_v5_touch_metadata(metadata_key, stamp_field, second, reset_field, bump_field)
--   Sets stamp_field to second only if that is newer than what is stored,
--   resets one consecutive counter, increments the other, and keeps the hash
--   for 7 days. Returns true when the stamp moved forward.
local METADATA_TTL_SECONDS = 604800

local function swc_v5_touch_metadata(metadata_key, stamp_field, second, reset_field, bump_field)
  local previous = tonumber(redis.call('HGET', metadata_key, stamp_field))
  local newer = previous == nil or second > previous
  if newer then
    redis.call('HSET', metadata_key, stamp_field, second)
  end
  redis.call('HSET', metadata_key, reset_field, 0)
  redis.call('HINCRBY', metadata_key, bump_field, 1)
  redis.call('EXPIRE', metadata_key, METADATA_TTL_SECONDS)
  return newer
end
