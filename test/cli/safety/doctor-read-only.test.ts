/** `swc doctor` on a server swc did not start sends no SCRIPT LOAD and no write unless --write-check. */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { PrivateServer } from '../../../src/redis/server.js';
import { runCli } from '../run-cli.js';
import { ownServer } from '../../helpers.js';

let server: PrivateServer;
let redis: Redis;
ownServer((s, r) => {
  server = s;
  redis = r;
});

/** Calls per command since the last CONFIG RESETSTAT (top-level names, `script|load` as is). */
async function calls(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of String(await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1] as string] = Number(m[2]);
  return out;
}

const WRITES = /^(set|hset|zadd|del|unlink|expire|pexpire|eval|evalsha|script\|load|multi|exec|incr|hincrby)$/;

describe('swc doctor is read-only by default', () => {
  it('without --write-check: no SCRIPT LOAD, no write, exit 0, and it says what it left unchecked', async () => {
    await redis.call('CONFIG', 'RESETSTAT');
    const result = await runCli(['doctor', '--redis-url', server.url]);
    expect(result.code).toBe(0);
    // What doctor leaves out by design is one line under the verdict, not warnings about the server.
    expect(result.stdout).not.toMatch(/^warn/m);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.at(-2)).toBe('ready');
    expect(lines.at(-1)).toMatch(
      /^not checked \(read-only\): scripts not loaded \(SCRIPT LOAD changes the script cache .*\); no write was sent .*; --write-check checks them$/,
    );
    const sent = Object.keys(await calls()).filter((c) => WRITES.test(c));
    expect(sent).toEqual([]);
    expect(await redis.call('SCRIPT', 'EXISTS', '0'.repeat(40))).toEqual([0]);
  });

  it('with --write-check: the scripts load and the write probe runs (its key removed)', async () => {
    await redis.call('CONFIG', 'RESETSTAT');
    const result = await runCli(['doctor', '--write-check', '--redis-url', server.url]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/scripts stoplight-v6\s+\d+ scripts loaded/);
    expect((await calls())['script|load']).toBeGreaterThan(0);
    expect(await redis.keys('swc-bench:*')).toEqual([]);
  });
});
