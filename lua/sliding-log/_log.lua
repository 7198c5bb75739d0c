-- sliding-log/_log.lua: the write shared by both outcomes (included, never
-- loaded alone).
--
-- swc_log_record(own_key, other_key, meta_key, window, second, member, outcome, error_json)
--   Adds `member` scored `second` to own_key, prunes both logs to the window
--   (scores <= second - window go), keeps each log for two windows after its
--   last write, and updates the metadata (lib/meta.lua).
--include lib/meta.lua

local function swc_log_record(own_key, other_key, meta_key, window, second, member, outcome, error_json)
  redis.call('ZADD', own_key, second, member)
  local cutoff = second - window
  redis.call('ZREMRANGEBYSCORE', own_key, '-inf', cutoff)
  redis.call('ZREMRANGEBYSCORE', other_key, '-inf', cutoff)
  redis.call('EXPIRE', own_key, 2 * window)
  -- EXPIRE on a missing key does nothing, so the other log is not created.
  redis.call('EXPIRE', other_key, 2 * window)
  swc_meta_record(meta_key, outcome, second, error_json)
end
