import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOREVER_KEY, keysWrittenByPackages, LOGIN_KEY, PACKAGES, PLANTED_KEY, writeKeysWithoutTtl, writeWithOwnPrefix } from '../../client-packages.js';
import { aclUserUrl, digest, editedJson, ownServer } from '../../helpers.js';
import { READ_ONLY_ACL } from '../../../src/redis/read-only-acl.js';
import { runInProcess } from '../../unit/in-process.js';
import { schemaErrors } from '../../schema-check.js';

// lights, inspect and compare on the keys the six packages wrote with their
// defaults, plus two keys with no TTL: one rate-limiter-flexible writes itself
// (duration 0), one planted. Runs in-process, on a server of the file's own.
let redis: Redis;
let url = '';
let written: Record<string, string[]> = {};
ownServer(async (server, r) => {
  redis = r;
  url = server.url;
});
beforeAll(async () => {
  written = await keysWrittenByPackages(redis);
  await writeKeysWithoutTtl(redis);
  await writeWithOwnPrefix(redis);
  await redis.config('SET', 'maxmemory-policy', 'volatile-lru');
}, 30_000);

interface LightsDoc {
  clients: {
    keys: { package: string; key: string; client: string; count: number; ttlMs: number | null }[];
    ttlFindings: { key: string; ttlMs: number | null; policy: string | null; package: string }[];
    maxmemoryPolicy: string | null;
  };
}

describe('lights and inspect on the packages’ own keys', () => {
  it('lights --json lists every key each package wrote, with the package named, and the two keys with no TTL as findings', async () => {
    const run = await runInProcess(['lights', '--redis-url', url, '--json', '--scan-pause', '0']);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as LightsDoc;
    expect(schemaErrors('lights', doc)).toEqual([]);
    for (const pkg of PACKAGES) {
      for (const key of written[pkg] ?? []) expect(doc.clients.keys.find((k) => k.key === key)?.package, key).toBe(pkg);
    }
    expect(doc.clients.keys.find((k) => k.key === 'rl:user-42')).toMatchObject({ client: 'user-42', count: 1 });
    expect(doc.clients.ttlFindings.map((f) => [f.key, f.ttlMs, f.policy, f.package])).toEqual([
      [PLANTED_KEY, null, 'volatile-lru', 'rate-limit-redis'],
      [FOREVER_KEY, null, 'volatile-lru', 'rate-limiter-flexible'],
    ]);
    expect(run.stderr).toMatch(/^swc: rate-limiter package keys: 2 with no TTL \(maxmemory-policy volatile-lru\): rl:planted, rlflx:forever$/m);
  });

  it('lights --check exits 1 on a key with no TTL; the table and CSV name each package', async () => {
    const [checked, table, csv, quiet] = await Promise.all([
      runInProcess(['lights', '--redis-url', url, '--check', '--scan-pause', '0']),
      runInProcess(['lights', '--redis-url', url, '--scan-pause', '0', '--wide']),
      runInProcess(['lights', '--redis-url', url, '--scan-pause', '0', '--format', 'csv']),
      runInProcess(['lights', '--redis-url', url, '--scan-pause', '0', '-q']),
    ]);
    expect(quiet.stdout).toMatch(new RegExp(`^rate-limiter package keys: ${Object.values(written).flat().length + 2}, 2 with a TTL finding$`, 'm'));
    expect(checked.code).toBe(1);
    expect(table.code).toBe(0);
    for (const pkg of PACKAGES) expect(table.stdout).toContain(pkg);
    expect(table.stdout).toMatch(/NO TTL/);
    expect(table.stdout).toMatch(/^finding: rl:planted \(rate-limit-redis\): no TTL: it never expires \(maxmemory-policy volatile-lru\)$/m);
    const [head, ...rows] = csv.stdout.trim().split('\n');
    expect(head).toMatch(/,package,client,count,ttlMs,ttlFinding$/);
    expect(rows.find((r) => r.startsWith('rate-limit-redis,rl:planted,planted,'))).toMatch(/,rate-limit-redis,planted,3,,NO TTL$/);
  });

  it('lights --window: a TTL past what the package sets for that window is a finding too, with the longest it sets', async () => {
    const run = await runInProcess(['lights', '--redis-url', url, '--json', '--scan-pause', '0', '--window', '30s']);
    const doc = JSON.parse(run.stdout) as { clients: { ttlFindings: { key: string; ttlMs: number | null; windowMs: number; longestMs: number }[] } };
    const long = doc.clients.ttlFindings.find((f) => f.key === 'rl:user-42');
    expect(long).toMatchObject({ windowMs: 30_000, longestMs: 30_000 });
    expect(long?.ttlMs).toBeGreaterThan(30_000);
    // @upstash/ratelimit keeps a counter twice the window and a second: 61 s for 30 s, under its 120 s TTL here.
    expect(doc.clients.ttlFindings.find((f) => f.key.startsWith('@upstash/ratelimit:'))).toMatchObject({ longestMs: 61_000 });
  });

  it('--client-prefix: keys under a prefix the application set are read too, by lights and inspect; a bad one is exit 2', async () => {
    const flag = ['--client-prefix', 'rate-limiter-flexible=login'];
    const [without, withPrefix, inspected, bad] = await Promise.all([
      runInProcess(['lights', '--redis-url', url, '--json', '--scan-pause', '0']),
      runInProcess(['lights', '--redis-url', url, '--json', '--scan-pause', '0', ...flag]),
      runInProcess(['inspect', LOGIN_KEY, '--redis-url', url, '--json', ...flag]),
      runInProcess(['lights', '--redis-url', url, '--client-prefix', 'express=rl:']),
    ]);
    const keysOf = (stdout: string): string[] => (JSON.parse(stdout) as LightsDoc).clients.keys.map((k) => k.key);
    expect(keysOf(without.stdout)).not.toContain(LOGIN_KEY);
    expect((JSON.parse(withPrefix.stdout) as LightsDoc).clients.keys.find((k) => k.key === LOGIN_KEY)).toMatchObject({
      package: 'rate-limiter-flexible',
      client: 'u1',
      count: 1,
    });
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({ clientKey: { package: 'rate-limiter-flexible', prefix: 'login', client: 'u1' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--client-prefix: expected <package>=<prefix>, the package one of rate-limiter-flexible, .*; got "express=rl:"/);
  });

  it('lights with --layout naming layouts leaves the package keys out', async () => {
    const run = await runInProcess(['lights', '--redis-url', url, '--json', '--scan-pause', '0', '--layout', 'stoplight-v6']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).not.toHaveProperty('clients');
  });

  it.each(PACKAGES)('inspect shows a key %s wrote: the package, the client, its count and TTL; exit 0', async (pkg) => {
    const key = (written[pkg] ?? [])[0] as string;
    const [json, text] = await Promise.all([runInProcess(['inspect', key, '--redis-url', url, '--json']), runInProcess(['inspect', key, '--redis-url', url])]);
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout) as { clientKey: { package: string; key: string; count: number; ttlMs: number | null }; maxmemoryPolicy: string };
    expect(schemaErrors('inspect', doc)).toEqual([]);
    expect(doc.clientKey).toMatchObject({ package: pkg, key, count: 1 });
    expect(doc.clientKey.ttlMs).toBeGreaterThan(0);
    expect(doc.maxmemoryPolicy).toBe('volatile-lru');
    expect(text.stdout).toContain(`a key of ${pkg}`);
  });

  it('inspect of a key with no TTL: marked, a warning with the maxmemory-policy, exit 1', async () => {
    const run = await runInProcess(['inspect', FOREVER_KEY, '--redis-url', url]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/expires: +never: NO TTL/);
    expect(run.stderr).toContain('swc: warning: rlflx:forever (rate-limiter-flexible): no TTL: it never expires (maxmemory-policy volatile-lru)');
  });
});

describe('read-only, as for Stoplight’s keys', () => {
  it('as the read-only ACL user: every key and TTL unchanged, the policy "not known" (CONFIG refused), the keys still listed', async () => {
    const before = await digest(redis, '*');
    const ttls = await Promise.all(Object.keys(before).map((k) => redis.pttl(k)));
    const reader = await aclUserUrl(redis, url, 'swc-reader', READ_ONLY_ACL.split(' '));
    const [listed, inspected] = await Promise.all([
      runInProcess(['lights', '--redis-url', reader, '--json', '--scan-pause', '0']),
      runInProcess(['inspect', PLANTED_KEY, '--redis-url', reader]),
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    const doc = JSON.parse(listed.stdout) as LightsDoc;
    expect(doc.clients.maxmemoryPolicy).toBeNull();
    expect(doc.clients.keys.length).toBe(Object.values(written).flat().length + 2);
    expect(inspected.code).toBe(1);
    expect(inspected.stdout).toContain('maxmemory-policy: not known');
    expect(await digest(redis, '*')).toEqual(before);
    const after = await Promise.all(Object.keys(before).map((k) => redis.pttl(k)));
    // No key gained or lost a TTL (they only count down).
    expect(after.map((t) => t === -1)).toEqual(ttls.map((t) => t === -1));
  });
});

describe('compare on a result whose package keys have no TTL', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swc-ttl-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const baseline = path.join(process.cwd(), 'fixtures/baselines/small.json');

  it('exits 1, naming the key and the policy; the same result without findings passes', async () => {
    const current = editedJson(baseline, path.join(dir, 'current.json'), (r) => {
      r.results[0].ttlFindings = [{ key: PLANTED_KEY, ttlMs: null, windowMs: 60_000, policy: 'volatile-lru', package: 'rate-limit-redis' }];
    });
    const [failing, passing, json] = await Promise.all([
      runInProcess(['compare', baseline, current]),
      runInProcess(['compare', baseline, baseline]),
      runInProcess(['compare', baseline, current, '--json']),
    ]);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout) as { ok: boolean; ttlFindings: { key: string; cell: string }[] };
    expect(schemaErrors('compare', doc)).toEqual([]);
    expect(doc.ttlFindings).toEqual([expect.objectContaining({ key: PLANTED_KEY, ttlMs: null, policy: 'volatile-lru' })]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/^FAIL: 1 package key\(s\) with no TTL \(maxmemory-policy volatile-lru\)$/m);
    expect(failing.stdout).toContain('rl:planted (rate-limit-redis): no TTL, the key never expires (maxmemory-policy volatile-lru)');
    expect(passing.code).toBe(0);
  });
});
