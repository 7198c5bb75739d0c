import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { readTtlFindings } from '../../../src/clients/read-keys.js';
import { commandCalls, ownServer } from '../../helpers.js';

// What bench --client records per result as ttlFindings: a key with no TTL, a
// TTL past the package's bound, never a key within it or one that is gone.
let redis: Redis;
ownServer(async (_server, r) => {
  redis = r;
  await r.config('SET', 'maxmemory-policy', 'allkeys-lru');
  await r.set('ns:within', '1', 'PX', 10_000);
  await r.set('ns:past', '1', 'PX', 50_000);
  await r.set('ns:forever', '1');
});

describe('readTtlFindings', () => {
  it('names the key with no TTL and the one past the bound, with the window, the bound and the policy', async () => {
    const findings = await readTtlFindings(redis, ['ns:within', 'ns:past', 'ns:forever', 'ns:gone'], { windowMs: 10_000, longestMs: 11_000, package: 'p' });
    expect(findings.map((f) => [f.key, f.ttlMs === null ? null : 'ms', f.windowMs, f.longestMs, f.policy, f.package])).toEqual([
      ['ns:past', 'ms', 10_000, 11_000, 'allkeys-lru', 'p'],
      ['ns:forever', null, 10_000, 11_000, 'allkeys-lru', 'p'],
    ]);
  });

  it('no finding: an empty list, and no CONFIG GET sent', async () => {
    const before = await commandCalls(redis, 'config');
    expect(await readTtlFindings(redis, ['ns:within'], { windowMs: 10_000, longestMs: 11_000 })).toEqual([]);
    expect(await commandCalls(redis, 'config')).toBe(before);
  });
});
