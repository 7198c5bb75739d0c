import { describe, expect, it } from 'vitest';
import { claimClientKey, defaultClientGlobs, KEY_NAMES, parseClientPrefix } from '../../../src/clients/key-names.js';

// Key names as each package builds them (the integration test feeds keys the
// packages themselves wrote; these cover the shapes a default run does not).
describe('how each package names its keys', () => {
  it('every package of the registry has an entry, with a default prefix and a glob for it', () => {
    expect(Object.keys(KEY_NAMES)).toEqual([
      'rate-limiter-flexible',
      'rate-limit-redis',
      '@fastify/rate-limit',
      '@upstash/ratelimit',
      'ratelimiter',
      'rolling-rate-limiter',
    ]);
    expect(defaultClientGlobs()).toEqual(['rlflx:*', 'rl:*', 'fastify-rate-limit-*', '@upstash/ratelimit:*', 'limit:*', 'undefined*']);
  });

  const cases: [string, string, string, string | null, object?][] = [
    ['rate-limiter-flexible', 'rlflx:10.0.0.7', 'rlflx', '10.0.0.7'],
    ['rate-limiter-flexible', 'app:login:user:1', 'app:login', 'user:1'],
    ['rate-limiter-flexible', 'rlflx:', 'rlflx', null],
    ['rate-limiter-flexible', 'rlflxx:1', 'rlflx', null],
    ['rate-limit-redis', 'rl:::1', 'rl:', '::1'],
    ['rate-limit-redis', 'rlflx:1', 'rl:', null],
    ['@fastify/rate-limit', 'fastify-rate-limit-127.0.0.1', 'fastify-rate-limit-', '127.0.0.1'],
    ['@fastify/rate-limit', 'fastify-rate-limit-GET/orders-list-10.0.0.7', 'fastify-rate-limit-', '10.0.0.7', { scope: 'GET/orders-list' }],
    ['@fastify/rate-limit', 'fastify-rate-limit-undefinedundefined-10.0.0.7', 'fastify-rate-limit-', '10.0.0.7', { scope: 'handler' }],
    ['@fastify/rate-limit', 'fastify-rate-limit-user-42', 'fastify-rate-limit-', 'user-42'],
    ['@upstash/ratelimit', '@upstash/ratelimit:user-42:29416200', '@upstash/ratelimit', 'user-42', { window: 29416200 }],
    ['@upstash/ratelimit', '@upstash/ratelimit:a:b:7', '@upstash/ratelimit', 'a:b', { window: 7 }],
    ['@upstash/ratelimit', '@upstash/ratelimit:dynamic:global', '@upstash/ratelimit', null],
    ['@upstash/ratelimit', '@upstash/ratelimit:denyList:all', '@upstash/ratelimit', null],
    ['@upstash/ratelimit', '@upstash/ratelimit:tokens-of-user', '@upstash/ratelimit', null],
    ['ratelimiter', 'limit:user-42', 'limit:', 'user-42'],
    ['ratelimiter', 'limits:1', 'limit:', null],
    ['rolling-rate-limiter', 'undefineduser-42', 'undefined', 'user-42'],
    ['rolling-rate-limiter', 'rate-limiter10.0.0.7', 'rate-limiter', '10.0.0.7'],
  ];
  it.each(cases)('%s: %s under "%s" is client %s', (pkg, key, prefix, client, extra) => {
    const naming = KEY_NAMES[pkg];
    expect(naming?.clientOfKey(key, prefix)).toBe(client);
    if (client !== null) expect(naming?.partsOfKey(key, prefix)).toEqual({ client, ...extra });
  });

  it('an empty prefix gives no glob (rate-limiter-flexible then writes the bare id)', () => {
    expect(KEY_NAMES['rate-limiter-flexible']?.globOf('')).toBeNull();
    expect(KEY_NAMES['rate-limit-redis']?.globOf('a*b')).toBe('a\\*b*');
  });

  it('the longest TTL each package sets for a 10 s window', () => {
    const ttl = Object.fromEntries(Object.entries(KEY_NAMES).map(([name, n]) => [name, n.longestTtlMs(10_500)]));
    expect(ttl).toEqual({
      'rate-limiter-flexible': 10_500,
      'rate-limit-redis': 10_500,
      '@fastify/rate-limit': 10_500,
      '@upstash/ratelimit': 22_000,
      ratelimiter: 10_500,
      'rolling-rate-limiter': 11_000,
    });
  });

  it('claimClientKey names the package whose default prefix a key has, or null', () => {
    expect(claimClientKey('rlflx:1')?.packageName).toBe('rate-limiter-flexible');
    expect(claimClientKey('rl:1')?.packageName).toBe('rate-limit-redis');
    expect(claimClientKey('stoplight:v6:abc')).toBeNull();
    expect(claimClientKey('app:session:1')).toBeNull();
  });

  it('--client-prefix: a package by its npm or short name, a prefix SCAN can find; a given prefix claims keys beside the defaults', () => {
    expect(parseClientPrefix('fastify-rate-limit=api-')).toEqual({ packageName: '@fastify/rate-limit', prefix: 'api-' });
    expect(parseClientPrefix('rolling-rate-limiter=a=b')).toEqual({ packageName: 'rolling-rate-limiter', prefix: 'a=b' });
    expect(() => parseClientPrefix('rate-limit-redis')).toThrow(/^--client-prefix: expected <package>=<prefix>/);
    expect(() => parseClientPrefix('rate-limiter-flexible=')).toThrow(/^--client-prefix: rate-limiter-flexible needs a non-empty prefix/);
    const given = [parseClientPrefix('rolling-rate-limiter=rrl:')];
    expect(defaultClientGlobs(given).at(-1)).toBe('rrl:*');
    expect(claimClientKey('rrl:u1', given)).toMatchObject({ packageName: 'rolling-rate-limiter', prefix: 'rrl:', parts: { client: 'u1' } });
    expect(claimClientKey('rrl:u1')).toBeNull();
  });
});
