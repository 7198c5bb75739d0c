import { chmodSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/core/schema-version.js';
import { schemaErrors } from '../schema-check.js';
import { runCli } from './run-cli.js';

const system = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
const dir = mkdtempSync(path.join(tmpdir(), 'swc-bench-builds-'));
const linked = path.join(dir, 'redis-server-link');
symlinkSync(system, linked);
/** The same binary started with other settings: no sorted set stays a listpack there. */
const wrapper = path.join(dir, 'redis-server-skiplists');
writeFileSync(wrapper, `#!/bin/sh\nexec "${system}" "$@" --zset-max-listpack-entries 0\n`);
chmodSync(wrapper, 0o755);

const small = ['bench', '--layout', 'stoplight-v6', '--window', '60', '--rate', '10', '--no-throughput', '--no-accuracy'];

interface BuildsJson {
  builds: Record<
    string,
    {
      build: { path: string; server: string; version: string; allocator: string; arch: string; defaults: Record<string, string> };
      exitCode: number;
      result: { results: { layout: string; memory: { bytesPerLight: number; keys: { role: string; encoding: string }[] } }[] };
    }
  >;
}

// Every run starts servers of its own: the cases run at once.
describe.concurrent('swc bench --redis-server, repeated: one column group per build', () => {
  it('the same binary under two paths: two builds keyed apart, their figures equal', async () => {
    const run = await runCli([...small, '--json', '--redis-server', system, '--redis-server', linked]);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as BuildsJson;
    // The document validates against its shipped schema, each build's result against bench's
    // (test/cli/json-schemas.test.ts counts on this run for bench over builds).
    expect((json as unknown as { schemaVersion: number }).schemaVersion).toBe(SCHEMA_VERSION);
    expect(schemaErrors('builds', json)).toEqual([]);
    for (const entry of Object.values(json.builds)) expect(schemaErrors('bench', entry.result)).toEqual([]);
    const [a, b] = Object.entries(json.builds);
    expect(b?.[0]).toBe(`${a?.[0]} #2`);
    expect([a?.[1].build.path, b?.[1].build.path]).toEqual([system, linked]);
    expect(a?.[1].build.server).toBe('redis');
    expect(a?.[1].build.defaults['zset-max-listpack-entries']).toBe('128');
    const bytes = (x: typeof a) => x?.[1].result.results.map((r) => r.memory.bytesPerLight);
    expect(bytes(b)).toEqual(bytes(a));
  });

  it('a build started with other settings (a wrapper): its own defaults, encodings and bytes, apart from the plain build', async () => {
    // One run: the table on stdout, the same result as --json prints saved by --output.
    const saved = path.join(dir, 'wrapper.json');
    const run = await runCli([...small, '--redis-server', system, '--redis-server', wrapper, '--output', saved]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Encodings that differ between builds/);
    expect(run.stdout).toMatch(/index listpack.*│.*index skiplist/);
    expect(run.stdout).toMatch(/#2: .*redis-server-skiplists.*zset-max-listpack-entries=0/);
    const json = JSON.parse(readFileSync(saved, 'utf8')) as BuildsJson;
    const [plain, other] = Object.values(json.builds);
    const index = (x: typeof plain) => x?.result.results[0]?.memory.keys.find((k) => k.role === 'index')?.encoding;
    expect([index(plain), index(other)]).toEqual(['listpack', 'skiplist']);
    expect(other?.result.results[0]?.memory.bytesPerLight).toBeGreaterThan(plain?.result.results[0]?.memory.bytesPerLight ?? Infinity);
  });

  it('one --redis-server: the single-build output, unchanged', async () => {
    // Each on a private server of its own: the two run at once.
    const [plain, one] = await Promise.all([runCli([...small, '--no-progress']), runCli([...small, '--no-progress', '--redis-server', system])]);
    expect([plain.code, one.code]).toEqual([0, 0]);
    expect(one.stdout).toBe(plain.stdout);
  });

  it('--redis-server with --redis-url or --baseline: exit 2, one line', async () => {
    const [url, base] = await Promise.all([
      runCli([...small, '--redis-server', system, '--redis-url', 'redis://127.0.0.1:1']),
      runCli([...small, '--redis-server', system, '--redis-server', linked, '--baseline', 'fixtures/baselines/small.json']),
    ]);
    expect(url.code).toBe(2);
    expect(url.stderr).toMatch(/^swc: --redis-server\/--redis-url: /m);
    expect(base.code).toBe(2);
    expect(base.stderr.trim().split('\n')).toHaveLength(1);
  });
});
