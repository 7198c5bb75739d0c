-- ring/_ring.lua: the ring of per-second slots in one hash (included, never
-- loaded alone). Slot i = second mod window holds "<second>:<successes>:<failures>"
-- under field "<i>"; the metadata fields (lib/meta.lua) share the hash.
--
-- swc_ring_record(ring_key, window, second, outcome, error_json)
--   Counts one event in the slot of `second`. A slot holding an older second
--   is stale and starts again from this event; one holding a newer second
--   means this event left the window already, so only the metadata changes.
-- swc_ring_counts(ring_key, window, second) -> successes, failures
--   Sums the slots whose second is in (second - window, second]; reads every
--   slot (O(window)), since nothing else says which slots are stale.
--include lib/meta.lua

local function swc_ring_parse(value)
  local stamp, successes, failures = string.match(value, '^(%d+):(%d+):(%d+)$')
  return tonumber(stamp), tonumber(successes), tonumber(failures)
end

local function swc_ring_record(ring_key, window, second, outcome, error_json)
  local field = tostring(second % window)
  local successes, failures = 0, 0
  local current = redis.call('HGET', ring_key, field)
  local fresh = true
  if current then
    local stamp, s, f = swc_ring_parse(current)
    if stamp == second then
      successes, failures = s, f
    elseif stamp > second then
      fresh = false
    end
  end
  if fresh then
    if outcome == 'success' then
      successes = successes + 1
    else
      failures = failures + 1
    end
    redis.call('HSET', ring_key, field, second .. ':' .. successes .. ':' .. failures)
  end
  swc_meta_record(ring_key, outcome, second, error_json)
end

local function swc_ring_counts(ring_key, window, second)
  local flat = redis.call('HGETALL', ring_key)
  local successes, failures = 0, 0
  local oldest = second - window
  for i = 1, #flat, 2 do
    -- Slot fields are digits only; metadata fields are not.
    if string.find(flat[i], '^%d+$') then
      local stamp, s, f = swc_ring_parse(flat[i + 1])
      if stamp > oldest and stamp <= second then
        successes = successes + s
        failures = failures + f
      end
    end
  end
  return successes, failures
end
