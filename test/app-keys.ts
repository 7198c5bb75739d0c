import type { Redis } from 'ioredis';

/**
 * Writes `count` keys of an application's own (strings, hashes, sorted sets
 * and lists, a quarter each) in one script, plus, with `stoplightEvery`, one
 * string under a Stoplight-like prefix every that many keys; returns DBSIZE.
 */
export async function populateAppKeys(redis: Redis, count: number, { stoplightEvery = 0 }: { stoplightEvery?: number } = {}): Promise<number> {
  const script = `
for i = 1, tonumber(ARGV[1]) do
  local kind = i % 4
  if kind == 0 then redis.call('SET', 'app:session:' .. i, 'x')
  elseif kind == 1 then redis.call('HSET', 'app:user:' .. i, 'name', 'n', 'plan', 'p')
  elseif kind == 2 then redis.call('ZADD', 'app:rank:' .. i, i, 'm')
  else redis.call('RPUSH', 'app:queue:' .. i, 'a', 'b') end
  local every = tonumber(ARGV[2])
  if every > 0 and i % every == 0 then redis.call('SET', 'stoplight:v5:unrelated:' .. i, 'x') end
end
return redis.call('DBSIZE')
`;
  return Number(await redis.eval(script, 0, String(count), String(stoplightEvery)));
}
