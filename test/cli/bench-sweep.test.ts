import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/core/schema-version.js';
import { alive, recordedServers, withPrivateServer } from '../helpers.js';
import { schemaErrors } from '../schema-check.js';
import { runCli, SWC_BIN, type CliResult } from './run-cli.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  pid: number;
  args: string[];
}

/**
 * A stand-in for redis-server that records its PID and arguments before exec'ing the real one,
 * so a test sees which servers a sweep started, with which settings, and that each is gone. One
 * per run: runs at once each count only their own servers.
 */
function recorder(name: string) {
  const pidFile = path.join(dir, `${name}.pids`);
  const wrapper = path.join(dir, `${name}-redis-server`);
  writeFileSync(wrapper, `#!/bin/sh\necho "$$ $*" >> '${pidFile}'\nexec redis-server "$@"\n`);
  chmodSync(wrapper, 0o755);
  const started = (): Started[] => recordedServers(pidFile);
  return {
    env: { SWC_REDIS_SERVER: wrapper },
    started,
    /** The servers started since `before`: each gone, its temp folder too. */
    stoppedSince(before: number): Started[] {
      const servers = started().slice(before);
      for (const server of servers) {
        expect(alive(server.pid), `redis-server ${server.pid}`).toBe(false);
        const folder = server.args[server.args.indexOf('--dir') + 1] ?? '';
        expect(folder).toMatch(/swc-redis-/);
        expect(existsSync(folder), folder).toBe(false);
      }
      return servers;
    },
  };
}

interface KeyJson {
  role: string;
  type: string;
  encoding: string;
  longest?: { name: { text: string; bytes: number }; value?: { field: string; bytes: number } };
}
interface ReportJson {
  redis: { config: Record<string, number> };
  results: { layout: string; windowSeconds: number; rate: number; memory: { bytesPerLight: number; keys: KeyJson[] } }[];
  encodingHints?: { layout: string; kind: string; name: string; bytes: number; setting: string; limit: number; fits: number }[];
}
interface SweepJson {
  schemaVersion: number;
  kind: string;
  settings: string[];
  sweep: { settings: Record<string, number>; default: boolean; report: ReportJson }[];
  summary: {
    layout: string;
    windowSeconds: number;
    rate: number;
    bytesPerLight: number[];
    expanded: boolean[];
    smallest: number;
    defaultOverSmallest: number;
  }[];
  advice: {
    layout: string;
    times: number;
    settings: Record<string, number>;
    keys: { role: string; encoding: string; causes: { kind: string; name?: string; actual: number; limit: number; setting: string }[] }[];
    text: string;
  }[];
}

// 30 s at 10/s: small and fast, and the 6.0 hash's buckets few enough that its metadata weighs (about 2.3× at the default).
const SMALL = ['--layout', 'stoplight-v6', '--window', '30', '--rate', '10', '--no-throughput'];
/** The 6.0 hash: buckets, totals and the light's metadata, last_error_json among it. */
const V6_HASH = 'metrics';
const hashOf = (report: ReportJson): KeyJson | undefined => report.results[0]?.memory.keys.find((k) => k.role === V6_HASH);
/** `swc bench --redis-url <a redis-server of its own> …`: runs on one server take turns, so these run at once. */
const benchOnOwnServer = (args: readonly string[]): Promise<CliResult> =>
  withPrivateServer({}, (server) => runCli(['bench', '--redis-url', server.url, ...args]));

// Every describe block below runs at once with the others: each run has private servers of its
// own (and its own recorder), or a redis-server the test started for it.
describe.concurrent('swc bench --sweep', () => {
  const jsonServers = recorder('json');
  const tableServers = recorder('table');
  let json: CliResult;
  let table: CliResult;
  beforeAll(async () => {
    [json, table] = await Promise.all([
      runCli(['bench', ...SMALL, '--sweep', 'hash-max-listpack-value=64,256', '--json'], jsonServers.env),
      runCli(['bench', ...SMALL, '--sweep', 'hash-max-listpack-value=64,256', '--no-progress'], tableServers.env),
    ]);
  });

  it('runs each value on a fresh private server started with it, and stops every one', () => {
    expect(json.code).toBe(0);
    const servers = jsonServers.stoppedSince(0);
    // The table's run stopped every server it started too.
    expect(tableServers.stoppedSince(0)).toHaveLength(4);
    // 64 is the server's default: the defaults' run is that value's, so two runs, not three; each run's
    // accuracy phases go to a second server started with the same settings (its lane), so four servers.
    expect(servers).toHaveLength(4);
    expect(servers[0]?.args.join(' ')).not.toMatch(/hash-max-listpack-value/);
    expect(servers[1]?.args.join(' ')).not.toMatch(/hash-max-listpack-value/);
    expect(servers[2]?.args.join(' ')).toMatch(/--hash-max-listpack-value 256\b/);
    expect(servers[3]?.args.join(' ')).toMatch(/--hash-max-listpack-value 256\b/);
    expect(json.stderr).toMatch(/^swc bench: sweep 1\/2: hash-max-listpack-value=64 \(the server's defaults\)$/m);
    expect(json.stderr).toMatch(/^swc bench: sweep 2\/2: hash-max-listpack-value=256$/m);
  });

  it('JSON: a sweep document with one normal report per setting, the summary and the advice', () => {
    const doc = JSON.parse(json.stdout) as SweepJson;
    expect(doc).toMatchObject({ schemaVersion: 3, kind: 'sweep', settings: ['hash-max-listpack-value'] });
    // The document validates against its shipped schema, and each run's report against bench's
    // (test/cli/json-schemas.test.ts counts on this run for --sweep).
    expect(doc.schemaVersion).toBe(SCHEMA_VERSION);
    expect(schemaErrors('bench-sweep', doc)).toEqual([]);
    for (const run of doc.sweep) expect(schemaErrors('bench', run.report)).toEqual([]);
    expect(doc.sweep.map((s) => [s.settings, s.default])).toEqual([
      [{ 'hash-max-listpack-value': 64 }, true],
      [{ 'hash-max-listpack-value': 256 }, false],
    ]);
    const [atDefault, at256] = doc.sweep.map((s) => s.report);
    expect(atDefault?.redis.config['hash-max-listpack-value']).toBe(64);
    expect(at256?.redis.config['hash-max-listpack-value']).toBe(256);
    // The hash is a hashtable at 64 and a listpack at 256, and smaller there.
    expect(hashOf(atDefault!)?.encoding).toBe('hashtable');
    expect(hashOf(at256!)?.encoding).toBe('listpack');
    const [bytes64, bytes256] = doc.sweep.map((s) => s.report.results[0]!.memory.bytesPerLight);
    expect(bytes256!).toBeLessThan(bytes64!);
    // What decides it was measured while the keys existed: the longest value is the error JSON, past 64 bytes.
    const longest = hashOf(atDefault!)?.longest?.value;
    expect(longest?.field).toBe('last_error_json');
    expect(longest!.bytes).toBeGreaterThan(64);
    expect(longest!.bytes).toBeLessThanOrEqual(256);
    expect(doc.summary).toEqual([
      {
        layout: 'stoplight-v6',
        windowSeconds: 30,
        rate: 10,
        bytesPerLight: [bytes64, bytes256],
        expanded: [true, false],
        smallest: 1,
        defaultOverSmallest: bytes64! / bytes256!,
      },
    ]);
    const ratio = bytes64! / bytes256!;
    // At least 2× smaller: the advice says so, and why.
    expect(ratio).toBeGreaterThanOrEqual(2);
    expect(doc.advice).toHaveLength(1);
    expect(doc.advice[0]).toMatchObject({
      layout: 'stoplight-v6',
      settings: { 'hash-max-listpack-value': 256 },
      keys: [
        {
          role: V6_HASH,
          encoding: 'hashtable',
          causes: [{ kind: 'value', name: 'last_error_json', actual: longest!.bytes, limit: 64, setting: 'hash-max-listpack-value' }],
        },
      ],
    });
    expect(doc.advice[0]?.text).toBe(
      `stoplight-v6 at 30 s, 10/s: ${ratio.toFixed(1)}× smaller with hash-max-listpack-value=256 — its hash \`${V6_HASH}\` is a hashtable at the default ` +
        `because field \`last_error_json\` (${longest!.bytes} bytes) is longer than hash-max-listpack-value (64)`,
    );
    // Each report is an ordinary bench result: at 64 it carries the hint, at 256 none.
    expect(atDefault?.encodingHints).toEqual([
      expect.objectContaining({ layout: 'stoplight-v6', kind: 'value', name: 'last_error_json', setting: 'hash-max-listpack-value', limit: 64, fits: 256 }),
    ]);
    expect(at256?.encodingHints).toEqual([]);
  });

  it('table: the advice line naming last_error_json first, the summary, then one titled section per setting', () => {
    expect(table.code).toBe(0);
    expect(table.stderr).toBe('');
    const out = table.stdout;
    expect(out).toMatch(/^Sweep 1\/2: hash-max-listpack-value=64 \(default\)$/m);
    expect(out).toMatch(/^Sweep 2\/2: hash-max-listpack-value=256$/m);
    expect(out).toMatch(/metrics hashtable/);
    expect(out).toMatch(/metrics listpack/);
    expect(out).toMatch(/^Where each layout leaves listpack$/m);
    expect(out).toMatch(/stoplight-v6 │ +[\d.]+ \* │ +[\d.]+ │ hash-max-listpack-value=256 │/);
    // The answer first: the advice, within the first 15 lines; the sections under it do not repeat the hint to sweep.
    expect(out.startsWith('Advice\n')).toBe(true);
    const advice = out.slice(0, out.indexOf('\n\n')).replace(/\n {2}/g, ' ');
    expect(out.split('\n').slice(0, 15).join('\n')).toMatch(/× smaller with hash-max-listpack-value=256/);
    expect(out).not.toContain('Encoding hints');
    expect(advice).toMatch(
      /stoplight-v6 at 30 s, 10\/s: [\d.]+× smaller with hash-max-listpack-value=256 — .*field `last_error_json` \(\d+ bytes\) is longer than hash-max-listpack-value \(64\)/,
    );
  });

  it('runs the defaults first when no swept value is the default, and compare refuses the document (exit 2)', async () => {
    const result = await runCli(['bench', ...SMALL, '--sweep', 'hash-max-listpack-value=128,256', '--json', '--no-progress']);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as SweepJson;
    expect(doc.sweep.map((s) => [s.settings['hash-max-listpack-value'], s.default])).toEqual([
      [64, true],
      [128, false],
      [256, false],
    ]);
    const file = path.join(dir, 'sweep.json');
    writeFileSync(file, result.stdout);
    const compare = await runCli(['compare', file, file]);
    expect(compare.code).toBe(2);
    expect(compare.stdout).toBe('');
    expect(compare.stderr.trim()).toMatch(/sweep\.json: a swc bench --sweep result .*jq '\.sweep\[0\]\.report'/);
    // One of its reports is an ordinary result that compare reads.
    writeFileSync(file, JSON.stringify(doc.sweep[1]!.report));
    expect((await runCli(['compare', file, file])).code).toBe(0);
  });
});

describe.concurrent('swc bench --sweep --format csv', () => {
  it('one row per run and cell, the swept setting and whether it is the default first', async () => {
    const result = await runCli(['bench', ...SMALL, '--sweep', 'hash-max-listpack-value=64,256', '--format', 'csv', '--no-progress']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^hash-max-listpack-value,default,layout,windowSeconds,rate,/);
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 5).join(','))).toEqual(['64,true,stoplight-v6,30,10', '256,false,stoplight-v6,30,10']);
    expect(lines[1]).toMatch(/,hash:hashtable\+zset:listpack,/);
    expect(lines[2]).toMatch(/,hash:listpack\+zset:listpack,/);
  });
});

// Every refused input, and REDIS_URL set, runs in-process against a
// recording stand-in for redis-server in test/unit/commands/sweep-usage.test.ts;
// a spawn shows one.
describe.concurrent('swc bench --sweep: refused input (exit 2, one line, nothing started)', () => {
  it('a setting that is not an encoding setting', async () => {
    const { env, started } = recorder('refused');
    const before = started().length;
    const result = await runCli(['bench', '--window', '10', '--rate', '1', '--no-throughput', '--sweep', 'maxmemory=1mb'], env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^swc: --sweep: maxmemory is not a listpack, ziplist or intset setting; accepted: hash-max-listpack-entries, .*list-max-ziplist-size$/,
    );
    expect(started().length).toBe(before);
  });
});

describe.concurrent('swc bench --sweep: a setting this redis-server does not know', () => {
  it('set-max-listpack-entries (Redis 7.2+): runs where the server knows it, else exit 2 naming it and the version, the server stopped', async () => {
    const { env, started, stoppedSince } = recorder('unknown-setting');
    const version = /v=(\d+)\.(\d+)/.exec(execFileSync('redis-server', ['--version']).toString());
    const knows = Number(version?.[1]) > 7 || (Number(version?.[1]) === 7 && Number(version?.[2]) >= 2);
    const before = started().length;
    const result = await runCli(['bench', ...SMALL, '--no-progress', '--json', '--sweep', 'set-max-listpack-entries=64,256'], env);
    if (knows) {
      expect(result.code).toBe(0);
      expect((JSON.parse(result.stdout) as SweepJson).sweep.map((s) => s.settings['set-max-listpack-entries'])).toContain(256);
    } else {
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toMatch(
        /^swc: --sweep: redis-server \d+\.\d+\.\d+ does not know set-max-listpack-entries \(set-max-listpack-\* needs Redis 7\.2 or later\)$/,
      );
      expect(stoppedSince(before)).toHaveLength(1);
    }
  });
});

describe.concurrent('swc bench --sweep: Ctrl-C', () => {
  it('stops the running combination and its private server; exit 130', async () => {
    const { env, started, stoppedSince } = recorder('ctrl-c');
    const before = started().length;
    // A cell of some seconds: the second combination is still filling when the signal comes.
    const child = spawn(
      process.execPath,
      [SWC_BIN, 'bench', '--layout', 'stoplight-v6', '--window', '10m', '--rate', '100', '--no-throughput', '--sweep', 'hash-max-listpack-value=64,256'],
      {
        env: { ...process.env, ...env, REDIS_URL: '', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The first combination alone has taken over 30 s on a loaded machine (load 14); 90 s is a bound, not a wait.
    const deadline = Date.now() + 90_000;
    // The second server has been spawned (the wrapper wrote its line) and is starting or filling.
    // (Each run starts two: its own and its accuracy lane's.)
    while (!(/sweep 2\/2/.test(stderr) && started().length - before >= 3) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 300));
    expect(stderr).toMatch(/sweep 2\/2: hash-max-listpack-value=256/);
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    // Every server (the defaults' and its lane, then 256's and, if it had started, its lane) is gone.
    expect(stoppedSince(before).length).toBeGreaterThanOrEqual(3);
  });
});

describe.concurrent('swc bench (no --sweep): encoding hints', () => {
  it('finds by itself that the 6.0 hash is a hashtable only because last_error_json is longer than hash-max-listpack-value', async () => {
    const [result, jsonRun] = await Promise.all([benchOnOwnServer([...SMALL, '--no-progress']), benchOnOwnServer([...SMALL, '--json', '--no-progress'])]);
    expect(result.code).toBe(0);
    const hints = result.stdout.slice(result.stdout.indexOf('\nEncoding hints\n')).replace(/\n {2}/g, ' ');
    expect(hints).toMatch(
      /^\nEncoding hints\nstoplight-v6 at 30 s, 10\/s: its hash `metrics` is a hashtable, and the only limit it is past is hash-max-listpack-value \(64\): field `last_error_json` holds (\d+) bytes\. Values of at most 64 bytes keep it a listpack; --sweep hash-max-listpack-value=64,(\d+),(\d+) measures higher limits \(an earlier, longer value counts too: Redis never converts a key back\)$/m,
    );
    const json = JSON.parse(jsonRun.stdout) as ReportJson;
    const bytes = json.results[0]?.memory.keys.find((k) => k.role === V6_HASH)?.longest?.value?.bytes ?? 0;
    expect(json.encodingHints).toEqual([
      {
        layout: 'stoplight-v6',
        role: V6_HASH,
        type: 'hash',
        encoding: 'hashtable',
        setting: 'hash-max-listpack-value',
        limit: 64,
        fits: 2 ** Math.ceil(Math.log2(bytes)),
        kind: 'value',
        name: 'last_error_json',
        bytes,
        cells: [{ windowSeconds: 30, rate: 10 }],
        everyCell: true,
      },
    ]);
  });

  it('gives no hint where the entry count already rules listpack out (6.0 at 10 min, 100/s: 1,200 buckets)', async () => {
    const json = JSON.parse(
      (await benchOnOwnServer(['--layout', 'stoplight-v6', '--window', '10m', '--rate', '100', '--no-throughput', '--json', '--no-progress'])).stdout,
    ) as ReportJson;
    const hash = json.results[0]?.memory.keys.find((k) => k.role === V6_HASH);
    expect(hash?.encoding).toBe('hashtable');
    expect(json.encodingHints).toEqual([]);
  });
});
