/**
 * #29: scripts swc did not write, run on a user's server under
 * --trust-scripts, that pass the probe and misbehave later. Each call goes
 * alone on its connection and is checked once it answered (time, used_memory;
 * src/redis/call-limits.ts). Since #41 the run is rehearsed first on a
 * private server (src/safety/rehearsal.ts), with the same checks: a script
 * that APPENDs 256 KB per call is refused before the first write, as it would
 * not fit under maxmemory (Redis would evict, allkeys-lru, or refuse the
 * application's writes, noeviction); one that takes about a second per call
 * is ended by the time guard there. The user's keys are unchanged and the
 * server answers PING right after swc exits. Each case has a server of its
 * own: they run at once.
 */
import { type Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { connect } from '../../../src/redis/connect.js';
import { digest, expectServerIdle, fileServers, fillUsersServer } from '../../helpers.js';
import { hostile, LATE_CASES, lateEdit } from '../../hostile-manifests.js';
import { runCli } from '../run-cli.js';

const { dir, start, track } = fileServers('trust-limits');

const late = (label: string): string => (LATE_CASES.find(([l]) => l === label) as readonly [string, string])[1];

/** A user's server with 200 keys of five types, and `headroom` bytes under maxmemory when given. */
async function usersServer(policy?: string, headroom?: number): Promise<{ url: string; redis: Redis }> {
  const { url, redis } = await start();
  await fillUsersServer(redis, policy, headroom);
  return { url, redis };
}

const benchArgs = ['--rate', '2', '--window', '30', '--lights', '1', '--no-throughput', '--no-progress', '--trust-scripts'];
/** Room for the run's own bytes (its preflight estimate is about 2.2 MB) and some, well under what the APPENDs would write (about 11 MB). */
const HEADROOM = 6 * 1024 * 1024;

/** Runs bench with `manifest` against `url`, then checks what every case must leave: keys unchanged, no leftovers, PING at once. */
async function benchLeavesNoHarm(redis: Redis, url: string, manifest: string): Promise<{ code: number | null; stderr: string }> {
  const before = await digest(redis, 'app:*');
  const result = await runCli(['bench', '--layout', manifest, ...benchArgs, '--redis-url', url]);
  // Right after swc's exit, on a connection opened before: nothing of swc's still runs or waits on the server.
  await expectServerIdle(redis);
  expect(await digest(redis, 'app:*')).toEqual(before);
  expect(await redis.keys('swc-bench:*')).toEqual([]);
  expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
  expect(/evicted_keys:(\d+)/.exec(await redis.info('stats'))?.[1]).toBe('0');
  return result;
}

/** #41: the rehearsal on a private server measures the APPENDs and refuses before the first write: they would not fit under maxmemory. */
const REFUSED_GROWTH =
  /^swc: refused before the first write: in swc's rehearsal of this run on a private redis [\d.]+, the run grew the data by [\d,]+ bytes by its call [\d,]+, its largest call \(\S*record\.lua\) by [\d,]+ bytes; redis:\/\/127\.0\.0\.1:\d+ is [\d,]+ bytes below its maxmemory .*nothing of the run was sent/m;

describe.concurrent('under --trust-scripts, each call of a script swc did not write is checked on the user server', () => {
  it('APPEND 256 KB per call under maxmemory with allkeys-lru: refused by the rehearsal before the first write (exit 3), no key evicted', async () => {
    const { url, redis } = await usersServer('allkeys-lru', HEADROOM);
    const result = await benchLeavesNoHarm(redis, url, hostile(dir, 'append-lru', lateEdit(late('APPENDs 256 KB per call past the memory budget'))));
    expect(result.stderr).toMatch(REFUSED_GROWTH);
    expect(result.code, result.stderr).toBe(3);
  });

  it("APPEND 256 KB per call under noeviction: refused by the rehearsal, and the application's own writes meanwhile are never refused OOM", async () => {
    const { url, redis } = await usersServer('noeviction', HEADROOM);
    const app = await connect(url);
    track(app);
    // The application keeps writing while swc runs (bounded: it overwrites the same 50 keys).
    let writes = 0;
    const refused: string[] = [];
    let running = true;
    const writing = (async () => {
      while (running) {
        await app.set(`live:${writes % 50}`, 'v'.repeat(1000)).catch((err: Error) => refused.push(err.message));
        writes += 1;
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const result = await benchLeavesNoHarm(redis, url, hostile(dir, 'append-noeviction', lateEdit(late('APPENDs 256 KB per call past the memory budget'))));
    running = false;
    await writing;
    expect(writes).toBeGreaterThan(0);
    expect(refused).toEqual([]);
    expect(result.stderr).toMatch(REFUSED_GROWTH);
    expect(result.code, result.stderr).toBe(3);
  });

  it('about 1 s per call: its first slow call ended by the time guard at the 250 ms budget in the rehearsal (exit 3), nothing sent', async () => {
    const { url, redis } = await usersServer();
    const result = await benchLeavesNoHarm(redis, url, hostile(dir, 'slow-calls', lateEdit(late('takes about 1 s per call'))));
    expect(result.stderr).toMatch(
      /^swc: refused before the first write: \S*record\.lua ran past its budget of 250 ms in one call in swc's rehearsal of this run on a private redis [\d.]+ at 127\.0\.0\.1:\d+; the time guard swc puts into scripts it did not write/m,
    );
    expect(result.code, result.stderr).toBe(3);
  });
});
