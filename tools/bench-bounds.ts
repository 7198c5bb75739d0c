/**
 * How fast swc gives up where it must give up fast (`npm run bench:bounds [-- --runs 5]`): the bounds the
 * tests hold by their mechanism (one connection, the configured wait named in the line, nothing read) are
 * timed here, on this machine at its load, against their targets.
 *
 * Each case is spawned `--runs` times, interleaved with `swc --version` (the start-up of the moment, as a
 * busy machine stretches it): a row is a case's median wall time from spawn to exit, its min–max, its
 * median beyond the start-up, and its target beyond the start-up. The load average is printed before and
 * after. Every case must exit with its code (else the tool stops, exit 3); `--check` exits 1 when a median
 * beyond the start-up is over its target.
 *
 * Cases: nothing listening (exit 3), a port that accepts and never answers (exit 3 after the connect
 * timeout), a server under CLIENT PAUSE (exit 3), a wrong password (exit 3), `--names /dev/zero` and a
 * FIFO (exit 2, before Redis).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connect, CONNECT_TIMEOUT_MS } from '../src/redis/connect.js';
import { freePort, startPrivateServer } from '../src/redis/server.js';
import { median } from './timed-swc.js';

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'swc.js');

/** Runs `swc args` to its end; resolves with its exit code and wall time in ms. */
function timed(args: readonly string[]): Promise<{ code: number | null; ms: number; stderr: string }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, REDIS_URL: '', NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ms: Number(process.hrtime.bigint() - started) / 1e6, stderr }));
  });
}

interface Case {
  readonly name: string;
  readonly args: readonly string[];
  readonly code: number;
  /** The target, in ms beyond the start-up of the moment. */
  readonly targetMs: number;
}

const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, check: { type: 'boolean', default: false } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 100) throw new Error(`--runs: 1 to 100, got "${values.runs}"`);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-bounds-'));
  const fifo = path.join(dir, 'names.fifo');
  execFileSync('mkfifo', [fifo]);
  const silent = net.createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const silentPort = (silent.address() as net.AddressInfo).port;
  const secured = await startPrivateServer({ settings: ['requirepass=s3cret'] });
  const paused = await startPrivateServer();
  const pauser = await connect(paused.url);
  const nowhere = ['--redis-url', 'redis://127.0.0.1:1'];
  const cases: Case[] = [
    { name: 'doctor, nothing listening', args: ['doctor', '--redis-url', `redis://127.0.0.1:${await freePort()}`], code: 3, targetMs: 1000 },
    {
      name: `doctor, a port that never answers (${CONNECT_TIMEOUT_MS / 1000} s wait)`,
      args: ['doctor', '--redis-url', `redis://127.0.0.1:${silentPort}`],
      code: 3,
      targetMs: CONNECT_TIMEOUT_MS + 1000,
    },
    { name: 'lights, a server under CLIENT PAUSE', args: ['lights', '--redis-url', paused.url], code: 3, targetMs: CONNECT_TIMEOUT_MS + 1000 },
    {
      name: 'bench, wrong password',
      args: ['bench', '--rate', '10', '--window', '60', '--redis-url', `redis://:wrong@127.0.0.1:${secured.port}`],
      code: 3,
      targetMs: 1000,
    },
    { name: 'lights --names /dev/zero', args: ['lights', '--names', '/dev/zero', ...nowhere], code: 2, targetMs: 2000 },
    { name: 'lights --names <a FIFO>', args: ['lights', '--names', fifo, ...nowhere], code: 2, targetMs: 2000 },
  ];
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  const startup: number[] = [];
  const before = load();
  let over = 0;
  try {
    // One pause for the whole benchmark (a server stopped with SIGTERM needs no command of its own).
    await pauser.call('CLIENT', 'PAUSE', String(runs * cases.length * 20_000), 'ALL');
    for (let round = 0; round < runs; round += 1) {
      for (const c of cases) {
        startup.push((await timed(['--version'])).ms);
        const run = await timed(c.args);
        if (run.code !== c.code) {
          process.stderr.write(`bench:bounds: ${c.name}: exit ${run.code}, expected ${c.code}\n${run.stderr}`);
          return 3;
        }
        times.get(c.name)?.push(run.ms);
      }
    }
    const base = median(startup);
    console.log(`swc's bounds, ${runs} run(s) each, interleaved with swc --version (median ${base.toFixed(0)} ms); load average ${before} at the start`);
    const width = Math.max(...cases.map((c) => c.name.length));
    console.log(`${'case'.padEnd(width)}  exit  median ms  min–max ms     beyond start-up  target`);
    for (const c of cases) {
      const ms = times.get(c.name) ?? [];
      const beyond = median(ms) - base;
      const mark = beyond > c.targetMs ? '  OVER' : '';
      if (mark) over += 1;
      console.log(
        `${c.name.padEnd(width)}  ${String(c.code).padStart(4)}  ${median(ms).toFixed(0).padStart(9)}  ${`${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)}`.padStart(12)}  ${beyond.toFixed(0).padStart(15)}  ${`< ${c.targetMs}`.padStart(6)}${mark}`,
      );
    }
    console.log(`load average ${load()} at the end`);
  } finally {
    pauser.disconnect();
    silent.close();
    await Promise.all([secured.stop(), paused.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
  return values.check && over > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:bounds: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(3);
  },
);
