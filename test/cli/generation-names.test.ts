/**
 * `--scripts <Stoplight tree>` names the upstream 6.0 generation it
 * recognised in bench's table and JSON and in verify's; a generation chosen
 * on a default says so under --layout too; a manifest copy that keeps a
 * registered name is told to change its `name`; an incomplete run's banner
 * counts the cells it measured, and its error line is the call the server
 * line shows.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { V6_STORAGE_OLDER, stoplight6Tree, stoplightZsetTree } from '../integration/layouts/stoplight-tree.js';
import { packagePath } from '../../src/core/package-root.js';
import { compareVersions } from '../../src/redis/info.js';
import { execFileSync } from 'node:child_process';

const QUICK = ['--window', '60', '--rate', '5', '--no-throughput', '--no-accuracy', '--no-commands', '--no-progress'];
const HASH_B = 'stoplight-v6 (hash-b, 4975eb6)';

describe.concurrent('generations named', () => {
  it('bench --scripts <hash-b tree>: the table and --json name the generation', async () => {
    const tree = stoplight6Tree('argv', { evictBatchSizeLine: true });
    const table = await runCli(['bench', '--scripts', tree, '--layout', 'stoplight-v6', ...QUICK]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(`${HASH_B}: Stoplight 6.0 hash buckets`);
    const json = await runCli(['bench', '--scripts', tree, '--layout', 'stoplight-v6', ...QUICK, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as { generations?: Record<string, { id: string; commit: string | null; name: string }> };
    expect(report.generations?.['stoplight-v6']).toMatchObject({ id: 'hash-b', commit: '4975eb6', name: HASH_B });
    // swc's own scripts are no generation.
    const own = await runCli(['bench', '--layout', 'stoplight-v6', ...QUICK, '--json']);
    expect((JSON.parse(own.stdout) as { generations?: unknown }).generations).toBeUndefined();
  });

  it('verify --scripts <hash-b tree>: the text and --json name the generation', async () => {
    const tree = stoplight6Tree('argv', { evictBatchSizeLine: true });
    const text = await runCli(['verify', '--scripts', tree, '--layout', 'stoplight-v6', '--calls', '300', '--lights', '3']);
    expect(text.stdout).toContain(`${HASH_B}: 300 calls`);
    const json = await runCli(['verify', '--scripts', tree, '--layout', 'stoplight-v6', '--calls', '300', '--lights', '3', '--json']);
    const results = (JSON.parse(json.stdout) as { results: { generation?: { id: string; name: string } }[] }).results;
    expect(results[0]?.generation).toMatchObject({ id: 'hash-b', name: HASH_B });
  });

  it('a generation chosen on a default (no caller beside the folder) says so under --layout too', async () => {
    const tree = stoplightZsetTree('hourly-b');
    rmSync(path.join(tree, V6_STORAGE_OLDER, 'window_metrics.rb'));
    const result = await runCli(['bench', '--scripts', tree, '--layout', 'stoplight-v6', ...QUICK]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/--scripts: .*window_metrics\.rb not found: the TTLs of the newer caller .* are assumed/);
    expect(result.stdout).toContain('stoplight-v6 (hourly-b, c72dfc2)');
  });

  it('a manifest copy that keeps a registered name: exit 2, told to change its "name"', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'swc-renamed-'));
    // Two copies of one manifest, both keeping its name: the second is refused.
    const manifest = JSON.parse(readFileSync(packagePath('fixtures/manifests/stoplight-v6.json'), 'utf8')) as { scriptsRoot: string };
    const text = JSON.stringify({ ...manifest, scriptsRoot: path.resolve(packagePath('fixtures/manifests'), manifest.scriptsRoot) });
    writeFileSync(path.join(dir, 'a.json'), text);
    writeFileSync(path.join(dir, 'b.json'), text);
    const result = await runCli(['bench', '--layout', `${path.join(dir, 'a.json')},${path.join(dir, 'b.json')}`, ...QUICK]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/already a registered layout: give the copy a name of its own \(change its "name" field/);
  });

  it('an incomplete run (upstream -0 on Redis 7.0): the banner counts the cells measured; the error is the call the server line shows', async (context) => {
    const version = /v=(\S+)/.exec(execFileSync('redis-server', ['--version'], { encoding: 'utf8' }))?.[1] ?? '0';
    if (compareVersions(version, '7.2.0') >= 0) context.skip();
    const tree = stoplight6Tree('argv', { evictBatchSizeLine: true, unguardedEviction: true });
    const result = await runCli([
      'bench',
      '--scripts',
      tree,
      '--layout',
      'stoplight-v6',
      '--window',
      '60,120',
      '--rate',
      '5,10',
      '--no-throughput',
      '--no-progress',
    ]);
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/memory for 1 of 4 cells \(the run stopped before the other 3\)/);
    expect(result.stdout).not.toMatch(/memory for every cell shown/);
    expect(result.stderr).toMatch(/the server received: HINCRBY .* "-0"\n\s+error \(the same call, replayed\): /);
    expect(result.stderr).toMatch(/where the run stopped: .*in cell 1\/4/);
  });
});
