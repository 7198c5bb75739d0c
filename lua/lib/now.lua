-- lib/now.lua: the event clock shared by every script (included, never loaded alone).
--
-- swc_now(arg) -> number of seconds since the Unix epoch, fractional allowed.
--   arg: the caller's injected time as a decimal string, or '' / nil to use
--        Redis TIME (microseconds; since Redis 7.2 frozen for one script run).
-- A benchmark injects the time so a long window fills in a second; an
-- application leaves it empty and gets the server's clock.
local function swc_now(arg)
  if arg ~= nil and arg ~= '' then
    local t = tonumber(arg)
    if t == nil then
      error({ err = 'ERR swc: event time must be a number of seconds, got "' .. tostring(arg) .. '"' })
    end
    return t
  end
  local clock = redis.call('TIME')
  return tonumber(clock[1]) + tonumber(clock[2]) / 1000000
end
