import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../../src/core/errors.js';
import { twoWindowModel } from '../../../src/clients/models/two-window.js';
import { ttlBoundMs } from '../../../src/clients/ttl.js';
import type { ClientLimiter, ClientSettings } from '../../../src/clients/types.js';
import { upstashRatelimit } from '../../../src/clients/upstash-ratelimit.js';
import { ANSWERED_COMMANDS, startRestShim, type RestShim } from '../../../src/clients/upstash/rest-shim.js';
import { parseCommandCalls } from '../../../src/measure/commandstats.js';
import { parseInfo } from '../../../src/redis/info.js';
import { driveClient, evenEvents, prefixKeys, tally, withDateNow, type ClientEvent } from '../../clients.js';
import { keysMatching, testRedis, testServer, uniqueName } from '../../helpers.js';

/**
 * @upstash/ratelimit's slidingWindow, driven through the package itself (and @upstash/redis, over swc's
 * stand-in for the Upstash REST API) on the test server, with Date.now injected: every decision is held to
 * the two-window model, and the keys, TTLs and memory it leaves are read back from the server.
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');
const WINDOW = 60_000;
const LIMIT = 10;
/** A window boundary on the injected clock (window number 29_000_000 of 60 s). */
const B = 29_000_000 * WINDOW;

let redis: Redis;
let serverVersion: string;
const opened: { limiter: ClientLimiter; prefix: string }[] = [];

async function openLimiter(label: string, limit = LIMIT): Promise<{ limiter: ClientLimiter; settings: ClientSettings }> {
  const settings = { prefix: `swc-test:${uniqueName(label)}`, limit, windowMs: WINDOW };
  const { limiter, version } = await upstashRatelimit.open({ redis, connect: () => Promise.resolve(redis), requireFrom: ROOT }, settings);
  expect(version).toMatch(/^\d+\.\d+\.\d+/);
  opened.push({ limiter, prefix: settings.prefix });
  return { limiter, settings };
}

/** Drives one client's events through a fresh limiter and the model; every decision must agree. */
async function runShape(label: string, events: ClientEvent[]): Promise<{ sent: number; allowed: number; largest: number; prefix: string }> {
  const { limiter, settings } = await openLimiter(label);
  const driven = await driveClient(limiter, twoWindowModel(settings), events);
  expect(driven.package).toEqual(driven.model);
  return { ...tally(driven, WINDOW), prefix: settings.prefix };
}

beforeAll(async () => {
  redis = await testRedis();
  serverVersion = parseInfo(await redis.info('server')).redis_version ?? '';
});

afterAll(async () => {
  for (const { limiter, prefix } of opened) {
    await limiter.close();
    const keys = await keysMatching(redis, `${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
});

describe('@upstash/ratelimit slidingWindow through its own calls', () => {
  it('writes one key per client and window with allowed decisions, counts in it, TTLs within 2 × window + 1 s, nothing outside its prefix', async () => {
    const before = new Set(await keysMatching(redis, '*'));
    const { limiter, settings } = await openLimiter('keys');
    // Client a: 6 decisions in window 0 and 4 in window 1 (all below the limit); client b: 12 in window 0 (2 denied).
    const events = [...evenEvents('a', 6, B, B + WINDOW), ...evenEvents('b', 12, B, B + WINDOW / 2), ...evenEvents('a', 4, B + WINDOW, B + 2 * WINDOW)];
    const driven = await driveClient(limiter, twoWindowModel(settings), events);
    expect(driven.package).toEqual(driven.model);
    expect(driven.package.filter(Boolean)).toHaveLength(20);

    const keys = await prefixKeys(redis, settings.prefix);
    const n = B / WINDOW;
    expect(keys.map((k) => k.key)).toEqual([`${settings.prefix}:a:${n}`, `${settings.prefix}:a:${n + 1}`, `${settings.prefix}:b:${n}`]);
    expect(await redis.mget(keys.map((k) => k.key))).toEqual(['6', '4', '10']);
    const bound = ttlBoundMs(upstashRatelimit, WINDOW);
    expect(bound).toBe(2 * WINDOW + 1000);
    for (const { pttl } of keys) {
      expect(pttl).toBeGreaterThan(0);
      expect(pttl).toBeLessThanOrEqual(bound);
    }
    // Memory per client: the MEMORY USAGE of its keys, summed (a string holding a small integer each).
    const perClient = new Map<string, number>();
    for (const { key, bytes } of keys) {
      expect(bytes).toBeGreaterThan(0);
      const client = key.slice(settings.prefix.length + 1, key.lastIndexOf(':'));
      perClient.set(client, (perClient.get(client) ?? 0) + bytes);
    }
    expect([...perClient.keys()]).toEqual(['a', 'b']);
    expect(perClient.get('a')).toBe((keys[0]?.bytes ?? 0) + (keys[1]?.bytes ?? 0));
    expect(perClient.get('b')).toBe(keys[2]?.bytes);

    const written = (await keysMatching(redis, '*')).filter((k) => !before.has(k));
    expect(written.sort()).toEqual(keys.map((k) => k.key));
  });

  it('allows every decision of steady traffic below the limit', async () => {
    const shape = await runShape('steady', evenEvents('c', 15, B, B + 3 * WINDOW));
    expect(shape).toMatchObject({ sent: 15, allowed: 15 });
    expect(shape.largest).toBeLessThanOrEqual(LIMIT);
  });

  it('under twice the limit, evenly: at most the limit per fixed window, and about the limit in any exact window', async () => {
    const shape = await runShape('overload', evenEvents('d', 6 * LIMIT, B, B + 3 * WINDOW));
    expect(shape.sent).toBe(60);
    expect(shape.allowed).toBeGreaterThan(2 * LIMIT);
    expect(shape.allowed).toBeLessThanOrEqual(3 * LIMIT);
    // Even traffic is what the estimate assumes: one over the limit at most (the rounding of the weight).
    expect(shape.largest).toBeGreaterThanOrEqual(LIMIT);
    expect(shape.largest).toBeLessThanOrEqual(LIMIT + 1);
  });

  it('a burst straddling a window boundary: more than the limit in an exact window, at most twice it', async () => {
    // The limit just before the boundary, then twice the limit in the last twentieth of the next window:
    // by then the previous window's weight has fallen under one decision.
    const events = [...evenEvents('e', LIMIT, B - WINDOW / 100, B), ...evenEvents('e', 2 * LIMIT, B + WINDOW - WINDOW / 20, B + WINDOW)];
    const shape = await runShape('burst', events);
    expect(shape.sent).toBe(30);
    expect(shape.largest).toBeGreaterThan(LIMIT);
    expect(shape.largest).toBeLessThanOrEqual(2 * LIMIT);
  });

  it('rounds the weight in doubles: 90 % into a window, a full previous window weighs 0 and the limit is allowed again', async () => {
    const events = [...evenEvents('g', LIMIT, B, B + 1), ...evenEvents('g', LIMIT + 1, B + WINDOW + 0.9 * WINDOW, B + WINDOW + 0.9 * WINDOW + 1)];
    const shape = await runShape('rounding', events);
    // Exact arithmetic would weigh the previous 10 as 1 and allow 9 more; the package allows 10.
    expect(shape).toMatchObject({ sent: 2 * LIMIT + 1, allowed: 2 * LIMIT });
  });

  it('commands per decision: one EVALSHA, and inside it two GETs, an INCRBY when allowed, a PEXPIRE when it opens a window', async (context) => {
    const { redis: own } = await testServer(context);
    const settings = { prefix: `swc-test:${uniqueName('commands')}`, limit: 3, windowMs: WINDOW };
    const { limiter } = await upstashRatelimit.open({ redis: own, connect: () => Promise.resolve(own), requireFrom: ROOT }, settings);
    context.onTestFinished(() => limiter.close());
    const model = twoWindowModel(settings);
    // The first decision loads the script (a failed EVALSHA, then EVAL): counted apart.
    await driveClient(limiter, model, [{ id: 'warm', atMs: B }]);
    await own.call('CONFIG', 'RESETSTAT');
    // Five clients at once (the client pipelines them into one request), then client a four more times.
    const together = await withDateNow(
      () => B + 1,
      () => Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => limiter.decide(id))),
    );
    expect(together).toEqual([true, true, true, true, true]);
    for (const id of ['a', 'b', 'c', 'd', 'e']) model.decide(id, B + 1);
    const driven = await driveClient(limiter, model, evenEvents('a', 4, B + 2, B + 6));
    expect(driven.package).toEqual(driven.model);
    expect(driven.package).toEqual([true, true, false, false]);
    const calls = parseCommandCalls(await own.info('commandstats'));
    const decisions = 9;
    expect(Object.fromEntries(['evalsha', 'eval', 'get', 'incrby', 'pexpire'].map((c) => [c, calls.get(c) ?? 0]))).toEqual({
      evalsha: decisions,
      eval: 0,
      get: 2 * decisions,
      incrby: 7,
      pexpire: 5,
    });
  });

  it('says which npm install is missing when the package is not where it looks', async () => {
    const settings = { prefix: `swc-test:${uniqueName('missing')}`, limit: LIMIT, windowMs: WINDOW };
    const open = upstashRatelimit.open({ redis, connect: () => Promise.resolve(redis), requireFrom: tmpdir() }, settings);
    await expect(open).rejects.toThrow(EnvironmentError);
    await expect(open).rejects.toThrow('run `npm install @upstash/ratelimit @upstash/redis` there');
  });

  it('names the server and its version when it refuses the package script as sent, and runs its Lua', async () => {
    const { limiter } = await openLimiter('finding');
    expect(await limiter.decide('f')).toBe(true);
    const refused = await redis.eval('#!lua flags=allow-key-locking\nreturn 1', 0).then(
      () => false,
      () => true,
    );
    const findings = limiter.findings?.() ?? [];
    if (refused) {
      expect(findings).toHaveLength(1);
      expect(findings[0]).toContain(`redis ${serverVersion} refuses @upstash/ratelimit's script`);
      expect(findings[0]).toContain('allow-key-locking');
    } else {
      expect(findings).toEqual([]);
    }
  });
});

describe("swc's stand-in for the Upstash REST API", () => {
  let shim: RestShim;
  const prefix = `swc-test:${uniqueName('shim')}`;
  beforeAll(async () => {
    shim = await startRestShim({ redis, keyPrefix: prefix, server: 'redis test' });
  });
  afterAll(() => shim.close());

  const post = (pathName: string, body: unknown, token = shim.token, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${shim.url}${pathName}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body: JSON.stringify(body) });

  it('refuses a command the package does not send, through @upstash/redis, naming what it answers', async () => {
    const { Redis: UpstashRedis } = createRequire(path.join(ROOT, 'package.json'))('@upstash/redis') as {
      Redis: new (c: object) => { get(k: string): Promise<unknown> };
    };
    const client = new UpstashRedis({ url: shim.url, token: shim.token, retry: false, enableTelemetry: false });
    await expect(client.get(`${prefix}:x`)).rejects.toThrow(
      `answers only ${ANSWERED_COMMANDS.join(', ')} (what @upstash/ratelimit's slidingWindow sends); not GET`,
    );
  });

  it('refuses a wrong token, another path, and a key outside the prefix; answers a pipeline command by command', async () => {
    const bad = await post('/', ['EVAL', 'return 1', 0], 'not-the-token');
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^Unauthorized/);
    const multi = await post('/multi-exec', [['EVAL', 'return 1', 0]]);
    expect(multi.status).toBe(404);
    expect(((await multi.json()) as { error: string }).error).toContain('answers POST / and /pipeline only');
    const outside = await post('/', ['EVAL', "return redis.call('SET', KEYS[1], 1)", 1, 'elsewhere:k']);
    expect(outside.status).toBe(400);
    expect(((await outside.json()) as { error: string }).error).toContain(`key "elsewhere:k" is outside the run's prefix "${prefix}:"`);
    expect(await redis.exists('elsewhere:k')).toBe(0);
    const keyless = await post('/', ['EVAL', "return redis.call('SET', 'elsewhere:k', 1)", 0]);
    expect(((await keyless.json()) as { error: string }).error).toContain('EVAL naming no key');
    expect(await redis.exists('elsewhere:k')).toBe(0);

    const piped = await post('/pipeline', [
      ['EVAL', "return redis.call('INCR', KEYS[1])", 1, `${prefix}:n`],
      ['DEL', `${prefix}:n`],
      ['EVAL', "return redis.call('GET', KEYS[1])", 1, `${prefix}:n`],
    ]);
    expect(piped.status).toBe(200);
    expect(await piped.json()).toEqual([{ result: 1 }, { error: expect.stringContaining('not DEL') as string }, { result: '1' }]);
    const encoded = await post('/', ['EVAL', 'return KEYS[1]', 1, `${prefix}:é`], shim.token, { 'Upstash-Encoding': 'base64' });
    expect(await encoded.json()).toEqual({ result: Buffer.from(`${prefix}:é`).toString('base64') });
    await redis.del(`${prefix}:n`);
  });

  it('a script refused as sent is recorded once and answered in its stripped form, also after SCRIPT FLUSH', async (context) => {
    const { redis: own } = await testServer(context);
    const version = parseInfo(await own.info('server')).redis_version ?? '';
    const ownShim = await startRestShim({ redis: own, keyPrefix: prefix, server: `redis ${version}` });
    context.onTestFinished(() => ownShim.close());
    const script = `#!lua flags=allow-key-locking\nreturn redis.call('INCR', KEYS[1])`;
    const sha = createHash('sha1').update(script).digest('hex');
    const call = async (command: unknown[]): Promise<unknown> => {
      const res = await fetch(ownShim.url, { method: 'POST', headers: { authorization: `Bearer ${ownShim.token}` }, body: JSON.stringify(command) });
      return res.json();
    };
    const accepted = await own.eval(script, 1, 'probe').then(
      () => true,
      () => false,
    );
    expect(await call(['SCRIPT', 'LOAD', script])).toEqual({ result: sha });
    expect(await call(['EVALSHA', sha, 1, `${prefix}:k`])).toEqual({ result: accepted ? 2 : 1 });
    await own.call('SCRIPT', 'FLUSH');
    const afterFlush = await call(['EVALSHA', sha, 1, `${prefix}:k`]);
    if (accepted) {
      expect(ownShim.refusals).toEqual([]);
      expect(afterFlush).toEqual({ error: expect.stringContaining('NOSCRIPT') as string });
    } else {
      expect(afterFlush).toEqual({ result: 2 });
      expect(await call(['EVAL', script, 1, `${prefix}:k`])).toEqual({ result: 3 });
      expect(ownShim.refusals).toEqual([
        expect.objectContaining({
          sha,
          firstLine: '#!lua flags=allow-key-locking',
          server: `redis ${version}`,
          serverError: expect.stringContaining('allow-key-locking') as string,
        }),
      ]);
    }
  });
});
