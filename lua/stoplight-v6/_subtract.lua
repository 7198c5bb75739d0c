-- stoplight-v6/_subtract.lua: how an eviction takes the evicted buckets'
-- counts off the running totals (included by _window.lua, never loaded alone).
--
-- swc_v6_subtract(metrics_key, field, count)
--   HINCRBY `field` of `metrics_key` by -count, skipped when count is 0: Lua's
--   -0 reaches Redis 7.0 as "-0", which HINCRBY refuses. A deliberate
--   difference from upstream 6.0 (docs/layouts.md, "Deliberate differences");
--   stoplight-v6-upstream/_subtract.lua subtracts as upstream does.

local function swc_v6_subtract(metrics_key, field, count)
  if count ~= 0 then
    redis.call('HINCRBY', metrics_key, field, -count)
  end
end
