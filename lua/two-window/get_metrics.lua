-- two-window/get_metrics.lua: estimate the sliding window from the current
-- and previous fixed windows, weighted by overlap; read-only, O(1).
--
-- KEYS[1]  windows        <prefix>:{<light>}:windows
-- ARGV[1]  window         seconds; estimates (floor(now) - window, floor(now)]
-- ARGV[2]  now            seconds, fractional allowed; '' = Redis TIME
--
-- Returns: { successes, failures, last_success_at, last_error_at,
--            last_error_json, consecutive_errors, consecutive_successes }:
--          the counts as decimal text (estimates are fractional), missing
--          metadata fields nil.
--include lib/now.lua
--include two-window/_two_window.lua

local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))

local successes, failures = swc_tw_estimate(KEYS[1], window, second)
-- A Lua number would reach the client truncated to an integer.
local reply = { string.format('%.17g', successes), string.format('%.17g', failures) }
local meta = swc_meta_fields(KEYS[1])
for i = 1, 5 do
  reply[2 + i] = meta[i]
end
return reply
