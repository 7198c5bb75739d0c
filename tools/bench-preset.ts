// How long the blog preset takes, and whether the same build twice agrees:
// runs `swc bench --preset blog --no-throughput` (accuracy on, as a user
// runs it) and the 7-layout matrix (the same with `--layout all`), each on
// its own private server, RUNS times (default 3), and prints per run the
// wall time (spawn to exit, server start included), the run's own
// measuringSeconds, the server's script time (serverScriptSeconds), the
// events filled (events × lights, every cell) and the load average before
// and after. With --against <other bin/swc.js> the builds alternate, mirrored
// round by round (A B, B A, A B …), so both see the same machine load, and
// the medians' ratio is printed. Then the A=B check, per build: the matrix
// once with the same redis-server given twice (`--redis-server X
// --redis-server X`, two private servers of one build, each with its own
// random skiplist levels), memory only, and every cell's bytes per light on
// the second against the first (target: within 0.5% on every cell).
// Targets: blog preset under 10 s and matrix under 30 s, on a quiet 2-core
// machine. A benchmark (it prints figures), not a test.
//
// Usage: npm run bench:preset [-- --runs 3 --against /path/to/old/bin/swc.js --no-ab]
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchReport } from '../src/measure/types.js';
import { median, timedSwc } from './timed-swc.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, against: { type: 'string' }, 'no-ab': { type: 'boolean', default: false } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write('bench-preset: --runs must be a whole number >= 1\n');
  process.exit(2);
}
const builds = [{ name: 'this', bin: fileURLToPath(new URL('../bin/swc.js', import.meta.url)) }];
if (values.against) builds.push({ name: 'against', bin: values.against });

const PRESET = ['bench', '--preset', 'blog', '--no-throughput', '--json', '--no-progress'];
const shapes = [
  { name: 'blog preset', args: PRESET, target: 10 },
  { name: '7-layout matrix', args: [...PRESET, '--layout', 'all'], target: 30 },
];

const load = (): string => (loadavg()[0] ?? 0).toFixed(1);

const swc = (bin: string, args: readonly string[]): { seconds: number; stdout: string } => timedSwc('bench-preset', bin, args);

/** Events the memory phases wrote: each cell's events times the lights it filled. */
const filled = (report: BenchReport): number => report.results.reduce((sum, r) => sum + r.events * r.memory.lights, 0);

console.log(
  `${runs} run(s) of each${builds.length > 1 ? ' per build, alternating (mirrored each round)' : ''}; 2 cores shared with whatever else runs (load average shown)\n`,
);
console.log(`| run | shape | build | wall s | measuring s | server script s | events filled | load before → after |`);
console.log(`| ---: | --- | --- | ---: | ---: | ---: | ---: | --- |`);
const walls = new Map<string, number[]>();
for (let i = 1; i <= runs; i += 1) {
  for (const shape of shapes) {
    const order = i % 2 === 1 ? builds : [...builds].reverse();
    for (const build of order) {
      const before = load();
      const { seconds, stdout } = swc(build.bin, shape.args);
      const report = JSON.parse(stdout) as BenchReport;
      const key = `${shape.name}|${build.name}`;
      walls.set(key, [...(walls.get(key) ?? []), seconds]);
      console.log(
        `| ${i} | ${shape.name} | ${build.name} | ${seconds.toFixed(1)} | ${(report.measuringSeconds ?? NaN).toFixed(1)} | ${(report.serverScriptSeconds ?? NaN).toFixed(1)} | ${filled(report).toLocaleString('en-US')} | ${before} → ${load()} |`,
      );
    }
  }
}
console.log('');
for (const shape of shapes) {
  const of = (name: string): number[] => walls.get(`${shape.name}|${name}`) ?? [];
  const mine = of('this');
  const range = (xs: number[]): string => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)} s (median ${median(xs).toFixed(1)} s)`;
  let line = `${shape.name}: this build ${range(mine)}, target under ${shape.target} s on a quiet machine`;
  if (builds.length > 1) {
    const other = of('against');
    line += `; against ${range(other)}; this / against ${(median(mine) / median(other)).toFixed(2)}× (medians)`;
  }
  console.log(line);
}

if (!values['no-ab']) {
  const server = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  console.log(`\nA=B: the 7-layout matrix, memory only (--no-accuracy), with --redis-server ${server} given twice`);
  for (const build of builds) {
    const before = load();
    const { seconds, stdout } = swc(build.bin, [...PRESET, '--layout', 'all', '--no-accuracy', '--redis-server', server, '--redis-server', server]);
    const entries = Object.values((JSON.parse(stdout) as { builds: Record<string, { result: BenchReport }> }).builds);
    const [a, b] = entries.map((e) => e.result.results);
    if (!a || !b || a.length !== b.length) {
      process.stderr.write('bench-preset: the A=B run did not give two builds with the same cells\n');
      process.exit(3);
    }
    const diffs = a.map((cell, i) => ({ cell, diff: (b[i] as (typeof b)[number]).memory.bytesPerLight / cell.memory.bytesPerLight - 1 }));
    const worst = diffs.reduce((w, d) => (Math.abs(d.diff) > Math.abs(w.diff) ? d : w));
    const over = diffs.filter((d) => Math.abs(d.diff) > 0.005).length;
    const exact = diffs.filter((d) => d.diff === 0).length;
    console.log(
      `${build.name}: ${diffs.length - over} of ${diffs.length} cells within 0.5% (${exact} to the byte); worst ${(worst.diff * 100).toFixed(3)}% ` +
        `(${worst.cell.layout} ${worst.cell.windowSeconds} s at ${worst.cell.rate}/s); ${seconds.toFixed(1)} s, load ${before} → ${load()}`,
    );
  }
}
