/**
 * A million-field registry and a million-bucket light (#29): both used to
 * end in "Maximum call stack size exceeded" (an array of a million spread
 * into one call); both are read, judged and rendered, exit 0 in the CLI,
 * with the heap bounded.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectLight } from '../../../src/inspect/inspect.js';
import { listLights } from '../../../src/inspect/list.js';
import { shortId, StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { connect } from '../../../src/redis/connect.js';
import { startPrivateServer, type PrivateServer } from '../../../src/redis/server.js';
import { renderInspections } from '../../../src/report/inspect.js';
import { HOUR_START } from '../../helpers.js';
import { runCli } from '../../cli/run-cli.js';

const MILLION = 1_000_000;
const BATCH = 10_000;
const v6 = new StoplightV6();
const light = { name: 'huge', system: 'payments' };
const START = HOUR_START;
const AT = START + MILLION + 1;

let server: PrivateServer;
let redis: Redis;

/** HSET `key` with `count` fields from `field(i)`, in pipelined batches. */
async function fill(key: string, count: number, field: (i: number) => [string, string]): Promise<void> {
  for (let from = 0; from < count; from += BATCH * 10) {
    const pipeline = redis.pipeline();
    for (let b = from; b < Math.min(count, from + BATCH * 10); b += BATCH) {
      const args: string[] = [];
      for (let i = b; i < Math.min(count, b + BATCH); i += 1) args.push(...field(i));
      pipeline.hset(key, args);
    }
    await pipeline.exec();
  }
}

beforeAll(async () => {
  server = await startPrivateServer();
  redis = await connect(server.url);
  // A registry of a million entries that are not configs (each is a problem, one line).
  await fill(`stoplight:v6:${shortId('payments')}:lights`, MILLION, (i) => [`f${i}`, 'x']);
  // One light with a bucket for each of a million seconds, and its index.
  await fill(v6.metricsKey(light), MILLION, (i) => [`bucket:${START + i}:s`, '1']);
  await redis.hset(v6.metricsKey(light), 'total_successes', String(MILLION), 'total_failures', '0');
  const index = v6.indexKey(light);
  for (let from = 0; from < MILLION; from += BATCH * 10) {
    const pipeline = redis.pipeline();
    for (let b = from; b < from + BATCH * 10; b += BATCH) {
      const args: (string | number)[] = [];
      for (let i = b; i < b + BATCH; i += 1) args.push(START + i, `bucket:${START + i}`);
      pipeline.zadd(index, ...args);
    }
    await pipeline.exec();
  }
}, 240_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('a million of anything from Redis', () => {
  it('listLights: the million-field registry and the million-bucket light', async () => {
    const before = process.memoryUsage().heapUsed;
    const list = await listLights(redis, { only: ['stoplight-v6'], at: AT, windowSeconds: 3600, scan: { pauseMs: 0 } });
    expect(list.problems.filter((p) => p.includes(':lights field f'))).toHaveLength(MILLION);
    const huge = list.lights.find((l) => l.systemId === shortId('payments'));
    expect(huge?.firstSecond).toBe(START);
    expect(huge?.lastSecond).toBe(START + MILLION - 1);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(1024 * 1024 * 1024);
  }, 240_000);

  it('inspectLight and its table: a million buckets', async () => {
    const [inspection] = await inspectLight(redis, { light: light.name, system: light.system, at: AT, windowSeconds: 604800 });
    expect(inspection).toBeDefined();
    const text = renderInspections([inspection!], { color: false, limit: MILLION, picture: true, columns: 120 });
    expect(text).toContain('huge');
  }, 240_000);

  it.each([
    ['lights --window', ['lights', '--window', '604800']],
    ['inspect with a huge --window and --limit', ['inspect', 'huge', '--system', 'payments', '--window', '604800', '--limit', '10000']],
  ])(
    '%s: exit 0',
    async (_label, args) => {
      const run = await runCli([...args, '--redis-url', server.url, '--at', String(AT)], {}, 200_000);
      expect(run.stderr).not.toMatch(/Maximum call stack/);
      expect(run.code, run.stderr.slice(0, 400)).toBe(0);
    },
    240_000,
  );
});
