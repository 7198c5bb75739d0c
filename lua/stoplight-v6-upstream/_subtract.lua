-- stoplight-v6-upstream/_subtract.lua: upstream 6.0's subtraction, unguarded
-- (included by this folder's scripts after stoplight-v6/_subtract.lua, whose
-- definition it shadows; never loaded alone).
--
-- swc_v6_subtract(metrics_key, field, count)
--   HINCRBY `field` of `metrics_key` by -count, also when count is 0: Lua's
--   -0 then reaches Redis 7.0 as "-0", which HINCRBY refuses ("ERR value is
--   not an integer or out of range"); Redis 7.2+ and Valkey receive "0".

local function swc_v6_subtract(metrics_key, field, count)
  redis.call('HINCRBY', metrics_key, field, -count)
end
