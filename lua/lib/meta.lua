-- lib/meta.lua: the outcome metadata every layout after 6.0 keeps in one hash
-- (included, never loaded alone), so their snapshots compare field for field
-- with the built-in layouts'.
--
-- swc_meta_record(hash_key, outcome, second, error_json)
--   outcome 'success' or 'failure'. Updates last_success_at / last_error_at
--   (only if newer), the consecutive counters, and for the newest failure
--   last_error_json (see lib/outcome.lua). Keeps the hash for 7 days, so the
--   consecutive counters outlive idle gaps as Stoplight's do.
-- swc_meta_fields(hash_key)
--   { last_success_at, last_error_at, last_error_json, consecutive_errors,
--     consecutive_successes } as HMGET returns them (missing fields are nil).
--include lib/outcome.lua

local SWC_META_TTL_SECONDS = 604800

local function swc_meta_record(hash_key, outcome, second, error_json)
  if outcome == 'success' then
    swc_record_outcome(hash_key, 'last_success_at', second, 'consecutive_errors', 'consecutive_successes')
  elseif swc_record_outcome(hash_key, 'last_error_at', second, 'consecutive_successes', 'consecutive_errors') then
    redis.call('HSET', hash_key, 'last_error_json', error_json)
  end
  redis.call('EXPIRE', hash_key, SWC_META_TTL_SECONDS)
end

local function swc_meta_fields(hash_key)
  return redis.call('HMGET', hash_key,
    'last_success_at', 'last_error_at', 'last_error_json', 'consecutive_errors', 'consecutive_successes')
end
