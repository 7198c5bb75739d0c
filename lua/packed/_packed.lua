-- packed/_packed.lua: the ring of per-second slots as fixed-width counters in
-- one string (included, never loaded alone). Slot i = second mod window is
-- 12 bytes at byte 12 * i: three big-endian unsigned 32-bit integers (the
-- slot's second, its successes, its failures), as BITFIELD u32 #3i, #3i+1,
-- #3i+2 address them. Counters saturate at 2^32 - 1 instead of wrapping.
--
-- swc_packed_record(counters_key, window, second, outcome)
--   Counts one event in the slot of `second`. A slot holding an older second
--   is stale and starts again from this event; one holding a newer second
--   means this event left the window already, so nothing is counted. A
--   missing string is first created zero-filled at its full length.
-- swc_packed_counts(counters_key, window, second) -> successes, failures
--   Sums the slots whose second is in (second - window, second]; reads the
--   whole string once (O(window)).
local SWC_PACKED_SLOT_BYTES = 12

local function swc_packed_record(counters_key, window, second, outcome)
  local slot = second % window
  if redis.call('EXISTS', counters_key) == 0 then
    -- Created at its full length in one allocation: grown slot by slot, Redis
    -- would over-allocate (it doubles a growing string), about 45% more bytes.
    redis.call('SETRANGE', counters_key, window * SWC_PACKED_SLOT_BYTES - 1, '\0')
  end
  local stamp = redis.call('BITFIELD', counters_key, 'GET', 'u32', '#' .. (3 * slot))[1]
  if stamp > second then
    return
  end
  local counter = outcome == 'success' and 1 or 2
  if stamp == second then
    redis.call('BITFIELD', counters_key, 'OVERFLOW', 'SAT', 'INCRBY', 'u32', '#' .. (3 * slot + counter), 1)
  else
    redis.call('BITFIELD', counters_key,
      'SET', 'u32', '#' .. (3 * slot), second,
      'SET', 'u32', '#' .. (3 * slot + 1), counter == 1 and 1 or 0,
      'SET', 'u32', '#' .. (3 * slot + 2), counter == 2 and 1 or 0)
  end
end

local function swc_packed_counts(counters_key, window, second)
  local bytes = redis.call('GET', counters_key)
  local successes, failures = 0, 0
  if not bytes then
    return successes, failures
  end
  local oldest = second - window
  local slots = math.min(window, math.floor(#bytes / SWC_PACKED_SLOT_BYTES))
  for slot = 0, slots - 1 do
    local stamp, s, f = struct.unpack('>I4I4I4', bytes, slot * SWC_PACKED_SLOT_BYTES + 1)
    if stamp > oldest and stamp <= second then
      successes = successes + s
      failures = failures + f
    end
  end
  return successes, failures
end
