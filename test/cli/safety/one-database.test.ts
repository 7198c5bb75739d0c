/**
 * A run stays in its database. Round 5 left run keys in other databases: a
 * user's script ran `COPY … DB n`, or `SELECT 0` from a run on db 3, and
 * the run ended with exit 0 (its clean-up looks only in its own database).
 * Now the run's temporary ACL user may not SELECT another database, nor run
 * MOVE, SWAPDB or COPY; and swc's probe refuses a script that tries any of
 * them before anything reaches the user's server. On a real redis-server.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import { connect } from '../../../src/redis/connect.js';
import { confineRun, DENIAL } from '../../../src/safety/acl.js';
import { fileServers } from '../../helpers.js';
import { runCli, words } from '../run-cli.js';

const EXAMPLE = fileURLToPath(new URL('../../../fixtures/manifests/example/', import.meta.url));
const { dir, start, track } = fileServers('one-db');

const server = (): Promise<{ url: string; redis: Redis }> => start();

/** Every key of every database 0–15 but `except`'s. */
async function keysOutside(redis: Redis, except: number): Promise<string[]> {
  const out: string[] = [];
  for (let db = 0; db < 16; db += 1) {
    if (db === except) continue;
    await redis.select(db);
    out.push(...(await redis.keys('*')).map((k) => `${db}:${k}`));
  }
  await redis.select(0);
  return out;
}

/** The example manifest whose record.lua also runs `line` before it returns (from its `after`th call on a light when given: the probe makes a dozen). */
function manifestWith(name: string, line: string, after?: number): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE, folder, { recursive: true });
  const file = path.join(folder, 'record.lua');
  const extra = after === undefined ? line : `if redis.call('HINCRBY', KEYS[2], 'calls', 1) > ${after} then ${line} end`;
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\nreturn now\n$/, `\n${extra}\nreturn now\n`));
  return path.join(folder, 'my-log.json');
}

const bench = (manifest: string, url: string) =>
  runCli(['bench', '--layout', manifest, ...words('--rate 2 --window 30 --lights 1 --no-throughput --no-progress --trust-scripts'), '--redis-url', url]);

describe('the run user of a run on db 3 reaches no other database', () => {
  it('SELECT of another database, MOVE, SWAPDB and COPY are denied to it, from a script and directly; its own database works', async () => {
    const { url, redis } = await server();
    const admin = await connect(`${url}/3`);
    track(admin);
    const ns = createNamespace();
    const user = await confineRun(admin, ns);
    expect(user).not.toBeNull();
    const confined = (user as NonNullable<typeof user>).scripts;
    const key = `${ns.prefix}:k`;
    const script = (body: string) => confined.eval(body, 1, key);
    await expect(script("return redis.call('SET', KEYS[1], 'mine')")).resolves.toBe('OK');
    // Its own database, the one ioredis selects at connect, stays allowed.
    await expect(script("return redis.call('SELECT', 3)")).resolves.toBe('OK');
    for (const body of [
      "return redis.call('SELECT', 0)",
      "return redis.call('COPY', KEYS[1], KEYS[1], 'DB', 0)",
      "return redis.call('COPY', KEYS[1], KEYS[1] .. ':copy')",
      "return redis.call('MOVE', KEYS[1], 0)",
      "return redis.call('SWAPDB', 0, 3)",
    ])
      await expect(script(body), body).rejects.toThrow(DENIAL);
    await expect(confined.call('SELECT', '0')).rejects.toThrow(/NOPERM/);
    expect(await keysOutside(redis, 3)).toEqual([]);
    await (user as NonNullable<typeof user>).remove();
  });
});

describe.concurrent('a bench with a script that leaves its database (--trust-scripts, --redis-url …/3)', () => {
  it.each([
    ['COPY … DB 0', "redis.call('COPY', KEYS[1], KEYS[1], 'DB', 0)", /ran COPY, which swc never lets a script run/],
    ['COPY … DB 9', "redis.call('COPY', KEYS[1], KEYS[1], 'DB', 9)", /ran COPY, which swc never lets a script run/],
    ['SELECT 0', "redis.call('SELECT', 0) redis.call('SET', KEYS[1] .. ':moved', 1)", /ran SELECT, which swc never lets a script run/],
    ['a failed SELECT', "redis.pcall('SELECT', 99)", /ran SELECT, which swc never lets a script run/],
    ['MOVE', "redis.call('MOVE', KEYS[1], 0)", /ran MOVE, which swc never lets a script run/],
  ])('%s: refused by the probe, exit 2, nothing written to the server', async (label, line, refusal) => {
    const { url, redis } = await server();
    const result = await bench(manifestWith(`probe-${label.replace(/\W+/g, '-')}`, line), `${url}/3`);
    expect(result.stderr).toMatch(refusal);
    expect(result.code).toBe(2);
    expect(await keysOutside(redis, -1)).toEqual([]);
  });

  it('COPY … DB 0 only after the probe (its 16th call on a light): denied by the ACL, a finding (exit 1), no run key left in any database', async () => {
    const { url, redis } = await server();
    const result = await bench(manifestWith('late-copy', "redis.call('COPY', KEYS[1], KEYS[1], 'DB', 0)", 15), `${url}/3`);
    expect(result.stderr).toMatch(/denied by swc's confinement: .*record\.lua:\d+ tried command "copy"/);
    expect(result.code).toBe(1);
    expect(await keysOutside(redis, -1)).toEqual([]);
    expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
  });

  it('SELECT 0 only after the probe: denied by the ACL, a finding (exit 1), nothing written to db 0', async () => {
    const { url, redis } = await server();
    const result = await bench(manifestWith('late-select', "redis.call('SELECT', 0) redis.call('SET', KEYS[1], 'elsewhere')", 15), `${url}/3`);
    expect(result.stderr).toMatch(/denied by swc's confinement: .*record\.lua:\d+ tried command "select"/);
    expect(result.code).toBe(1);
    expect(await keysOutside(redis, -1)).toEqual([]);
  });
});
