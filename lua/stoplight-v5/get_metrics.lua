-- stoplight-v5/get_metrics.lua: count the events inside the closed window
-- [now - window, now] and return the metadata. Read-only.
--
-- KEYS[1]              metadata hash      stoplight:v5:metadata:<name>
-- KEYS[2 .. 1+n]       success hour keys  stoplight:v5:metrics:<name>:success:<hour_start>
-- KEYS[2+n .. 1+2n]    failure hour keys  stoplight:v5:metrics:<name>:failure:<hour_start>
-- ARGV[1]  window      seconds, capped at 86400 (the hour keys live one day)
-- ARGV[2]  n           how many success hour keys follow KEYS[1] (as many failure keys follow)
-- ARGV[3]  now         seconds, fractional allowed; '' = Redis TIME
--
-- The caller picks the hour keys as Stoplight 5.x's client does: from the
-- one holding (now - window) to the one holding (now - 1), so a read in the
-- first second of an hour does not see that second's events. Only the keys
-- passed are counted.
--
-- Returns: { successes, failures, metadata as a flat HGETALL array }
--include lib/now.lua

local metadata_key = KEYS[1]
local window = math.min(tonumber(ARGV[1]), 86400)
local hour_keys = tonumber(ARGV[2])
local now = math.floor(swc_now(ARGV[3]))

local window_start = now - window
local recovered_at = tonumber(redis.call('HGET', metadata_key, 'recovered_at'))
if recovered_at ~= nil and recovered_at > window_start then
  window_start = recovered_at
end

local function count(first, last)
  local total = 0
  for i = first, last do
    total = total + redis.call('ZCOUNT', KEYS[i], window_start, now)
  end
  return total
end

local successes = count(2, 1 + hour_keys)
local failures = count(2 + hour_keys, 1 + 2 * hour_keys)

return { successes, failures, redis.call('HGETALL', metadata_key) }
