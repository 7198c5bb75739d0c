/**
 * Every command's --json validated against the JSON Schema file it ships in
 * schemas/ (ajv): the contract of docs/output.md holds for what a user pipes
 * to jq. Here the runs that are processes of their own (spawned swc): those
 * that start private servers (bench and verify without --redis-url, over two
 * builds, under valgrind) and compare of a bench's saved result. The runs
 * against a Redis with lights, bench --dry-run and --realtime, and compare of
 * the committed baseline (also --across-builds) run in-process, through the same program, in
 * test/integration/commands/json-schemas.test.ts. Where a command's --json
 * run already happens in its own test file (bench --sweep, --suggest, over
 * builds, and --baseline's verdict), that file validates it with the same
 * check (test/schema-check.ts), instead of a second run here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ISO, jsonChecker, SMALL } from '../json-runs.js';
import { schemaErrors } from '../schema-check.js';
import { runCli, words } from './run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-json-'));
const jsonOf = jsonChecker(runCli);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The cases share nothing (each bench and verify on its own private server):
// they run at once, so the spawns of one case use the CPU another's wait leaves.
describe.concurrent('every --json validates against its shipped schema (real runs)', () => {
  it('bench, and compare of it against itself', async () => {
    // bench --baseline --json (the verdict, CI's gate, on the committed schemaVersion 1 baseline) is
    // validated where that run already is: test/cli/bench-scenario.test.ts.
    const bench = await jsonOf('bench', ['bench', ...SMALL, '--json']);
    expect(bench.startedAt).toMatch(ISO);
    const saved = path.join(dir, 'bench.json');
    writeFileSync(saved, JSON.stringify(bench));
    const same = await jsonOf('compare', ['compare', saved, saved, '--json']);
    expect(same).toMatchObject({ ok: true, options: { memoryToleranceFraction: 0.01, memoryToleranceBytes: null } });
  });

  // bench --suggest --json is validated where its run already is: test/cli/bench-suggest.test.ts.
  it('bench --instructions', async () => {
    // The count under valgrind is kept small
    // (10 calls, 2 repeats: every field of the document, in seconds instead of 300 × 3 calls).
    const counted = await jsonOf(
      'bench',
      [...words('bench --instructions --instruction-calls 10 --instruction-repeats 2 --window 10 --rate 1 --no-throughput --no-accuracy --no-progress --json')],
      0,
      {},
      240_000,
    );
    expect(counted.instructionsSeconds).toBeGreaterThan(0);
    const results = counted.results as { instructions?: { write: { repeats: unknown[] } } }[];
    expect(results.map((r) => r.instructions?.write.repeats.length)).toEqual([2, 2]);
  }, 400_000);

  // bench --sweep --json (the document, and each run's report as bench's) is validated where its run
  // already is: test/cli/bench-sweep.test.ts.

  // bench over two builds (--json) is validated where that run already is: test/cli/bench-builds.test.ts.
  it('verify over two builds', async () => {
    const system = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
    const linked = path.join(dir, 'redis-server-link');
    symlinkSync(system, linked);
    const verified = await jsonOf('builds', [
      ...words('verify --layout stoplight-v6 --calls 500 --seed 11 --no-progress --json --redis-server'),
      system,
      '--redis-server',
      linked,
    ]);
    for (const entry of Object.values(verified.builds as Record<string, { result: unknown }>)) expect(schemaErrors('verify', entry.result)).toEqual([]);
  }, 300_000);

  it('verify', async () => {
    const verified = await jsonOf('verify', ['verify', '--layout', 'stoplight-v6', '--calls', '500', '--seed', '3', '--no-progress', '--json']);
    expect((verified.results as { durationSeconds: number }[])[0]?.durationSeconds).toBeGreaterThan(0);
  });
});
