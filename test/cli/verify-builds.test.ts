import { chmodSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { stoplight6Tree } from '../integration/layouts/stoplight-tree.js';
import { words } from '../words.js';

/** The system's redis-server, as a path (the tests run it under other names). */
const system = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
const version = /v=(\d+\.\d+\.\d+)/.exec(execFileSync(system, ['--version'], { encoding: 'utf8' }))?.[1] ?? '';
const dir = mkdtempSync(path.join(tmpdir(), 'swc-builds-'));
/** The same binary under a second path. */
const linked = path.join(dir, 'redis-server-copy');
symlinkSync(system, linked);
/** The same binary started with other settings: HINCRBY renamed away, so a 6.0 script fails there. */
const wrapper = path.join(dir, 'redis-server-no-hincrby');
writeFileSync(wrapper, `#!/bin/sh\nexec "${system}" "$@" --rename-command HINCRBY ""\n`);
chmodSync(wrapper, 0o755);

interface BuildsVerifyJson {
  seed: number;
  findings: number;
  differences: {
    layout: string;
    kind: string;
    on: string[];
    noneOn: string[];
    text: string;
    received?: { build: string; command: string; rejected: boolean }[];
  }[];
  builds: Record<
    string,
    {
      build: { path: string; server: string; version: string; allocator: string };
      exitCode: number;
      result: { findings: number; results: { layout: string; scriptErrors: { error: string; rejected?: string }[] }[] } | null;
    }
  >;
}

describe('swc verify across server builds', () => {
  it.runIf(version.startsWith('7.0.'))(
    'a 6.0 tree whose eviction subtracts HINCRBY … -count fails on Redis 7.0 and says what the server received ("-0")',
    async () => {
      const tree = stoplight6Tree('time', { unguardedEviction: true });
      const run = await runCli(['verify', '--scripts', tree, '--layout', 'stoplight-v6', '--calls', '3000', '--seed', '3', '--no-progress']);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/script error on a \w+ .*value is not an integer/);
      expect(run.stdout).toMatch(/the server received: HINCRBY "[^"]*window_metrics" "total_(successes|failures)" "-0"/);
      expect(run.stdout).toMatch(/cause: "-0" rejected: the script subtracted a count of 0/);
    },
  );

  it('the same binary under two paths: one result per build, keyed apart, the same findings, no difference', async () => {
    const tree = stoplight6Tree('time');
    const run = await runCli([
      'verify',
      '--scripts',
      tree,
      ...words('--layout stoplight-v6 --calls 2000 --seed 11 --json --redis-server'),
      system,
      '--redis-server',
      linked,
    ]);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as BuildsVerifyJson;
    expect(json.seed).toBe(11);
    const [a, b] = Object.keys(json.builds);
    expect(a).toMatch(new RegExp(`^Redis ${version.replace(/\./g, '\\.')} \\S+$`));
    expect(b).toBe(`${a} #2`);
    expect(Object.values(json.builds).map((b) => [b.build.path, b.exitCode, b.result?.findings])).toEqual([
      [system, 0, 0],
      [linked, 0, 0],
    ]);
    expect(json.differences).toEqual([]);
  });

  it('a build started with other settings (a wrapper): its script error is its own, and the report says the builds differ', async () => {
    const tree = stoplight6Tree('time');
    const run = await runCli([
      'verify',
      '--scripts',
      tree,
      ...words('--layout stoplight-v6 --calls 500 --seed 11 --redis-server'),
      system,
      '--redis-server',
      wrapper,
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(`stoplight-v6: script error on Redis ${version.replace(/\./g, '\\.')} \\S+ #2; none on Redis ${version.replace(/\./g, '\\.')} \\S+\\n`),
    );
    const json = JSON.parse(
      (
        await runCli([
          'verify',
          '--scripts',
          tree,
          ...words('--layout stoplight-v6 --calls 500 --seed 11 --json --redis-server'),
          system,
          '--redis-server',
          wrapper,
        ])
      ).stdout,
    ) as BuildsVerifyJson;
    const [first, second] = Object.values(json.builds);
    expect(first?.result?.findings).toBe(0);
    expect(second?.result?.results[0]?.scriptErrors[0]?.error).toMatch(/Unknown Redis command called from script/);
    expect(second?.build.path).toBe(wrapper);
    // What the failing build was sent last, and what the build without the error received in its place.
    const received = json.differences[0]?.received ?? [];
    expect(received.map((r) => r.rejected)).toEqual([true, false]);
    expect(received[1]?.command.split(' ')[0]).toBe(received[0]?.command.split(' ')[0]);
  });

  it('--redis-server that is not an executable file: exit 2, one line naming the flag', async () => {
    const run = await runCli(['verify', '--redis-server', path.join(dir, 'nothing-here')]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/--redis-server: not an executable file/);
  });
});
