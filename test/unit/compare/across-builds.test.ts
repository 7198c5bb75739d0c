import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess as runCli } from '../in-process.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-across-'));
const baselineFile = path.resolve('fixtures/baselines/small.json');

interface Report {
  redis: Record<string, unknown>;
  results: { layout: string; memory: { bytesPerLight: number; keys: { role: string; bytes: number; encoding: string }[] } }[];
}

/** The baseline as another build would have measured it: Valkey 8.0.1, the first key of the first cell 10% smaller. */
function otherBuild(): string {
  const report = JSON.parse(readFileSync(baselineFile, 'utf8')) as Report;
  report.redis = { ...report.redis, server: 'valkey', serverVersion: '8.0.1' };
  const first = report.results[0]?.memory.keys[0];
  if (!first) throw new Error('fixture has no keys');
  first.bytes = Math.round(first.bytes * 0.9);
  const file = path.join(dir, 'valkey.json');
  writeFileSync(file, JSON.stringify(report));
  return file;
}

describe('swc compare of results from two server builds', () => {
  it('is refused with exit 2 and one line naming both builds and --across-builds', async () => {
    const run = await runCli(['compare', baselineFile, otherBuild()]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^swc: compare: .* was measured on Redis [\d.]+ \S+, .* on Valkey 8\.0\.1 \S+; pass --across-builds/);
  });

  it('--across-builds: per key role what changed (encoding, elements, bytes); exit 0', async () => {
    const run = await runCli(['compare', baselineFile, otherBuild(), '--across-builds', '--json']);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as { current: { build: string }; changes: { role: string; changed: string[] }[] };
    expect(json.current.build).toMatch(/^Valkey 8\.0\.1 /);
    expect(json.changes[0]?.changed).toEqual(['bytes']);
    expect(json.changes.slice(1).every((c) => c.changed.length === 0)).toBe(true);
    const text = await runCli(['compare', baselineFile, otherBuild(), '--across-builds']);
    expect(text.stdout).toMatch(/Across builds, per key role of one light: Redis [\d.]+ \S+ \(baseline\) → Valkey 8\.0\.1 \S+/);
    expect(text.stdout).toMatch(/-10\.\d% +│ bytes/);
  });

  it('results of one build compare as before (no --across-builds needed)', async () => {
    const run = await runCli(['compare', baselineFile, baselineFile]);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/across-builds/);
  });
});
