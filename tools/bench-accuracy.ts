// Cost of the accuracy phase (on by default), printed (not asserted by tests):
// the blog matrix with all seven layouts, memory only (`--no-throughput`),
// run with `--no-accuracy` and with accuracy, alternating, RUNS times each
// (default 2; `npx tsx tools/bench-accuracy.ts 3`). Target: with accuracy
// under 30 s. Also, within each run with accuracy, the accuracy phases' own
// wall seconds (results[].accuracy.seconds), which on a private server run
// on a second private server beside the fill (the accuracy lane): their sum
// against the run's wall time says how much of it they take. Runs the real
// CLI on a private server.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from '../src/measure/types.js';

const bin = fileURLToPath(new URL('../bin/swc.js', import.meta.url));
const runs = Number(process.argv[2] ?? 2);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

function bench(extra: readonly string[]): { seconds: number; report: BenchReport } {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [bin, 'bench', '--preset', 'blog', '--layout', 'all', '--no-throughput', '--json', '--no-progress', ...extra], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) {
    process.stderr.write(run.stderr);
    process.exit(run.status ?? 3);
  }
  return { seconds, report: JSON.parse(run.stdout) as BenchReport };
}

const without: number[] = [];
const withAccuracy: number[] = [];
for (let i = 0; i < runs; i += 1) {
  const a = bench(['--no-accuracy']);
  without.push(a.seconds);
  console.log(`run ${i + 1}: --no-accuracy ${a.seconds.toFixed(1)} s (load ${load()})`);
  const b = bench([]);
  withAccuracy.push(b.seconds);
  const phases = b.report.results.reduce((sum, r) => sum + (r.accuracy?.durationSeconds ?? 0), 0);
  const approximate = [...new Set(b.report.results.filter((r) => r.accuracy && r.accuracy.maxAbsError > 0).map((r) => r.layout))];
  console.log(
    `run ${i + 1}: with accuracy ${b.seconds.toFixed(1)} s (load ${load()}); accuracy phases ${phases.toFixed(1)} s in all, ${((100 * phases) / (b.report.measuringSeconds ?? NaN)).toFixed(0)}% of the run's wall (beside the fill, on their own server); ` +
      `${b.report.results.length} results; layouts with a nonzero error somewhere: ${approximate.join(', ') || 'none'}`,
  );
}
const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? NaN;
console.log(
  `\nmedian: --no-accuracy ${median(without).toFixed(1)} s, with accuracy ${median(withAccuracy).toFixed(1)} s ` +
    `(${(median(withAccuracy) / median(without)).toFixed(2)}×); target under 30 s: ${median(withAccuracy) < 30 ? 'met' : 'NOT met on this run (a loaded machine slows both)'}`,
);
