// How close the blog preset's memory fill comes to the server's own script
// time: runs `swc bench --preset blog --no-throughput --no-accuracy --json`
// several times (the fill alone: the accuracy phases, on by default, run on
// a second private server beside it and have `npm run bench:accuracy`)
// (each on its own private server, as a user would) and prints, side by side
// per run, the run's wall time (JSON measuringSeconds), the server's script time
// over the same run (serverScriptSeconds: EVALSHA/EVAL usec from INFO
// commandstats) and their ratio, then min/median/max of the ratio (target:
// at most 1.3). With --against <other swc.js> the runs alternate between
// this build and that one (A B A B …), so a change is judged under the same
// machine load. The load average is printed with each run: on a shared
// machine the server is descheduled between scripts, which only the wall
// time sees. A benchmark (it prints figures), not a test.
//
// Usage: npm run bench:fill [-- --runs 5 --against /path/to/old/bin/swc.js]
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchReport } from '../src/measure/types.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, against: { type: 'string' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write('bench-fill: --runs must be a whole number >= 1\n');
  process.exit(2);
}
const builds = [{ name: 'this', bin: fileURLToPath(new URL('../bin/swc.js', import.meta.url)) }];
if (values.against) builds.push({ name: 'against', bin: values.against });

const load = (): string => (loadavg()[0] ?? 0).toFixed(1);
const ratios = new Map<string, number[]>(builds.map((b) => [b.name, []]));
console.log(
  `blog preset, memory only, --no-accuracy; ${runs} run(s)${builds.length > 1 ? ' per build, alternating' : ''}; 2 cores shared with whatever else runs (load average shown)\n`,
);
console.log(`${'build'.padEnd(8)} ${'run'.padStart(3)}  ${'wall s'.padStart(7)}  ${'server s'.padStart(8)}  ${'ratio'.padStart(6)}  load`);
for (let i = 1; i <= runs; i += 1) {
  for (const build of builds) {
    const before = load();
    const run = spawnSync(process.execPath, [build.bin, 'bench', '--preset', 'blog', '--no-throughput', '--no-accuracy', '--json', '--no-progress'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.status !== 0) {
      process.stderr.write(run.stderr);
      process.exit(run.status ?? 3);
    }
    const report = JSON.parse(run.stdout) as BenchReport;
    const wall = report.measuringSeconds;
    const server = report.serverScriptSeconds;
    if (typeof wall !== 'number' || typeof server !== 'number' || !(server > 0)) {
      process.stderr.write(`bench-fill: ${build.bin} reported no measuringSeconds/serverScriptSeconds\n`);
      process.exit(3);
    }
    ratios.get(build.name)?.push(wall / server);
    console.log(
      `${build.name.padEnd(8)} ${String(i).padStart(3)}  ${wall.toFixed(2).padStart(7)}  ${server.toFixed(2).padStart(8)}  ${(wall / server).toFixed(2).padStart(5)}×  ${before} → ${load()}`,
    );
  }
}
console.log('');
for (const build of builds) {
  const sorted = [...(ratios.get(build.name) ?? [])].sort((a, b) => a - b);
  const at = (i: number): number => sorted[i] ?? NaN;
  const median = sorted.length % 2 ? at((sorted.length - 1) / 2) : (at(sorted.length / 2 - 1) + at(sorted.length / 2)) / 2;
  const within = sorted.filter((r) => r <= 1.3).length;
  console.log(
    `${build.name.padEnd(8)} ratio min ${at(0).toFixed(2)}×  median ${median.toFixed(2)}×  max ${at(sorted.length - 1).toFixed(2)}×  (${within} of ${sorted.length} at most 1.3×)`,
  );
}
