/**
 * A million-field registry and a million-bucket light (#29): both used to
 * end in "Maximum call stack size exceeded" (an array of a million spread
 * into one call); both are read, judged and rendered, with the heap bounded.
 * The tests call what `swc lights` and `swc inspect` call (readListing and
 * listingOutput; inspectLight and renderInspections), in this process: a
 * spawned CLI read the same million again for an exit code the command
 * layer does not change (every place that overflowed is below it).
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { inspectLight } from '../../../src/inspect/inspect.js';
import { readListing } from '../../../src/inspect/listing.js';
import { newNameBook } from '../../../src/layouts/stoplight/names.js';
import { shortId, StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { renderInspections } from '../../../src/report/inspect.js';
import { listingOutput } from '../../../src/report/listing.js';
import { HOUR_START, ownServer } from '../../helpers.js';

const MILLION = 1_000_000;
const v6 = new StoplightV6();
const light = { name: 'huge', system: 'payments' };
const START = HOUR_START;
const AT = START + MILLION + 1;

let redis: Redis;

/**
 * Fills a hash or sorted set on the test's own server in one script: `count`
 * elements `i` from 0, HSET `<field prefix>i<field suffix>` = value or ZADD
 * score `base + i` member `<prefix>(base + i)<suffix>`, 1,000 per call.
 * Client-side batches sent ~30 MB per key over the socket.
 */
const FILL = `
local kind, count, base, before, after, value = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6]
for from = 0, count - 1, 1000 do
  local args = {}
  for i = from, math.min(count, from + 1000) - 1 do
    local n = string.format('%d', base + i)
    if kind == 'hash' then
      args[#args + 1] = before .. n .. after
      args[#args + 1] = value
    else
      args[#args + 1] = base + i
      args[#args + 1] = before .. n .. after
    end
  end
  redis.call(kind == 'hash' and 'HSET' or 'ZADD', KEYS[1], unpack(args))
end
return redis.call(kind == 'hash' and 'HLEN' or 'ZCARD', KEYS[1])
`;
async function fill(kind: 'hash' | 'zset', key: string, base: number, before: string, after: string, value = ''): Promise<void> {
  const made = await redis.eval(FILL, 1, key, kind, String(MILLION), String(base), before, after, value);
  expect(made).toBe(MILLION);
}

ownServer(
  async (_server, r) => {
    redis = r;
    // A registry of a million entries that are not configs (each is a problem, one line).
    await fill('hash', `stoplight:v6:${shortId('payments')}:lights`, 0, 'f', '', 'x');
    // One light with a bucket for each of a million seconds, and its index.
    await fill('hash', v6.metricsKey(light), START, 'bucket:', ':s', '1');
    await redis.hset(v6.metricsKey(light), 'total_successes', String(MILLION), 'total_failures', '0');
    await fill('zset', v6.indexKey(light), START, 'bucket:', '');
  },
  {},
  240_000,
);

describe('a million of anything from Redis', () => {
  it('lights: the million-field registry and the million-bucket light are listed and printed', async () => {
    const before = process.memoryUsage().heapUsed;
    // What `swc lights --window 604800 --at AT` reads, as the command asks for it.
    const listing = await readListing(redis, { windowSeconds: 604800, at: AT, names: newNameBook(), scanPauseMs: 0, stopped: () => false });
    expect(listing.list.problems.filter((p) => p.includes(':lights field f'))).toHaveLength(MILLION);
    const huge = listing.list.lights.find((l) => l.systemId === shortId('payments'));
    expect(huge?.firstSecond).toBe(START);
    expect(huge?.lastSecond).toBe(START + MILLION - 1);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(1024 * 1024 * 1024);
    const out = listingOutput(listing, { format: 'table', wide: false, color: false, check: false, snapshot: false, stopCause: () => 'nothing' });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`… ${MILLION - 20} more problem(s) (--json lists all)`);
  });

  it('inspectLight and its table: a million buckets', async () => {
    const [inspection] = await inspectLight(redis, { light: light.name, system: light.system, at: AT, windowSeconds: 604800 });
    expect(inspection).toBeDefined();
    const text = renderInspections([inspection!], { color: false, limit: MILLION, picture: true, columns: 120 });
    expect(text).toContain('huge');
  });
});
