import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../src/layouts/client.js';
import { loadManifestLayout } from '../../src/layouts/manifest.js';
import type { BenchReport } from '../../src/measure/types.js';
import { LUA_DIR } from '../../src/lua/source.js';
import { editedJson, redisUrl, testRedis, uniqueName } from '../helpers.js';
import { stoplight5Tree, stoplight6Tree, V6_STORAGE } from '../integration/layouts/stoplight-tree.js';
import { runCli, type CliResult } from './run-cli.js';
import { words } from '../words.js';

const MANIFESTS = fileURLToPath(new URL('../../fixtures/manifests/', import.meta.url));

// The user's own layout lives outside the repository, as it would.
const outside = mkdtempSync(path.join(tmpdir(), 'swc-own-layout-'));
const own = path.join(outside, 'my-log.json');
cpSync(path.join(MANIFESTS, 'example'), outside, { recursive: true });
const trees = [stoplight6Tree('time'), stoplight5Tree()];
const [v6Tree, v5Tree] = trees as [string, string];

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(() => {
  for (const dir of [outside, ...trees]) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the example manifest with one change. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test edits parsed JSON at any depth
const variant = (name: string, edit: (m: Record<string, any>) => void): string => editedJson(own, path.join(outside, name), edit);

const memoryOnly = ['--rate', '2', '--window', '30', '--no-throughput', '--no-progress', '--json'];

function report(stdout: string): BenchReport {
  return JSON.parse(stdout) as BenchReport;
}

// Every bad manifest and --scripts folder is checked in-process (same program,
// same error path) in test/integration/commands/manifest-errors.test.ts; a spawn
// shows the one line on stderr and the exit code once.
describe('--layout <manifest>: a bad manifest (exit 2, one line naming the file and the field, nothing sent)', () => {
  it('swc bench --layout <a manifest with an unknown placeholder>', async () => {
    const file = variant('typo.json', (m) => (m.operations.recordFailure.args[3] = '{errJson}'));
    // An unreachable URL: exit 2 proves nothing was sent (a connection attempt would be exit 3).
    const result = await runCli(['bench', '--layout', file, '--redis-url', 'redis://127.0.0.1:1']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^swc: .*typo\.json: operations\.recordFailure\.args\[3\]: unknown placeholder "\{errJson\}"/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

// Benches and verifies run scripts a user gave where swc runs them by default:
// on its own private server. Their runs on a user's server (--redis-url with
// --trust-scripts: confined, one call at a time, watched) are
// test/cli/safety/'s (acl-confinement, trust-limits, trust-by-content).
// Every case below has namespaces (or a private server) and files of its own: each describe's cases run at once.
describe.concurrent('a layout whose manifest and scripts live outside the repository', () => {
  it('benches, and the same run again compares equal to it', async () => {
    const first = await runCli(['bench', '--layout', own, ...memoryOnly]);
    expect(first.stderr).not.toMatch(/error|warning/i);
    expect(first.code).toBe(0);
    const result = report(first.stdout);
    expect(result.results.map((r) => r.layout)).toEqual(['my-log']);
    const keys = result.results[0]?.memory.keys ?? [];
    expect(keys.map((k) => k.type).sort()).toEqual(['hash', 'zset', 'zset']);
    const baseline = path.join(outside, 'baseline.json');
    writeFileSync(baseline, first.stdout);
    const again = await runCli(['bench', '--layout', own, ...memoryOnly.filter((a) => a !== '--json'), '--baseline', baseline]);
    expect(again.code).toBe(0);
  });

  it('verifies against the reference model (its scripts read TIME: the wrapper gives them the injected clock)', async () => {
    // 1,000 calls (about 350 replies compared) show the wrapper at work. Fewer than before (3,000), because the example's
    // record.lua sets EXPIRE to the window, which the server counts in real time: on a machine loaded past a second's stall,
    // a 1 s window's key expired between two calls while the injected clock had moved less, and the read disagreed (seen
    // once in a full run at load 14; a limit of verify's injected clock against real TTLs, not of the wrapper).
    const result = await runCli(['verify', '--layout', own, '--calls', '1000', '--json']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('"my-log"');
  });

  it('lists and inspects its lights', async () => {
    const layout = loadManifestLayout(own);
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('own') };
    const now = Date.now() / 1000;
    await client.recordSuccess(light, { windowSeconds: 600, at: now - 2 });
    await client.recordFailure(light, { windowSeconds: 600, at: now - 1, errorJson: '{"error":{"class":"E","message":"m"},"time":1}' });
    try {
      const lights = await runCli(['lights', '--layout', own, '--redis-url', redisUrl(), '--json']);
      expect(lights.code).toBe(0);
      expect(lights.stdout).toContain(light.name);
      const inspect = await runCli(['inspect', light.name, '--layout', own, '--redis-url', redisUrl(), '--json']);
      expect(inspect.code).toBe(0);
      const parsed = JSON.parse(inspect.stdout) as unknown;
      expect(JSON.stringify(parsed)).toContain(`myapp:cb:{${light.name}}:failures`);
    } finally {
      await redis.del(...layout.keysOf(light, 0, 0).map((k) => k.key));
    }
  });
});

describe.concurrent('swc bench with manifests and --scripts: byte-identical to the built-in layouts', () => {
  const scriptsArgs = ['bench', '--rate', '1', '--window', '100', '--no-throughput', '--no-progress', '--json'];
  /** One run of a built-in layout with scriptsArgs, started by the first case that needs it. */
  const builtInRuns = new Map<string, Promise<CliResult>>();
  const builtIn = (layout: string): Promise<CliResult> => {
    let run = builtInRuns.get(layout);
    if (run === undefined) {
      run = runCli([...scriptsArgs, '--layout', layout]);
      builtInRuns.set(layout, run);
    }
    return run;
  };

  it('the fixture manifests, benched beside the built-ins in one run', async () => {
    const result = await runCli([
      'bench',
      '--layout',
      `stoplight-v5,${path.join(MANIFESTS, 'stoplight-v5.json')},stoplight-v6,${path.join(MANIFESTS, 'stoplight-v6.json')}`,
      ...words('--rate 1 --window 100 --lights 2 --no-throughput --no-progress --json'),
    ]);
    expect(result.code).toBe(0);
    const bytes = Object.fromEntries(report(result.stdout).results.map((r) => [r.layout, r.memory.bytesPerLight]));
    expect(bytes['stoplight-v5']).toBeGreaterThan(1000);
    expect(bytes['stoplight-v5-manifest']).toBe(bytes['stoplight-v5']);
    expect(bytes['stoplight-v6-manifest']).toBe(bytes['stoplight-v6']);
  });

  it.each([
    ['a Stoplight 6.0 tree (scripts read TIME)', () => v6Tree, 'stoplight-v6'],
    ['a Stoplight 5.x tree', () => v5Tree, 'stoplight-v5'],
    ["an unedited copy of swc's lua/", () => LUA_DIR, 'stoplight-v6'],
  ])('--scripts %s', async (_label, tree, layout) => {
    // Two runs under their own namespaces: at once (the built-in layout's run is shared by the cases that compare with it).
    const [theirs, ours] = await Promise.all([runCli([...scriptsArgs, '--scripts', tree()]), builtIn(layout)]);
    expect(theirs.stderr).not.toMatch(/error|warning/i);
    expect(theirs.code).toBe(0);
    const theirResult = report(theirs.stdout).results.find((r) => r.layout === layout);
    const ourResult = report(ours.stdout).results[0];
    expect(theirResult?.memory.bytesPerLight).toBeGreaterThan(1000);
    expect(theirResult?.memory.bytesPerLight).toBe(ourResult?.memory.bytesPerLight);
    expect(report(theirs.stdout).options).toMatchObject({ scripts: tree() });
    if (tree() !== LUA_DIR) expect(report(theirs.stdout).results.map((r) => r.layout)).toEqual([layout]);
  });

  it("--scripts an edited copy of swc's lua/: the bench measures the edit", async () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'swc-lua-edit-'));
    try {
      cpSync(LUA_DIR, copy, { recursive: true });
      const window = path.join(copy, 'stoplight-v6/_window.lua');
      // The edit: every write also stores a marker field in the 6.0 hash.
      writeFileSync(
        window,
        readFileSync(window, 'utf8').replace(
          "  redis.call('ZADD', index_key, second, bucket)\n",
          "  redis.call('ZADD', index_key, second, bucket)\n  redis.call('HSET', metrics_key, 'edited-by-a-test', 1)\n",
        ),
      );
      expect(readFileSync(window, 'utf8')).toContain('edited-by-a-test');
      const args = ['bench', '--layout', 'stoplight-v6', '--rate', '1', '--window', '60', '--no-throughput', '--no-progress', '--json'];
      const [edited, plain] = await Promise.all([runCli([...args, '--scripts', copy]), runCli(args)]);
      expect(edited.code).toBe(0);
      const editedKeys = report(edited.stdout).results[0]?.memory.keys ?? [];
      const plainKeys = report(plain.stdout).results[0]?.memory.keys ?? [];
      expect(editedKeys.find((k) => k.type === 'hash')?.elements).toBe((plainKeys.find((k) => k.type === 'hash')?.elements ?? 0) + 1);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('--realtime with a Stoplight 6.0 tree whose scripts read TIME: the wrapper passes the server clock through', async () => {
    const result = await runCli(['bench', '--scripts', v6Tree, '--realtime', '--rate', '20', '--window', '5', '--duration', '2', '--no-progress', '--json']);
    expect(result.code).toBe(0);
    const [cell] = report(result.stdout).results;
    expect(cell?.layout).toBe('stoplight-v6');
    // Two real seconds at 20/s: the buckets hold every event (the window is 5 s).
    const hash = cell?.memory.keys.find((k) => k.type === 'hash');
    expect(hash?.elements).toBeGreaterThan(4);
    expect(cell?.realtime?.achievedRate).toBeGreaterThan(5);
  });

  it.each([
    ['6.0 (scripts read TIME)', () => v6Tree, 'stoplight-v6'],
    ['5.x', () => v5Tree, 'stoplight-v5'],
  ])('swc verify --scripts a Stoplight %s tree: no finding', async (_label, tree, layout) => {
    const result = await runCli(['verify', '--scripts', tree(), '--layout', layout, '--calls', '3000']);
    expect(result.stdout + result.stderr).toContain(layout);
    expect(result.code).toBe(0);
  });
});

describe('--layout <a copy of a shipped manifest> --scripts <dir>: the folder replaces the manifest scriptsRoot', () => {
  // The copy sits where no scripts are: only --scripts says where they are.
  const copyDir = mkdtempSync(path.join(tmpdir(), 'swc-manifest-copy-'));
  const copy = path.join(copyDir, 'my-stoplight.json');
  const shipped = JSON.parse(readFileSync(path.join(MANIFESTS, 'stoplight/6.0-redis-time.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(copy, JSON.stringify({ ...shipped, name: 'my-stoplight-v6' }));
  afterAll(() => rmSync(copyDir, { recursive: true, force: true }));

  it('bench and verify run the storage folder through the copy', async () => {
    const storage = path.join(v6Tree, V6_STORAGE);
    const [bench, verify] = await Promise.all([
      runCli(['bench', '--layout', copy, '--scripts', storage, '--rate', '1', '--window', '100', '--no-throughput', '--no-progress', '--json']),
      runCli(['verify', '--layout', copy, '--scripts', storage, '--calls', '2000']),
    ]);
    expect(bench.stderr).not.toMatch(/no such file/);
    expect(bench.code).toBe(0);
    expect(report(bench.stdout).results[0]?.layout).toBe('my-stoplight-v6');
    expect(report(bench.stdout).results[0]?.memory.bytesPerLight).toBeGreaterThan(1000);
    expect(verify.stdout + verify.stderr).toContain('my-stoplight-v6');
    expect(verify.code).toBe(0);
  });
  // Without --scripts the copy fails naming its missing script: test/integration/commands/manifest-errors.test.ts.
});
