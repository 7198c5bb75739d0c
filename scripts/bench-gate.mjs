#!/usr/bin/env node
// Does the throughput gate of `swc compare` hold on this machine? One private
// redis-server; one baseline run of a small throughput scenario; then
// `--runs` runs of the same, unchanged scenario, each compared with the
// baseline (every failure is a false alarm); then `--slow-runs` runs with
// the 6.0 write scripts made about twice as slow (a copy of lua/ with a
// calibrated busy loop added, read through the plan's scriptsDir), each of
// which must fail; each slowed run is also compared the other way round
// (slowed run as the baseline, the unchanged baseline as the current run),
// which must report an improvement. Prints one line per run and a summary;
// exit 1 on a false alarm, a miss or an improvement not reported. A
// benchmark (it prints figures), not a test.
//
// Usage: npm run bench:gate [-- --runs 20 --slow-runs 20 --time 0.5 --rounds 5 --save runs.json]
//        npm run bench:gate -- --instructions [...]   (the instruction gate: scripts/bench-gate-instructions.mjs)
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareReports, createNamespace, DEFAULT_COMPARE_OPTIONS, openSession, purgeNamespace, runBench } from '../dist/index.js';

// `-- --instructions`: the instruction gate instead (scripts/bench-gate-instructions.mjs, its own flags).
if (process.argv.includes('--instructions')) {
  await import('./bench-gate-instructions.mjs');
  process.exit();
}

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    'slow-runs': { type: 'string', default: '20' },
    save: { type: 'string' },
    time: { type: 'string', default: '0.5' },
    rounds: { type: 'string', default: '5' },
  },
});
const runs = Number(values.runs);
const slowRuns = Number(values['slow-runs']);

const plan = {
  layouts: ['stoplight-v5', 'stoplight-v6'],
  windows: [60],
  rates: [2],
  failureRate: 0.5,
  lights: 1,
  seed: 1,
  throughput: { connections: 4, pipeline: 1, seconds: Number(values.time), rounds: Number(values.rounds) },
};
const options = { ...DEFAULT_COMPARE_OPTIONS };

const session = await openSession();
const scratch = mkdtempSync(path.join(tmpdir(), 'swc-gate-'));
try {
  const bench = async (extra = {}) => {
    const namespace = createNamespace();
    try {
      return await runBench({
        session,
        plan: { ...plan, ...extra },
        namespace,
        options: { seed: plan.seed, failureRate: plan.failureRate, lights: plan.lights },
      });
    } finally {
      await purgeNamespace(session.redis, namespace);
    }
  };
  const v6 = (report) => report.results.find((r) => r.layout === 'stoplight-v6').throughput;
  const describe = (verdict) =>
    verdict.failures.length === 0
      ? 'ok'
      : verdict.failures.map((r) => `${r.layout} ${r.figure} ${r.change === null ? 'missing' : `${(r.change * 100).toFixed(0)}%`}`).join(', ');
  const cpuOf = (stats) => stats.rounds.serverCpuUsecPerCall?.min ?? null;
  const line = (label, report, verdict) => {
    const t = v6(report);
    const cpu = cpuOf(t.write);
    return (
      `${label.padEnd(10)} v6 write ${Math.round(t.write.opsPerSec).toLocaleString('en-US').padStart(7)} ops/s (spread ${(t.write.rounds.opsPerSec.spread * 100).toFixed(0).padStart(3)}%), ` +
      `${t.write.rounds.serverUsecPerCall.min.toFixed(1).padStart(5)} µs/call, CPU ${cpu === null ? '–' : cpu.toFixed(1).padStart(5)} µs/call (fastest rounds); ` +
      `v6/v5 request ${t.ratio.request.median.toFixed(2)}×: ${verdict ? describe(verdict) : 'baseline'}`
    );
  };

  const saved = [];
  const keep = (kind, report) => {
    if (values.save) saved.push({ kind, report });
    return report;
  };
  const baseline = keep('baseline', await bench());
  console.log(
    `Redis ${baseline.redis.version}; ${plan.throughput.rounds} rounds × ${plan.throughput.seconds} s per phase per layout, ${plan.throughput.connections} connections; tolerances: throughput ${options.throughputTolerance * 100}%, server µs ${options.serverTolerance * 100}%`,
  );
  console.log(line('baseline', baseline));

  let falseAlarms = 0;
  for (let i = 1; i <= runs; i += 1) {
    const report = keep('same', await bench());
    const verdict = compareReports(baseline, report, options);
    if (!verdict.ok) falseAlarms += 1;
    console.log(line(`same ${i}`, report, verdict));
  }

  // A copy of lua/ whose 6.0 writes spin for about as long as a write took in the baseline.
  const source = fileURLToPath(new URL('../lua', import.meta.url));
  let slowDir = '';
  // The fastest of several calibrations and the baseline's fastest round: noise only adds time.
  let perIteration = Infinity;
  for (let i = 0; i < 7; i += 1) perIteration = Math.min(perIteration, await spinCost(session.redis));
  // A loop costing the write's whole CPU time per call (script plus reading and answering it):
  // the script becomes at least twice as slow, and the CPU figure about twice as high.
  const own = cpuOf(v6(baseline).write) ?? v6(baseline).write.rounds.serverUsecPerCall.min;
  // A fresh copy per loop count: scripts are read once per path and kept for the process.
  let copies = 0;
  const slowWith = (iterations) => {
    slowDir = path.join(scratch, `lua-${(copies += 1)}`);
    cpSync(source, slowDir, { recursive: true });
    for (const op of ['record_success', 'record_failure']) {
      const file = path.join(slowDir, 'stoplight-v6', `${op}.lua`);
      const original = readFileSync(path.join(source, 'stoplight-v6', `${op}.lua`), 'utf8');
      writeFileSync(
        file,
        `${original}\n-- gate check: a busy loop doubling the script's time\n`.replace(
          /^/,
          `local swc_spin = 0\nfor i = 1, ${iterations} do swc_spin = swc_spin + i end\n`,
        ),
      );
    }
  };
  let iterations = Math.max(1, Math.round(own / perIteration));
  // The loop's cost against the script's own time, which no figure gives exactly (usec carries
  // the server's descheduled time, CPU time the reading and answering): one trial run with the
  // loop, and the loop scaled so that the write's fastest-round usec doubles. S = loop / (f - 1).
  slowWith(iterations);
  const trial = await bench({ scriptsDir: slowDir });
  const factor = v6(trial).write.rounds.serverUsecPerCall.min / v6(baseline).write.rounds.serverUsecPerCall.min;
  if (factor > 1.05) iterations = Math.max(1, Math.round(iterations / (factor - 1)));
  slowWith(iterations);
  console.log(
    `slowed copy: ${iterations} loop iterations (${perIteration.toFixed(4)} µs of CPU each) before every 6.0 write ` +
      `(a trial run with ${Math.round(own / perIteration)} made the write ${factor.toFixed(2)}× slower)`,
  );
  let caught = 0;
  let improved = 0;
  for (let i = 1; i <= slowRuns; i += 1) {
    const report = keep('slow', await bench({ scriptsDir: slowDir }));
    const verdict = compareReports(baseline, report, options);
    if (!verdict.ok) caught += 1;
    // The other way round: going back from the slowed scripts is an improvement, and is said.
    const back = compareReports(report, baseline, options);
    const better = back.improvements.some((r) => r.layout === 'stoplight-v6' && r.figure.startsWith('writeServer'));
    if (better) improved += 1;
    const slower = v6(report).write.rounds.serverUsecPerCall.min / v6(baseline).write.rounds.serverUsecPerCall.min;
    const cpu = cpuOf(v6(report).write) !== null && cpuOf(v6(baseline).write) ? cpuOf(v6(report).write) / cpuOf(v6(baseline).write) : null;
    console.log(
      `${line(`slow ${i}`, report, verdict)} (write ${slower.toFixed(2)}× the baseline's µs, ${cpu === null ? '–' : `${cpu.toFixed(2)}×`} its CPU; ` +
        `reversed: ${better ? 'improvement reported' : 'NO improvement reported'})`,
    );
  }
  console.log(
    `\nunchanged: ${runs - falseAlarms} of ${runs} passed (${falseAlarms} false alarm(s)); 2× slower 6.0 write: ${caught} of ${slowRuns} caught; ` +
      `reversed (slowed run as the baseline): improvement reported ${improved} of ${slowRuns}`,
  );
  if (values.save) writeFileSync(values.save, JSON.stringify(saved));
  process.exitCode = falseAlarms === 0 && caught === slowRuns && improved === slowRuns ? 0 : 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await session.close();
}

/**
 * Server µs per iteration of the busy loop around one long EVAL: its CPU time
 * (INFO cpu, main thread), which a busy machine does not stretch; its
 * commandstats usec when the CPU fields are missing.
 */
async function spinCost(redis) {
  const n = 1_000_000;
  const read = async () => {
    const cpu = Object.fromEntries((await redis.info('cpu')).split('\r\n').map((l) => l.split(':')));
    if (cpu.used_cpu_user_main_thread !== undefined) return (Number(cpu.used_cpu_user_main_thread) + Number(cpu.used_cpu_sys_main_thread)) * 1e6;
    const line = (await redis.info('commandstats')).split('\n').find((l) => l.startsWith('cmdstat_eval:'));
    return line ? Number(/usec=(\d+)/.exec(line)[1]) : 0;
  };
  const before = await read();
  await redis.eval(`local s = 0 for i = 1, ${n} do s = s + i end return 0`, 0);
  return ((await read()) - before) / n;
}
