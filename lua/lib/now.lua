-- lib/now.lua: the event clock shared by every script (included, never loaded alone).
--
-- swc_now(arg) -> number of seconds since the Unix epoch, fractional allowed.
--   arg: the caller's injected time as a decimal string, or '' / nil to use
--        Redis TIME, cut to milliseconds as Stoplight 6.0's clock reads it
--        (since Redis 7.2 TIME is frozen for one script run).
-- A benchmark injects the time so a long window fills in a second; an
-- application leaves it empty and gets the server's clock.
--
-- swc_millis(t) -> t cut to whole milliseconds, as a number of seconds,
--   within t's own second. Stoplight 6.0 stamps events with its clock in
--   milliseconds divided by 1000, from a clock read to the microsecond: so
--   t is taken to its nearest whole microsecond first (the 0.0005 ms), as
--   an injected TIME carries it (src/lua/source.ts injectedTimeArg); that
--   also absorbs the binary error of t * 1000 for a time given with three
--   decimals. src/traffic/events.ts stampOf does the same arithmetic.)
local function swc_now(arg)
  if arg ~= nil and arg ~= '' then
    local t = tonumber(arg)
    if t == nil then
      error({ err = 'ERR swc: event time must be a number of seconds, got "' .. tostring(arg) .. '"' })
    end
    return t
  end
  local clock = redis.call('TIME')
  return tonumber(clock[1]) + math.floor(tonumber(clock[2]) / 1000) / 1000
end

local function swc_millis(t)
  local second = math.floor(t)
  return math.min(math.floor(t * 1000 + 0.0005) / 1000, second + 0.999)
end
