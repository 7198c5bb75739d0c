import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimClientKey, KEY_NAMES } from '../../../src/clients/key-names.js';
import { CLIENT_IDS, keysWrittenByPackages, PACKAGES, WINDOW_MS } from '../../client-packages.js';
import { ownServer } from '../../helpers.js';

// Each package run with its defaults on a server of this file's own; the keys
// it made (present after its calls, not before) are read back by swc's names.
let redis: Redis;
let written: Record<string, string[]> = {};
ownServer(async (_server, r) => {
  redis = r;
});
beforeAll(async () => {
  written = await keysWrittenByPackages(redis);
}, 30_000);

describe('key names against the keys each package wrote with its defaults', () => {
  it.each(PACKAGES)('%s: every key it made is claimed for it, with a client id it was called for, of the type and TTL its naming says', async (pkg) => {
    const naming = KEY_NAMES[pkg];
    const keys = written[pkg] ?? [];
    expect(keys.length, pkg).toBeGreaterThan(0);
    for (const key of keys) {
      expect(claimClientKey(key)?.packageName, key).toBe(pkg);
      expect(CLIENT_IDS as readonly string[], key).toContain(naming?.clientOfKey(key, naming.defaultPrefix));
      expect(await redis.type(key), key).toBe(naming?.redisType);
      const ttl = await redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(naming?.longestTtlMs(WINDOW_MS) ?? 0);
    }
  });

  it('the keys, as the packages named them', () => {
    const upstashWindow = Math.floor(Date.now() / WINDOW_MS);
    expect(written).toEqual({
      'rate-limiter-flexible': ['rlflx:10.0.0.7', 'rlflx:user-42'],
      'rate-limit-redis': ['rl:10.0.0.7', 'rl:user-42'],
      '@fastify/rate-limit': ['fastify-rate-limit-10.0.0.7', 'fastify-rate-limit-GET/orders-list-10.0.0.7'],
      '@upstash/ratelimit': expect.arrayContaining([
        expect.stringMatching(new RegExp(`^@upstash/ratelimit:10\\.0\\.0\\.7:(${upstashWindow}|${upstashWindow - 1})$`)),
      ]),
      ratelimiter: ['limit:10.0.0.7', 'limit:user-42'],
      'rolling-rate-limiter': ['undefined10.0.0.7', 'undefineduser-42'],
    });
    expect(KEY_NAMES['@fastify/rate-limit']?.partsOfKey('fastify-rate-limit-GET/orders-list-10.0.0.7', 'fastify-rate-limit-')).toEqual({
      client: '10.0.0.7',
      scope: 'GET/orders-list',
    });
  });
});
