/**
 * Scripts swc did not write, pointed at a user's server: the probe on a
 * private server refuses each misdeed before anything reaches the user's
 * server, and the user's keys (DEBUG DIGEST-VALUE of every key, in every
 * database) are the same before and after. The user's server is a private
 * redis-server of this file, given by --redis-url: swc did not start it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../../src/redis/connect.js';
import { startPrivateServer, type PrivateServer } from '../../../src/redis/server.js';
import { runCli } from '../run-cli.js';
import { HOSTILE_CASES, hostile, isManifestError, UNTRUSTED, type HostileEdit } from '../../hostile-manifests.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-hostile-'));

let server: PrivateServer;
let redis: Redis;
beforeAll(async () => {
  // enable-debug-command: DEBUG DIGEST-VALUE, the measure of "nothing changed".
  server = await startPrivateServer({ settings: ['enable-debug-command=yes'], allowAnySetting: true });
  redis = await connect(server.url);
  // The user's data: in db 0 and db 1, under names the example's templates give without swc's namespace, and in swc's shape.
  for (const db of [0, 1]) {
    await redis.select(db);
    for (let i = 0; i < 50; i += 1) await redis.set(`app:user:${i}`, `user ${i} in db ${db}`);
    await redis.hset('app:session', { id: 'abc', db: String(db) });
    await redis.zadd('myapp:cb:{swc-probe-a}:successes', 1, 'theirs');
    await redis.hset('myapp:cb:{orders}:meta', { last_success_at: '1' });
  }
  await redis.select(0);
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Every key of db 0..3 with its DEBUG DIGEST-VALUE. */
async function digests(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const db of [0, 1, 2, 3]) {
    await redis.select(db);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) out[`${db}/${key}`] = String(await redis.call('DEBUG', 'DIGEST-VALUE', key));
    } while (cursor !== '0');
  }
  await redis.select(0);
  return out;
}

const benchArgs = ['--rate', '2', '--window', '30', '--lights', '2', '--no-throughput', '--no-progress'];

/** A case of {@link HOSTILE_CASES} by its label. */
function hostileCase(label: string): readonly [string, HostileEdit, RegExp] {
  const found = HOSTILE_CASES.find(([l]) => l === label);
  if (!found) throw new Error(`no hostile case "${label}"`);
  return found;
}

describe('done when: hostile manifests are refused, and nothing of the user changes', () => {
  // Every case is refused in process by the check both commands make (test/integration/safety/hostile-probe.test.ts);
  // here a few spawns per command show the exit code, the message on stderr, and the user's server untouched.
  it("bench and verify exit 2 with or without --trust-scripts, the user's keys identical and no script sent", async () => {
    const spawns: [string, string[], string[]][] = [
      ['a script that calls FLUSHALL', ['bench'], []],
      ['a script that calls FLUSHALL', ['bench'], ['--trust-scripts']],
      ['a script that loops forever before writing', ['bench'], ['--trust-scripts']],
      ['a script that writes a user key by name', ['verify'], []],
      ['a script that writes a user key by name', ['verify'], ['--trust-scripts']],
      ['a script that writes, then loops forever', ['verify'], ['--trust-scripts']],
      ['templates that leave out {prefix}', ['verify'], []],
    ];
    const manifests = new Map(
      [...new Set(spawns.map(([label]) => label))].map((label) => [label, hostile(dir, label.replace(/\W+/g, '-'), hostileCase(label)[1])]),
    );
    const before = await digests();
    const commandsBefore = String(await redis.info('commandstats'));
    // Independent processes (each probe has its own private server): run at once.
    const results = await Promise.all(
      spawns.map(([label, [command], trust]) => {
        const manifest = manifests.get(label) as string;
        const args = command === 'bench' ? ['bench', '--layout', manifest, ...benchArgs] : ['verify', '--layout', manifest, '--calls', '200'];
        return runCli([...args, ...trust, '--redis-url', server.url]);
      }),
    );
    spawns.forEach(([label, [command], trust], i) => {
      const result = results[i] as Awaited<ReturnType<typeof runCli>>;
      const message = hostileCase(label)[2];
      const shown = `${command} ${trust.join(' ')} (${label}): ${result.stderr.slice(0, 400)}`;
      expect(result.code, shown).toBe(2);
      // A manifest that fails its own checks (a --layout error) is refused for that first, with or without the flag.
      expect(result.stderr, shown).toMatch(trust.length === 0 && !isManifestError(message) ? UNTRUSTED : message);
      expect(result.stderr, shown).not.toMatch(/swc (bench|verify): run swc-bench:/);
    });
    expect(await digests()).toEqual(before);
    // Nothing was sent: no script ever ran on the user's server.
    const evals = (info: string): string => /cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? '0';
    expect(evals(String(await redis.info('commandstats')))).toBe(evals(commandsBefore));
  });

  it("a well-behaved manifest passes the probe and runs as a temporary ACL user, removed afterwards; the user's keys identical", async () => {
    const manifest = hostile(dir, 'fine', {});
    const before = await digests();
    // Rehearsed on a private server first (#41), then run: twice a run's time.
    const result = await runCli(['bench', '--layout', manifest, ...benchArgs, '--trust-scripts', '--redis-url', server.url]);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter((l) => /temporary ACL user/.test(l))).toHaveLength(1);
    expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
    expect(await digests()).toEqual(before);
  });

  it('on a private server (no --redis-url) the same manifest runs as before, no flag needed', async () => {
    const result = await runCli(['bench', '--layout', hostile(dir, 'private', {}), ...benchArgs]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/unconfined|trust-scripts/);
  });

  it("built-in layouts run on a user's server as before (no probe, no flag)", async () => {
    const result = await runCli(['bench', '--layout', 'stoplight-v6', ...benchArgs, '--redis-url', server.url]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/unconfined|trust-scripts|probe/);
  });
});
