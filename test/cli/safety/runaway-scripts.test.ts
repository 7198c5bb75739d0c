/**
 * A script swc did not write that passes the probe and loops later, on the
 * user's server (`--trust-scripts`): the time guard swc puts into such
 * scripts (src/lua/guard.ts) ends the call within the per-call budget, even
 * after a write, where SCRIPT KILL would be refused; since #41 that happens
 * in swc's rehearsal of the run on a private server, before the first write
 * on the user's: swc fails with one line (exit 3) and the server answers at once. The runaway watch behind it
 * (SCRIPT KILL) is tested in test/integration/redis/runaway.test.ts.
 * Each test has a server of its own: they run at once.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { runCli, words } from '../run-cli.js';
import { digest, expectServerIdle, fileServers } from '../../helpers.js';

const EXAMPLE = fileURLToPath(new URL('../../../fixtures/manifests/example/', import.meta.url));
const { dir, start } = fileServers('runaway');

/** The user's server, with a short busy threshold (the default is 5 s). */
const server = (): Promise<{ url: string; redis: Redis }> => start({ settings: ['lua-time-limit=200'], allowAnySetting: true });

/**
 * The example manifest, with record.lua counting its calls per light in the
 * metadata hash (a dozen during swc's probe) and `loop` added where the
 * count passes 15: in read.lua (read-only) or record.lua (after its writes).
 */
function looping(name: string, where: 'read' | 'record'): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE, folder, { recursive: true });
  const record = path.join(folder, 'record.lua');
  const count = "local calls = redis.call('HINCRBY', KEYS[2], 'calls', 1)";
  const loopRecord = where === 'record' ? '\nif calls > 15 then while true do end end' : '';
  writeFileSync(record, readFileSync(record, 'utf8').replace(/\nreturn now\n$/, `\n${count}${loopRecord}\nreturn now\n`));
  if (where === 'read') {
    const read = path.join(folder, 'read.lua');
    const loop = "if tonumber(redis.call('HGET', KEYS[3], 'calls') or '0') > 15 then while true do end end";
    writeFileSync(read, readFileSync(read, 'utf8').replace(/\nreturn \{/, `\n${loop}\nreturn {`));
  }
  return path.join(folder, 'my-log.json');
}

describe.concurrent("a script that runs away on the user's server", () => {
  it('read-only (verify): the time guard ends the call, exit 3, one line; the server answers PING at once, user keys unchanged', async () => {
    const { url, redis } = await server();
    for (let i = 0; i < 10; i += 1) await redis.set(`app:user:${i}`, `user ${i}`);
    const before = await digest(redis, 'app:*');
    const result = await runCli(['verify', '--layout', looping('read', 'read'), '--calls', '300', '--lights', '1', '--trust-scripts', '--redis-url', url]);
    await expectServerIdle(redis);
    // #41: the loop meets the time guard in swc's rehearsal on a private server (the user's busy threshold copied), before the first write.
    expect(result.stderr).toMatch(
      /^swc: refused before the first write: \S*read\.lua ran past its budget of 50 ms in one call in swc's rehearsal of this run on a private redis [\d.]+ at 127\.0\.0\.1:\d+; the time guard.*nothing of the run was sent to redis:\/\/127\.0\.0\.1:\d+/m,
    );
    expect(result.stderr).not.toMatch(/lost|ran over/);
    expect(result.code).toBe(3);
    expect(await digest(redis, 'app:*')).toEqual(before);
    expect(await redis.keys('swc-bench:*')).toEqual([]);
  });

  it('after a write: the time guard swc put into the script ends the call, exit 3, one line; the server answers PING at once', async () => {
    const { url, redis } = await server();
    for (let i = 0; i < 10; i += 1) await redis.set(`app:user:${i}`, `user ${i}`);
    const before = await digest(redis, 'app:*');
    const result = await runCli([
      'bench',
      '--layout',
      looping('record-guarded', 'record'),
      ...words('--rate 2 --window 30 --lights 1 --no-throughput --no-progress --trust-scripts --redis-url'),
      url,
    ]);
    await expectServerIdle(redis);
    // The busy threshold is 200 ms here, so the per-call budget is a quarter of it.
    expect(result.stderr).toMatch(
      /^swc: refused before the first write: \S*record\.lua ran past its budget of 50 ms in one call in swc's rehearsal of this run on a private redis [\d.]+ at 127\.0\.0\.1:\d+; the time guard swc puts into scripts it did not write \(--trust-scripts\) ended that call.*nothing of the run was sent/m,
    );
    expect(result.stderr).not.toMatch(/UNKILLABLE|ran over/);
    expect(result.code).toBe(3);
    expect(await digest(redis, 'app:*')).toEqual(before);
    expect(await redis.keys('swc-bench:*')).toEqual([]);
  });
});
