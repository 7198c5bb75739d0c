/**
 * The package's use cases that run a layout's scripts refuse a user's own
 * scripts on a server swc did not start, as the CLI does: the refusal sits in
 * the use case (`verifyLayout`, `runBench`), not in the command, so a library
 * call cannot go around it (and `diagnose` does not even load them there). Refused: the CLI's error, word for word, and the
 * server's own counters show no SCRIPT LOAD, EVAL or EVALSHA. Trusted: it runs as the CLI runs it,
 * probed, rehearsed and confined to a temporary ACL user (an edit that writes outside the run is refused).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  diagnose,
  ExitCode,
  listLights,
  loadManifestLayout,
  openSession,
  openTarget,
  registerLayout,
  runBench,
  UntrustedRefusal,
  verifyLayout,
} from '../../../src/index.js';
import { hostile } from '../../hostile-manifests.js';
import { testServer } from '../../helpers.js';
import { runCli } from '../run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-library-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The key the user's edit writes: on the server afterwards only if the edited script ran. */
const MARKER = 'edited-script-ran';

/** The example manifest with a line the user added to record.lua (a write of a key of its own). */
function editedManifest(name: string): string {
  return hostile(dir, name, { extra: `redis.call('SET', '${MARKER}', '1')` }, name);
}

/** Calls of every script-running command the server counted (SCRIPT LOAD, EVAL, EVALSHA and their _RO forms). */
async function scriptCommands(redis: Redis): Promise<number> {
  const stats = String(await redis.info('commandstats'));
  let calls = 0;
  for (const m of stats.matchAll(/^cmdstat_(script\|load|eval|evalsha|eval_ro|evalsha_ro):calls=(\d+)/gm)) calls += Number(m[2]);
  return calls;
}

describe.concurrent("the package's verifyLayout on a server the test started (not swc's)", () => {
  it('refuses a manifest whose script the user edited with the CLI error; no SCRIPT LOAD, EVAL or EVALSHA reaches the server', async (context) => {
    const { server, redis } = await testServer(context);
    const manifest = editedManifest('edited-log-refused');
    const cli = await runCli(['verify', '--redis-url', server.url, '--layout', manifest, '--calls', '200', '--seed', '1', '--no-progress'], {}, 60_000);
    expect(cli.code).toBe(ExitCode.usage);
    const layout = loadManifestLayout(manifest);
    // A bare connection, and a session opened on the URL: neither is a server swc started.
    const bare = await verifyLayout(redis, layout, { seed: 1, calls: 200 }).catch((err: unknown) => err);
    const session = await openSession({ redisUrl: server.url });
    const viaSession = await verifyLayout(session, layout, { seed: 1, calls: 200 })
      .catch((err: unknown) => err)
      .finally(() => session.close());
    for (const refused of [bare, viaSession]) {
      expect(refused).toBeInstanceOf(UntrustedRefusal);
      expect((refused as UntrustedRefusal).exitCode).toBe(ExitCode.usage);
      // The same words the command prints after its "swc: ".
      expect(cli.stderr.trim()).toBe(`swc: ${(refused as Error).message}`);
    }
    expect(await scriptCommands(redis)).toBe(0);
    expect(await redis.exists(MARKER)).toBe(0);
  });

  it('runBench with the same edited manifest is refused the same way, nothing loaded', async (context) => {
    const { server, redis } = await testServer(context);
    const manifest = editedManifest('edited-log-bench');
    registerLayout({ name: 'edited-log-bench', create: (options) => loadManifestLayout(manifest, options) });
    const session = await openSession({ redisUrl: server.url });
    const refused = await runBench({
      session,
      plan: { layouts: ['edited-log-bench'], windows: [60], rates: [1], failureRate: 0.5, lights: 1, seed: 3 },
    })
      .catch((err: unknown) => err)
      .finally(() => session.close());
    expect(refused).toBeInstanceOf(UntrustedRefusal);
    expect(await scriptCommands(redis)).toBe(0);
  });

  it("diagnose (doctor's use case) loads swc's own scripts but not a registered manifest's, on a server swc did not start", async (context) => {
    const { redis } = await testServer(context);
    const manifest = editedManifest('edited-log-doctor');
    registerLayout({ name: 'edited-log-doctor', create: (options) => loadManifestLayout(manifest, options) });
    const diagnosis = await diagnose(redis);
    expect(diagnosis.checks.find((c) => c.name === 'scripts edited-log-doctor')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/^not loaded/),
    });
    const edited = loadManifestLayout(manifest).scripts.map((s) => s.sha1);
    expect(await redis.call('SCRIPT', 'EXISTS', ...edited)).toEqual(edited.map(() => 0));
    expect(diagnosis.scripts.filter((s) => s.loaded).length).toBeGreaterThan(0);
  });

  it('through the Target the one door opens: verifyLayout refuses the same way, and listLights reads a registered edited layout without running a script', async (context) => {
    const { server, redis } = await testServer(context);
    const manifest = editedManifest('edited-log-target');
    registerLayout({ name: 'edited-log-target', create: (options) => loadManifestLayout(manifest, options) });
    const target = await openTarget({ url: server.url });
    try {
      const refused = await verifyLayout(target, loadManifestLayout(manifest), { seed: 1, calls: 200 }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(UntrustedRefusal);
      const list = await listLights(target, { only: ['edited-log-target'] });
      expect(list.lights).toEqual([]);
    } finally {
      await target.close();
    }
    expect(await scriptCommands(redis)).toBe(0);
  });

  it('with trustScripts, an edit that writes outside the run is refused by the probe as the CLI refuses it; nothing reaches the server', async (context) => {
    const { server, redis } = await testServer(context);
    const manifest = editedManifest('edited-log-trusted-bad');
    const cli = await runCli(
      ['verify', '--redis-url', server.url, '--layout', manifest, '--calls', '200', '--seed', '1', '--no-progress', '--trust-scripts'],
      {},
      30_000,
    );
    expect(cli.code).toBe(ExitCode.usage);
    const refused = await verifyLayout(redis, loadManifestLayout(manifest), { seed: 1, calls: 200, trustScripts: true }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(Error);
    // The probe's words, but for the run's namespace, which each run draws afresh.
    const words = (text: string): string => text.replace(/swc-bench:[0-9a-f]+/g, 'NS');
    expect(words(cli.stderr.trim())).toBe(`swc: ${words((refused as Error).message)}`);
    expect(await scriptCommands(redis)).toBe(0);
    expect(await redis.exists(MARKER)).toBe(0);
  });

  it('with trustScripts a harmless edit runs, rehearsed and confined: as a temporary ACL user, under a namespace, nothing left behind', async (context) => {
    const { redis } = await testServer(context);
    const manifest = hostile(dir, 'edited-log-trusted', { extra: 'local edited = 1' }, 'edited-log-trusted');
    const result = await verifyLayout(redis, loadManifestLayout(manifest), { seed: 1, calls: 200, trustScripts: true });
    expect(result.calls).toBe(200);
    expect(result.findings).toBe(0);
    expect(await scriptCommands(redis)).toBeGreaterThan(0);
    // Confined: the run's temporary user was made and removed again; the run's keys are gone.
    const stats = String(await redis.info('commandstats'));
    expect(stats).toMatch(/^cmdstat_acl\|setuser:calls=[1-9]/m);
    expect(stats).toMatch(/^cmdstat_acl\|deluser:calls=[1-9]/m);
    expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
    expect(await redis.dbsize()).toBe(0);
  });
});
