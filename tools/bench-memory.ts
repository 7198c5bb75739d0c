// Memory targets of `swc bench --preset blog`, printed (not asserted by tests):
//   every cell within 15% of the published figure; 5.x grows about tenfold
//   from 10 to 100 req/s while 6.0 changes by under 5%; the whole preset,
//   memory only, in under 15 seconds; and the run's own wall time (from the
//   JSON: measuringSeconds) beside the server's script time over the same run
//   (serverScriptSeconds: EVALSHA/EVAL usec from INFO commandstats), with
//   their ratio (target: at most 1.3). Runs the real CLI on a private server.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchReport, CellResult } from '../src/measure/types.js';

const bin = fileURLToPath(new URL('../bin/swc.js', import.meta.url));
const started = process.hrtime.bigint();
const run = spawnSync(process.execPath, [bin, 'bench', '--preset', 'blog', '--no-throughput', '--no-accuracy', '--json', '--no-progress'], {
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
if (run.status !== 0) {
  process.stderr.write(run.stderr);
  process.exit(run.status ?? 3);
}
const report = JSON.parse(run.stdout) as BenchReport;
const results = report.results;
const cell = (layout: string, w: number, r: number): CellResult => {
  const found = results.find((x) => x.layout === layout && x.windowSeconds === w && x.rate === r);
  if (!found) throw new Error(`no cell ${layout} ${w} s ${r}/s in the blog preset`);
  return found;
};
// The blog preset always carries the published figures.
const published = (r: CellResult): NonNullable<CellResult['published']> => r.published ?? { kb: NaN, bytes: NaN, diff: NaN };

const rows: string[] = [];
let worst = 0;
for (const r of results) {
  worst = Math.max(worst, Math.abs(published(r).diff));
  rows.push(
    `${r.layout.padEnd(13)} ${String(r.windowSeconds).padStart(4)} s ${String(r.rate).padStart(4)}/s ` +
      `${(r.memory.bytesPerLight / 1024).toFixed(1).padStart(8)} KB  published ${published(r).kb.toFixed(1).padStart(7)}  ` +
      `${(published(r).diff * 100).toFixed(1).padStart(6)}%`,
  );
}
console.log(`Redis ${report.redis.version} ${report.redis.memAllocator}, swc ${report.swcVersion}\n`);
console.log(rows.join('\n'));
console.log('');
const windows = [...new Set(results.map((r) => r.windowSeconds))];
const growth = (layout: string): number[] => windows.map((w) => cell(layout, w, 100).memory.bytesPerLight / cell(layout, w, 10).memory.bytesPerLight);
const v5 = growth('stoplight-v5');
const v6 = growth('stoplight-v6');
const fmt = (xs: readonly number[]): string => xs.map((x) => `${x.toFixed(2)}×`).join(' ');
const checks = [
  [`every cell within 15% of the published figure (worst ${(worst * 100).toFixed(1)}%)`, worst <= 0.15],
  [`5.x grows about tenfold from 10 to 100 req/s (${fmt(v5)})`, v5.every((g) => g >= 7 && g <= 13)],
  [`6.0 changes by under 5% from 10 to 100 req/s (${fmt(v6)})`, v6.every((g) => Math.abs(g - 1) < 0.05)],
  [`whole preset, memory only, under 15 s (${seconds.toFixed(1)} s including server start)`, seconds < 15],
];
const wall = report.measuringSeconds;
const server = report.serverScriptSeconds;
if (typeof wall === 'number' && typeof server === 'number' && server > 0) {
  console.log(`wall ${wall.toFixed(2)} s | server script time ${server.toFixed(2)} s | ratio ${(wall / server).toFixed(2)}×`);
  checks.push([`wall time at most 1.3× the server's script time (${(wall / server).toFixed(2)}×)`, wall / server <= 1.3]);
}
for (const [text, ok] of checks) console.log(`${ok ? 'PASS' : 'MISS'}  ${text}`);
process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
