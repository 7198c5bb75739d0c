/**
 * inspect on a large keyspace: a light whose keys follow from its name (6.0
 * with --system, 5.x) is read with no SCAN at all; a misspelled name costs
 * one paced pass at most, and the miss names the light that was meant.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/core/errors.js';
import { inspectLight } from '../../../src/inspect/inspect.js';
import type { BucketInspection, EventInspection } from '../../../src/layouts/inspection.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { shortId, StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { scanOnce } from '../../../src/redis/scan.js';
import { type PrivateServer } from '../../../src/redis/server.js';
import { runCli } from '../../cli/run-cli.js';
import { commandCalls, ownServer, populateAppKeys } from '../../helpers.js';

const UNRELATED = 200_000;

let server: PrivateServer;
let redis: Redis;
let now: number;

/** SCAN calls `body` made on the server. */
async function scansOf(body: () => Promise<unknown>): Promise<number> {
  const before = await commandCalls(redis, 'scan');
  await body();
  return (await commandCalls(redis, 'scan')) - before;
}

ownServer(async (s, r) => {
  server = s;
  redis = r;
  expect(await populateAppKeys(redis, UNRELATED)).toBe(UNRELATED);
  now = Number((await redis.time())[0]);
  // Lights written by the layouts' own Lua, as Stoplight writes them, at the server's clock.
  const v6 = await LayoutClient.open(redis, new StoplightV6());
  const v5 = await LayoutClient.open(redis, new StoplightV5());
  for (let i = 0; i < 5; i += 1) {
    await v6.recordSuccess({ name: 'checkout', system: 'payments' }, { at: now - i, windowSeconds: 60 });
    await v5.recordSuccess({ name: 'inventory' }, { at: now - i, windowSeconds: 60 });
  }
  await v6.recordFailure({ name: 'checkout', system: 'payments' }, { at: now, windowSeconds: 60, errorJson: '{"error":{"class":"Timeout"}}' });
  await v5.recordFailure({ name: 'inventory' }, { at: now, windowSeconds: 60, errorJson: '{"error":{"class":"Timeout"}}' });
  // A light of the default system, registered there (its window 60 s), as an application without systems has.
  for (let i = 0; i < 3; i += 1) await v6.recordSuccess({ name: 'search-api' }, { at: now - i, windowSeconds: 60 });
  await redis.hset(`stoplight:v6:${shortId('default')}:lights`, {
    [shortId('search-api')]: JSON.stringify({
      meta: { version: 1, registered_at: now },
      config: {
        id: shortId('search-api'),
        name: 'search-api',
        window_size: 60,
        threshold: 3,
        cool_off_time: 30,
        traffic_control: { strategy: 'consecutive_errors' },
      },
    }),
  });
  // 6.0's registry of light configs in the system, as Stoplight keeps it.
  await redis.hset(`stoplight:v6:${shortId('payments')}:lights`, {
    [shortId('checkout')]: JSON.stringify({ meta: { version: 1, registered_at: now }, config: { name: 'checkout', window_size: 60, threshold: 0.5 } }),
  });
});

/** One COUNT for the pass and its yardstick: the adaptive COUNT (src/redis/scan.ts) would make their call counts differ run to run. */
const PASS_COUNT = 1000;

describe('inspect --layout auto on a 200k-key server', () => {
  it('reads a 6.0 light given --system with no SCAN', async () => {
    let result: BucketInspection[] = [];
    const scans = await scansOf(async () => {
      result = (await inspectLight(redis, { light: 'checkout', system: 'payments' })) as BucketInspection[];
    });
    expect(scans).toBe(0);
    expect(result.map((r) => r.layout)).toEqual(['stoplight-v6']);
    expect(result[0]?.totals).toEqual({ successes: 5, failures: 1 });
  });

  it('reads a 5.x light with no SCAN (with --system, and its hour keys named by the clock)', async () => {
    let result: EventInspection[] = [];
    const scans = await scansOf(async () => {
      result = (await inspectLight(redis, { light: 'inventory', system: 'payments' })) as EventInspection[];
    });
    expect(scans).toBe(0);
    expect(result.map((r) => r.layout)).toEqual(['stoplight-v5']);
    expect(result[0]?.totals).toEqual({ successes: 5, failures: 1 });
    expect(result[0]?.keys.map((k) => k.role)).toContain('metadata');
    expect(result[0]?.keys.some((k) => k.role === 'success events')).toBe(true);
  });

  it('a misspelled name makes one pass at most and suggests the light meant', async () => {
    // One pass over the whole keyspace, as a yardstick: calls depend on the table, not on MATCH.
    const onePass = (await scanOnce(redis, ['*'], () => undefined, { pauseMs: 0, count: PASS_COUNT })).calls;
    expect(onePass).toBeGreaterThan(100);
    for (const [typed, meant] of [
      ['chekout', 'checkout'],
      ['inventroy', 'inventory'],
    ] as const) {
      let error: unknown;
      const scans = await scansOf(async () => {
        error = await inspectLight(redis, { light: typed, system: 'payments' }, undefined, undefined, { count: PASS_COUNT }).catch((err: unknown) => err);
      });
      expect(scans).toBeGreaterThan(0);
      expect(scans).toBeLessThanOrEqual(onePass);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as Error).message).toContain(`did you mean "${meant}"?`);
      // Stoplight's keys are named; swc's own designs' are not.
      expect((error as Error).message).toContain(`stoplight:v5:metadata:${typed}`);
      expect((error as Error).message).not.toMatch(/swc:|sliding-log|:ring:/);
    }
  });

  it('a 6.0 name without --system (its system only a SCAN finds) takes one pass for every layout, not one each', async () => {
    const onePass = (await scanOnce(redis, ['*'], () => undefined, { pauseMs: 0, count: PASS_COUNT })).calls;
    let result: BucketInspection[] = [];
    const scans = await scansOf(async () => {
      result = (await inspectLight(redis, { light: 'checkout' }, undefined, undefined, { count: PASS_COUNT })) as BucketInspection[];
    });
    expect(scans).toBeGreaterThan(0);
    expect(scans).toBeLessThanOrEqual(onePass);
    expect(result.map((r) => r.layout)).toEqual(['stoplight-v6']);
    expect(result[0]?.systemId).toBe(shortId('payments'));
  });

  it('inspect <name> of a registered default-system light, without --system, makes no SCAN (the CLI, INFO commandstats)', async () => {
    expect(await redis.dbsize()).toBeGreaterThanOrEqual(UNRELATED);
    let run: Awaited<ReturnType<typeof runCli>> | undefined;
    const scans = await scansOf(async () => {
      run = await runCli(['inspect', 'search-api', '--redis-url', server.url, '--json']);
    });
    expect(run?.code, run?.stderr).toBe(0);
    expect(scans).toBe(0);
    const doc = JSON.parse(run?.stdout ?? '{}') as { inspections: BucketInspection[] };
    const found = doc.inspections[0];
    expect(found).toMatchObject({ layout: 'stoplight-v6', systemName: 'default', lightName: 'search-api', windowTotals: { successes: 3, failures: 0 } });
    // The registered window is used without --window, and said to come from the registry.
    expect(found?.window).toMatchObject({ lengthSeconds: 60, source: 'registry' });
    expect(found?.config?.windowSeconds).toEqual({ value: 60, from: 'registry' });
    expect(found?.lookup).toMatch(/^read by name: /);
  });

  it('the CLI says the suggestion on stderr, exit 1 as for every miss', async () => {
    // A fixed COUNT: the adaptive one paces 200k keys over ~10 s, and the pass's cost is held above; this is the CLI's surface.
    const run = await runCli(['inspect', 'chekout', '--system', 'payments', '--redis-url', server.url, '--scan-count', String(PASS_COUNT)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^swc: light "chekout" not found: .*; did you mean "checkout"\? \(try swc lights\)$/m);
  });
});
