/**
 * Refusals happen at plan time, before the first write (#29): `REDIS_URL=…
 * swc bench --instructions` used to exit 2 only after 7,200 EVALSHA had
 * reached the REDIS_URL server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { withPrivateServer } from '../../helpers.js';
import { runCli } from '../run-cli.js';

/** Calls per command since the last CONFIG RESETSTAT. */
async function commandCalls(redis: Redis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of String(await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1] as string] = Number(m[2]);
  return out;
}

/** What a bench would send to write: scripts, loads, any data command. */
const WRITES = /^(evalsha|eval|evalsha_ro|script\|load|set|hset|zadd|del|unlink|incr|hincrby|expire|pexpire|acl\|setuser|flushdb|flushall)$/;

const dir = mkdtempSync(path.join(tmpdir(), 'swc-refuse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const badManifest = path.join(dir, 'bad.json');
writeFileSync(badManifest, JSON.stringify({ name: 'x', keys: 'not a list' }));

describe('refused before the first write', () => {
  it('a schema-invalid manifest on a live server: exit 2 in one line, no write command', async () => {
    await withPrivateServer({}, async (server, redis) => {
      await redis.call('CONFIG', 'RESETSTAT');
      const run = await runCli(['bench', '--layout', badManifest, '--redis-url', server.url]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/^swc: .*bad\.json: /);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(Object.keys(await commandCalls(redis)).filter((name) => WRITES.test(name))).toEqual([]);
      expect(await redis.dbsize()).toBe(0);
    });
  });

  it.each([
    ['--instructions', ['bench', '--instructions', '--lights', '10']],
    ['--profile', ['bench', '--profile', '--lights', '10']],
  ])('REDIS_URL=… SWC_USE_REDIS_URL=1 swc bench %s: exit 2 in one line, no write command on the server', async (_label, args) => {
    await withPrivateServer({}, async (server, redis) => {
      await redis.call('CONFIG', 'RESETSTAT');
      const run = await runCli(args, { REDIS_URL: server.url, SWC_USE_REDIS_URL: '1' });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/^swc: --(instructions|profile): REDIS_URL is set, .* needs swc's private server/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      const written = Object.keys(await commandCalls(redis)).filter((name) => WRITES.test(name));
      expect(written).toEqual([]);
      expect(await redis.dbsize()).toBe(0);
    });
  });
});

describe.concurrent('--max-ops conflicts are refused before the first command', () => {
  it.each([
    ['--realtime', ['--realtime'], /^swc: --max-ops\/--realtime: real traffic is paced at each cell's rate/],
    ['--instructions', ['--instructions'], /^swc: --max-ops\/--instructions: --instructions runs on swc's private servers only/],
  ])("--max-ops with %s on a live server: exit 2 in one line, no command but the test's own", async (_label, extra, message) => {
    await withPrivateServer({}, async (server, redis) => {
      await redis.call('CONFIG', 'RESETSTAT');
      const run = await runCli(['bench', '--max-ops', '300', '--lights', '2', ...extra, '--redis-url', server.url]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      // Not even a connection's handshake: only the test's own CONFIG RESETSTAT and INFO.
      expect(Object.keys(await commandCalls(redis)).filter((name) => !/^(config\|resetstat|info)$/.test(name))).toEqual([]);
    });
  });
});
