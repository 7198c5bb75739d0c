#!/usr/bin/env node
// What the instruction gate of `swc compare` can see on this machine
// (`npm run bench:gate -- --instructions`). Every run is
// `swc bench --instructions` of 5.x and 6.0 (memory and counts, no timed
// phase), each on fresh private servers. One baseline run; then
// `--same` unchanged runs, each compared with the baseline (a failure is a
// false alarm); `--extra` runs with a copy of lua/ whose 6.0 writes make one
// more redis.call (an HGET: about 2% more instructions), each of which must
// fail, and compared the other way round must report an improvement;
// `--shared` runs with a copy whose shared clock helper (lua/lib/now.lua)
// makes one more redis.call in every script: every layout slower alike,
// which each layout's own count must catch. Each line carries the load
// average it ran at. A benchmark (it prints figures), not a test; exit 1 on
// a false alarm, a miss or an improvement not reported.
//
// Usage: npm run bench:gate -- --instructions [--same 20 --extra 20 --shared 3 --rate 10 --window 60 --calls 300 --repeats 3 --tolerance 2]
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareReports, DEFAULT_COMPARE_OPTIONS } from '../dist/index.js';

const { values } = parseArgs({
  options: {
    instructions: { type: 'boolean' },
    same: { type: 'string', default: '20' },
    extra: { type: 'string', default: '20' },
    shared: { type: 'string', default: '3' },
    rate: { type: 'string', default: '10' },
    window: { type: 'string', default: '60' },
    calls: { type: 'string', default: '300' },
    repeats: { type: 'string', default: '3' },
    tolerance: { type: 'string' },
  },
});
const bin = fileURLToPath(new URL('../bin/swc.js', import.meta.url));
const source = fileURLToPath(new URL('../lua', import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'swc-gate-instructions-'));
const { DEFAULT_INSTRUCTIONS_TOLERANCE } = await import('../dist/compare/instructions.js');
const options = {
  ...DEFAULT_COMPARE_OPTIONS,
  instructionsTolerance: values.tolerance !== undefined ? Number(values.tolerance) / 100 : DEFAULT_INSTRUCTIONS_TOLERANCE,
};
const load = () => loadavg()[0].toFixed(1);

function bench(scripts) {
  const args = [
    bin,
    'bench',
    '--layout',
    'stoplight-v5,stoplight-v6',
    '--window',
    values.window,
    '--rate',
    values.rate,
    '--no-throughput',
    '--no-accuracy',
    '--no-progress',
    '--json',
    '--instructions',
    '--instruction-calls',
    values.calls,
    '--instruction-repeats',
    values.repeats,
    ...(scripts ? ['--scripts', scripts] : []),
  ];
  const started = Date.now();
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, REDIS_URL: '' } });
  if (run.status !== 0) throw new Error(`swc bench exited ${run.status}: ${run.stderr}`);
  return { report: JSON.parse(run.stdout), seconds: (Date.now() - started) / 1000 };
}

/** A copy of lua/ with `edit(dir)` applied. */
function copyWith(name, edit) {
  const dir = path.join(scratch, name);
  cpSync(source, dir, { recursive: true });
  edit(dir);
  return dir;
}
const prepend = (file, text) =>
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace(/^(--include[^\n]*\n)+/m, (includes) => `${includes}${text}\n`),
  );

const counts = (report) =>
  report.results
    .map(
      (r) =>
        `${r.layout.replace('stoplight-', '')} w ${Math.round(r.instructions.write.instructionsPerCall).toLocaleString('en-US')} r ${Math.round(r.instructions.read.instructionsPerCall).toLocaleString('en-US')}`,
    )
    .join(', ');
const describe = (verdict) =>
  verdict.failures.length === 0 ? 'pass' : `FAIL ${verdict.failures.map((r) => `${r.layout} ${r.figure} ${(r.change * 100).toFixed(1)}%`).join(', ')}`;

try {
  const extraDir = copyWith('extra', (dir) => {
    for (const op of ['record_success', 'record_failure'])
      prepend(path.join(dir, 'stoplight-v6', `${op}.lua`), "redis.call('HGET', KEYS[1], 'total_successes')");
  });
  const sharedDir = copyWith('shared', (dir) => {
    const file = path.join(dir, 'lib', 'now.lua');
    // swc_now runs once in every script of every layout: one more redis.call there costs them all.
    writeFileSync(file, readFileSync(file, 'utf8').replace('local function swc_now(arg)\n', "local function swc_now(arg)\n  redis.call('TIME')\n"));
  });
  const base = bench();
  console.log(
    `tolerance ${(options.instructionsTolerance * 100).toFixed(1)}%; window ${values.window} s at ${values.rate}/s; ${values.repeats} repeats of ${values.calls} calls per op`,
  );
  console.log(`baseline  load ${load()}  ${counts(base.report)}  (${base.seconds.toFixed(0)} s)`);
  let falseAlarms = 0;
  for (let i = 1; i <= Number(values.same); i += 1) {
    const { report, seconds } = bench();
    const verdict = compareReports(base.report, report, options);
    if (!verdict.ok) falseAlarms += 1;
    console.log(`same ${i}`.padEnd(10) + `load ${load()}  ${counts(report)}  ${describe(verdict)}  (${seconds.toFixed(0)} s)`);
  }
  let caught = 0;
  let improved = 0;
  for (let i = 1; i <= Number(values.extra); i += 1) {
    const { report, seconds } = bench(extraDir);
    const verdict = compareReports(base.report, report, options);
    const named = verdict.failures.some((r) => r.layout === 'stoplight-v6' && r.figure === 'writeInstructions');
    if (named) caught += 1;
    const back = compareReports(report, base.report, options);
    const better = back.improvements.some((r) => r.layout === 'stoplight-v6' && r.figure === 'writeInstructions');
    if (better) improved += 1;
    console.log(
      `extra ${i}`.padEnd(10) +
        `load ${load()}  ${counts(report)}  ${describe(verdict)}; reversed: ${better ? 'improvement reported' : 'NO improvement'}  (${seconds.toFixed(0)} s)`,
    );
  }
  let sharedCaught = 0;
  for (let i = 1; i <= Number(values.shared); i += 1) {
    const { report, seconds } = bench(sharedDir);
    const verdict = compareReports(base.report, report, options);
    const layouts = new Set(verdict.failures.filter((r) => r.figure.endsWith('Instructions')).map((r) => r.layout));
    if (layouts.has('stoplight-v5') && layouts.has('stoplight-v6')) sharedCaught += 1;
    console.log(`shared ${i}`.padEnd(10) + `load ${load()}  ${counts(report)}  ${describe(verdict)}  (${seconds.toFixed(0)} s)`);
  }
  console.log(
    `\nunchanged: ${Number(values.same) - falseAlarms} of ${values.same} passed; one extra redis.call in the 6.0 write: ${caught} of ${values.extra} failed naming it, ` +
      `reversed: improvement reported ${improved} of ${values.extra}; costlier shared helper: ${sharedCaught} of ${values.shared} failed on both layouts`,
  );
  process.exitCode =
    falseAlarms === 0 && caught === Number(values.extra) && improved === Number(values.extra) && sharedCaught === Number(values.shared) ? 0 : 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
