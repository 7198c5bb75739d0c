// Measures how close swc's load engine gets to redis-benchmark on the same
// call: EVALSHA of the 6.0 record_success script with identical keys and
// arguments, at identical connections (-c) and pipeline depth (-P), against a
// private redis-server. A ratio well under 1 means the engine, not Redis, is
// what `swc bench` would be measuring.
//
// Each setting gets a warm-up run of both tools, then `rounds` rounds; each
// round runs both twice, mirrored (A B B A, then B A A B), so drift on a
// noisy machine and the order of the runs hit both alike. The verdict uses
// the median of the per-round ratios (each from its round's four runs);
// best-of shows the ceiling.
//
// Usage: npm run bench:driver [-- --rounds 9 --scale 1 --target 0.95 --only 1x1,8x16]
// (--only: the settings to run, as <connections>x<pipeline>)
import { parseArgs } from 'node:util';
import { StoplightV6 } from '../src/layouts/stoplight/v6.js';
import { runLoad } from '../src/measure/load.js';
import { connect } from '../src/redis/connect.js';
import { RespConnection } from '../src/redis/resp.js';
import { installScripts } from '../src/redis/scripts.js';
import { startPrivateServer } from '../src/redis/server.js';
import { redisBenchmark, type BenchmarkLoad } from './redis-benchmark.js';
import type { Redis } from 'ioredis';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    only: { type: 'string' },
    scale: { type: 'string', default: '1' },
    target: { type: 'string', default: '0.95' },
  },
});
const rounds = Number(values.rounds);
const scale = Number(values.scale);
const target = Number(values.target);

/**
 * Each run lasts about a second or more, long enough to swamp start-up
 * costs; nine shorter rounds give a steadier median than five long ones on
 * a noisy machine (the per-round ratio at c=1 P=1 moves by about ±5%).
 */
const ALL_SETTINGS = [
  { connections: 1, pipeline: 1, ops: 20_000 },
  { connections: 4, pipeline: 1, ops: 50_000 },
  { connections: 8, pipeline: 1, ops: 50_000 },
  { connections: 1, pipeline: 16, ops: 100_000 },
  { connections: 8, pipeline: 16, ops: 200_000 },
];
const SETTINGS = values.only
  ? values.only.split(',').map((name) => {
      const setting = ALL_SETTINGS.find((s) => `${s.connections}x${s.pipeline}` === name.trim());
      if (!setting) {
        console.error(`--only: unknown setting ${name}; one of ${ALL_SETTINGS.map((s) => `${s.connections}x${s.pipeline}`).join(', ')}`);
        process.exit(2);
      }
      return setting;
    })
  : ALL_SETTINGS;
const WINDOW_SECONDS = 600;
/** A fixed event time: every call hits one bucket, as a benchmark of one call should. */
const FIXED_AT = 1_764_450_000;

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (i: number): number => sorted[i] ?? NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
};

const server = await startPrivateServer();
const pool: RespConnection[] = [];
let redis: Redis | undefined;
try {
  const maxConnections = Math.max(...SETTINGS.map((s) => s.connections));
  const layout = new StoplightV6({ prefix: 'swc-driver:stoplight:v6' });
  redis = await connect(server.url);
  await installScripts(redis, layout.scripts);
  // Load sockets opened once and reused by every run, as `swc bench` keeps its
  // own for all rounds (one opened per run measured about 3% slower at c=1 P=1).
  for (let i = 0; i < maxConnections; i += 1) pool.push(await RespConnection.open(redis.options));
  const call = layout.recordSuccess({ name: 'driver' }, { windowSeconds: WINDOW_SECONDS, at: FIXED_AT });
  const command = ['EVALSHA', call.script.sha1, String(call.keys.length), ...call.keys, ...call.args.map(String)];
  const nextCall = () => call;

  const swcRun = async (setting: BenchmarkLoad, ops: number): Promise<number> => {
    const result = await runLoad({
      connections: pool.slice(0, setting.connections),
      pipeline: setting.pipeline,
      stop: { ops },
      nextCall,
    });
    if (result.ops !== ops) throw new Error(`swc ran ${result.ops} operations, not ${ops}`);
    return result.opsPerSec;
  };

  const rows: (BenchmarkLoad & { swc: number; reference: number; ratio: number; best: number })[] = [];
  for (const setting of SETTINGS) {
    const ops = Math.max(1, Math.round(setting.ops * scale));
    // Warm-up, not recorded: the JIT, the server's caches, the kernel's socket buffers.
    const warmOps = Math.max(1, Math.round(ops / 4));
    await redisBenchmark(server.port, { ...setting, ops: warmOps }, command);
    await swcRun(setting, warmOps);
    const swc: number[] = [];
    const reference: number[] = [];
    // Each round is A B B A (or B A A B): two half-length runs of each tool,
    // mirrored, so a drift within the round and whatever one tool's run does
    // to the next (measured: up to ±10% on the run straight after
    // redis-benchmark exits) weigh on both alike.
    const half = Math.max(1, Math.round(ops / 2));
    const combined = (runs: readonly number[]): number => 2 / (1 / (runs[0] ?? NaN) + 1 / (runs[1] ?? NaN)); // two runs of `half` ops: ops over their total time
    for (let round = 0; round < rounds; round += 1) {
      const runs: Record<'swc' | 'reference', number[]> = { swc: [], reference: [] };
      const order = round % 2 === 0 ? (['reference', 'swc', 'swc', 'reference'] as const) : (['swc', 'reference', 'reference', 'swc'] as const);
      for (const tool of order) {
        runs[tool].push(tool === 'swc' ? await swcRun(setting, half) : await redisBenchmark(server.port, { ...setting, ops: half }, command));
      }
      swc.push(combined(runs.swc));
      reference.push(combined(runs.reference));
    }
    const ratio = median(swc.map((value, i) => value / (reference[i] ?? NaN)));
    const best = Math.max(...swc) / Math.max(...reference);
    rows.push({ ...setting, ops, swc: median(swc), reference: median(reference), ratio, best });
  }

  const header = ['c', 'P', 'ops', 'redis-benchmark ops/s', 'swc ops/s', 'ratio', 'best-of ratio', `vs ${target}`];
  const lines = rows.map((r) => [
    String(r.connections),
    String(r.pipeline),
    String(r.ops),
    Math.round(r.reference).toLocaleString('en-US'),
    Math.round(r.swc).toLocaleString('en-US'),
    r.ratio.toFixed(2),
    r.best.toFixed(2),
    r.ratio >= target ? 'PASS' : 'MISS',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const format = (cells: readonly string[]): string => cells.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  ');
  console.log(`EVALSHA ${call.script.id} ${call.keys.length} <keys> ${call.args.join(' ')}`);
  console.log(`ops/s: median of ${rounds} rounds; ratio: median of per-round swc / redis-benchmark; ` + 'best-of: best swc / best redis-benchmark');
  console.log(format(header));
  for (const line of lines) console.log(format(line));
  const passed = rows.filter((r) => r.ratio >= target).length;
  console.log(`${passed} of ${rows.length} settings at or above ${target}`);
} finally {
  for (const connection of pool) connection.close();
  redis?.disconnect();
  await server.stop();
}
