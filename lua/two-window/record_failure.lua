-- two-window/record_failure.lua: count one failure in the fixed window holding its second.
--
-- KEYS[1]  windows        <prefix>:{<light>}:windows   hash: start, cs, cf, ps, pf and metadata
-- ARGV[1]  window         seconds; fixed windows start at multiples of it
-- ARGV[2]  event time     seconds, fractional allowed; '' = Redis TIME
-- ARGV[3]  error JSON     stored as last_error_json when this failure is the newest
--
-- Returns: the start of the fixed window counted in.
--include lib/now.lua
--include two-window/_two_window.lua

local window = tonumber(ARGV[1])
local second = math.floor(swc_now(ARGV[2]))

swc_tw_record(KEYS[1], window, second, 'failure', ARGV[3])

return math.floor(second / window) * window
