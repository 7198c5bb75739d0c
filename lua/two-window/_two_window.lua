-- two-window/_two_window.lua: two fixed windows in one hash (included, never
-- loaded alone). Fixed windows start at multiples of the window size;
-- `start` is the current one's start, cs/cf its counts, ps/pf the previous
-- window's. The metadata fields (lib/meta.lua) share the hash.
--
-- swc_tw_record(hash_key, window, second, outcome, error_json)
--   Rolls the windows forward to the one holding `second` (the current
--   becomes the previous, or both empty after a longer gap), then counts the
--   event. An event older than the previous window is not counted.
-- swc_tw_estimate(hash_key, window, second) -> successes, failures
--   current + previous * (seconds of the previous window still inside
--   (second - window, second]) / window: exact when the previous window's
--   traffic was spread evenly over its seconds. Read-only.
--include lib/meta.lua

local function swc_tw_state(hash_key)
  local v = redis.call('HMGET', hash_key, 'start', 'cs', 'cf', 'ps', 'pf')
  return tonumber(v[1]), tonumber(v[2]) or 0, tonumber(v[3]) or 0, tonumber(v[4]) or 0, tonumber(v[5]) or 0
end

local function swc_tw_record(hash_key, window, second, outcome, error_json)
  local current = math.floor(second / window) * window
  local start, cs, cf = swc_tw_state(hash_key)
  local field = outcome == 'success' and 'cs' or 'cf'
  if start == current then
    redis.call('HINCRBY', hash_key, field, 1)
  elseif start == nil or start < current then
    if start == current - window then
      redis.call('HSET', hash_key, 'start', current, 'ps', cs, 'pf', cf, 'cs', 0, 'cf', 0)
    else
      redis.call('HSET', hash_key, 'start', current, 'ps', 0, 'pf', 0, 'cs', 0, 'cf', 0)
    end
    redis.call('HINCRBY', hash_key, field, 1)
  elseif start == current + window then
    redis.call('HINCRBY', hash_key, outcome == 'success' and 'ps' or 'pf', 1)
  end
  swc_meta_record(hash_key, outcome, second, error_json)
end

local function swc_tw_estimate(hash_key, window, second)
  local current = math.floor(second / window) * window
  local start, cs, cf, ps, pf = swc_tw_state(hash_key)
  if start == current - window then
    -- No event yet in the current fixed window: the stored current is the previous.
    cs, cf, ps, pf = 0, 0, cs, cf
  elseif start ~= current then
    return 0, 0
  end
  local weight = (window - 1 - (second - current)) / window
  return cs + ps * weight, cf + pf * weight
end
