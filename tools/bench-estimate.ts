// How close `swc bench --dry-run`'s estimate comes to the run: for each
// shape below, the estimate (`--dry-run --json`'s estimatedSeconds) and the
// wall time of the run itself (spawn to exit, its private server's start
// included), RUNS times (default 2) with the shapes interleaved, and the
// ratio of the median wall time to the estimate. The shapes take the
// estimate's parts apart: a tiny plan (server start and the per-cell
// costs), memory only at two sizes (the fill per event), the accuracy
// phases beside the fills (memory-only runs with accuracy on), and the
// default bench with its throughput phases. A benchmark (it prints
// figures), not a test: the constants of src/bench/estimate.ts are
// fitted to what it prints, on a quiet 2-core machine.
//
// Usage: npm run bench:estimate [-- --runs 2]
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median, timedSwc } from './timed-swc.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '2' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write('bench-estimate: --runs must be a whole number >= 1\n');
  process.exit(2);
}
const bin = fileURLToPath(new URL('../bin/swc.js', import.meta.url));
const QUIET = ['--json', '--no-progress'];
const shapes: { name: string; args: string[] }[] = [
  { name: 'tiny: 10 s window at 1/s, memory only', args: ['bench', '--window', '10', '--rate', '1', '--no-throughput', '--no-accuracy'] },
  { name: '10 min at 100/s, memory only', args: ['bench', '--window', '600', '--rate', '100', '--no-throughput', '--no-accuracy'] },
  { name: 'blog preset, memory only', args: ['bench', '--preset', 'blog', '--no-throughput', '--no-accuracy'] },
  { name: '7-layout matrix, memory only', args: ['bench', '--preset', 'blog', '--no-throughput', '--no-accuracy', '--layout', 'all'] },
  { name: '10 min at 100/s, accuracy beside', args: ['bench', '--window', '600', '--rate', '100', '--no-throughput'] },
  { name: 'blog preset (--no-throughput)', args: ['bench', '--preset', 'blog', '--no-throughput'] },
  { name: '7-layout matrix (--no-throughput)', args: ['bench', '--preset', 'blog', '--no-throughput', '--layout', 'all'] },
  { name: 'default bench (throughput, accuracy)', args: ['bench'] },
];

const swc = (args: readonly string[]): { seconds: number; stdout: string } => timedSwc('bench-estimate', bin, [...args, ...QUIET]);

const estimates = shapes.map((shape) => (JSON.parse(swc([...shape.args, '--dry-run']).stdout) as { estimatedSeconds: number }).estimatedSeconds);
const walls: number[][] = shapes.map(() => []);
const loads: string[] = [];
for (let i = 0; i < runs; i += 1) {
  // Interleaved, mirrored each round: a machine that grows busier weighs on every shape alike.
  const order = shapes.map((_, k) => k);
  if (i % 2 === 1) order.reverse();
  for (const k of order) {
    loads.push((loadavg()[0] ?? 0).toFixed(1));
    (walls[k] as number[]).push(swc((shapes[k] as { args: string[] }).args).seconds);
  }
}

console.log(`${runs} run(s) of each shape, interleaved; load average ${Math.min(...loads.map(Number))}–${Math.max(...loads.map(Number))} before the runs\n`);
console.log('| shape | estimate s | wall s (each run) | median / estimate |');
console.log('| --- | ---: | --- | ---: |');
for (const [k, shape] of shapes.entries()) {
  const estimate = estimates[k] as number;
  const wall = walls[k] as number[];
  console.log(`| ${shape.name} | ${estimate.toFixed(1)} | ${wall.map((w) => w.toFixed(1)).join(', ')} | ${(median(wall) / estimate).toFixed(2)}× |`);
}
