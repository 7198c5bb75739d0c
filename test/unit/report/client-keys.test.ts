import { describe, expect, it } from 'vitest';
import type { ClientKeysRead } from '../../../src/clients/read-keys.js';
import { clientKeysGrid, renderClientKeys, ttlFindingText, ttlNotice } from '../../../src/report/client-keys.js';

const read: ClientKeysRead = {
  keys: [
    { package: 'rate-limit-redis', key: 'rl:a', prefix: 'rl:', client: 'a', kind: 'counter', count: 3, ttlMs: null, bytes: 56 },
    {
      package: '@upstash/ratelimit',
      key: '@upstash/ratelimit:b:7',
      prefix: '@upstash/ratelimit',
      client: 'b',
      window: 7,
      kind: 'counter',
      count: 1,
      ttlMs: 90_000,
      bytes: 72,
    },
    { package: 'ratelimiter', key: 'limit:c', prefix: 'limit:', client: 'c', kind: 'log', count: 2, ttlMs: 4_500, oldestMs: 1, newestMs: 2, bytes: null },
  ],
  ttlFindings: [
    { key: 'rl:a', ttlMs: null, windowMs: null, policy: 'volatile-ttl', package: 'rate-limit-redis' },
    { key: '@upstash/ratelimit:b:7', ttlMs: 90_000, windowMs: 30_000, longestMs: 61_000, policy: 'volatile-ttl', package: '@upstash/ratelimit' },
  ],
  maxmemoryPolicy: 'volatile-ttl',
  skipped: ['limit:h is a hash, not the zset ratelimiter keeps: not listed'],
  unavailable: [],
};

describe('package keys rendered', () => {
  it('a row per key: package, client, what the name says, count, expiry, bytes and the finding', () => {
    expect(clientKeysGrid(read).rows).toEqual([
      ['rate-limit-redis', 'a', 'rl:a', 'counter', '3', 'no TTL', '56', 'NO TTL'],
      ['@upstash/ratelimit', 'b', '@upstash/ratelimit:b:7', 'counter, window #7', '1', '90 s', '72', 'TTL > window'],
      ['ratelimiter', 'c', 'limit:c', 'log', '2', '4.5 s', 'n/a', ''],
    ]);
  });

  it('the stderr notice counts each kind of finding with the policy; none without findings', () => {
    expect(ttlNotice(read)).toBe(
      'swc: rate-limiter package keys: 1 with no TTL, 1 with a TTL past their window (maxmemory-policy volatile-ttl): rl:a, @upstash/ratelimit:b:7',
    );
    expect(ttlNotice({ ...read, ttlFindings: [] })).toBeNull();
    expect(ttlNotice(undefined)).toBeNull();
  });

  it('Markdown: a titled table and the finding and skipped lines as a list; nothing when there is no key', () => {
    const md = renderClientKeys(read, 'markdown', false);
    expect(md).toContain('**rate-limiter package keys (default prefixes): 3**');
    expect(md).toContain(
      '- finding: @upstash/ratelimit:b:7 (@upstash/ratelimit): TTL 90 s, past the 61 s the package sets for a 30 s window (maxmemory-policy volatile-ttl)',
    );
    expect(md).toContain('- skipped: limit:h is a hash');
    expect(renderClientKeys({ ...read, keys: [], skipped: [] }, 'table', false)).toBe('');
  });

  it("compare's line for a finding, the policy unknown when CONFIG was refused", () => {
    expect(ttlFindingText({ key: 'rl:a', ttlMs: null, windowMs: 60_000, policy: null })).toBe(
      'rl:a: no TTL, the key never expires (maxmemory-policy not known)',
    );
  });
});
