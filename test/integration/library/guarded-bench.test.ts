/**
 * The package's runBench is the guarded run: on a server swc did not start,
 * a library call is refused where `swc bench --redis-url` is refused, before
 * any write, and a run that goes ahead leaves none of its keys.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, openSession, runBench, SwcError, UsageError, type BenchPlan, type Session } from '../../../src/index.js';
import { digest, keysMatching, withPrivateServer } from '../../helpers.js';

const LUA = fileURLToPath(new URL('../../../lua/', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'swc-library-'));

const plan = (overrides: Partial<BenchPlan> = {}): BenchPlan => ({
  layouts: ['stoplight-v6'],
  windows: [60],
  rates: [1],
  failureRate: 0.5,
  lights: 1,
  seed: 3,
  ...overrides,
});

/** A server of the test's own with a user's keys, reached by URL: to swc, a shared server. */
async function onSharedServer(config: readonly [string, string][], body: (session: Session) => Promise<void>): Promise<void> {
  await withPrivateServer({}, async (server, redis) => {
    for (const [name, value] of config) await redis.config('SET', name, value);
    for (let i = 0; i < 20; i += 1) await redis.set(`app:key:${i}`, `value ${i}`);
    const before = await digest(redis, '*');
    const session = await openSession({ redisUrl: server.url });
    try {
      await body(session);
    } finally {
      await session.close();
    }
    // Nothing of the run is left, and the user's keys are as they were.
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
    expect(await digest(redis, '*')).toEqual(before);
  });
}

let edited: string;
beforeAll(() => {
  // A copy of swc's lua/ with one byte changed: scripts swc did not write.
  edited = path.join(dir, 'lua');
  cpSync(LUA, edited, { recursive: true });
  const file = path.join(edited, 'stoplight-v6', 'record_success.lua');
  writeFileSync(file, `-- edited by a user\n${readFileSync(file, 'utf8')}`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runBench from the package on a shared server', () => {
  it('refuses scripts swc did not write without trustScripts (exit 2), before anything is written', async () => {
    await onSharedServer([], async (session) => {
      const refused = await runBench({ session, plan: plan({ scriptsDir: edited }) }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as UsageError).exitCode).toBe(ExitCode.usage);
      expect((refused as Error).message).toMatch(/--trust-scripts/);
    });
  });

  it.each(['noeviction', 'allkeys-lru'])('refuses a server whose maxmemory is too small (%s), as the CLI does (exit 3)', async (policy) => {
    await onSharedServer(
      [
        ['maxmemory', '3mb'],
        ['maxmemory-policy', policy],
      ],
      async (session) => {
        const refused = await runBench({ session, plan: plan({ lights: 200 }) }).catch((err: unknown) => err);
        expect(refused).toBeInstanceOf(SwcError);
        expect((refused as SwcError).exitCode).toBe(ExitCode.runtime);
        expect((refused as Error).message).toMatch(/^refusing to write to this server: maxmemory 3\.0 MB/);
      },
    );
  });

  it('trust in two (ScriptTrust): where no ACL user can be made, trustScripts is refused naming unconfinedScripts (exit 2, nothing of the run written); unconfinedScripts runs', async () => {
    await withPrivateServer({}, async (server, redis) => {
      for (let i = 0; i < 20; i += 1) await redis.set(`app:key:${i}`, `value ${i}`);
      const before = await digest(redis, '*');
      // The server's default user may no longer run ACL: swc cannot make its temporary user there.
      await redis.call('ACL', 'SETUSER', 'default', '-acl');
      const session = await openSession({ redisUrl: server.url });
      try {
        const refused = await runBench({ session, plan: plan({ scriptsDir: edited }), trustScripts: true }).catch((err: unknown) => err);
        expect(refused).toBeInstanceOf(UsageError);
        expect((refused as Error).message).toMatch(/^--trust-scripts: refused: .*does not let swc create the temporary ACL user.*pass --unconfined-scripts/);
        expect(await digest(redis, '*')).toEqual(before);
        const report = await runBench({ session, plan: plan({ scriptsDir: edited }), unconfinedScripts: true });
        expect(report.results.map((r) => r.layout)).toEqual(['stoplight-v6']);
      } finally {
        await session.close();
      }
      expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
      expect(await digest(redis, '*')).toEqual(before);
    });
  });

  it('runs where the CLI runs, and removes its keys at the end', async () => {
    await onSharedServer([], async (session) => {
      const report = await runBench({ session, plan: plan() });
      expect(report.results.map((r) => r.layout)).toEqual(['stoplight-v6']);
      expect(report.results[0]?.memory.bytesPerLight).toBeGreaterThan(0);
    });
  });
});
