#!/usr/bin/env node
// What the instruction gate of `swc compare` can see on this machine
// (`npm run bench:gate -- --instructions`). Every run is
// `swc bench --instructions` of 5.x and 6.0 (memory, commands and counts, no
// timed phase), each on fresh private servers. One baseline run; then,
// interleaved, `--same` unchanged runs, each compared with the baseline (a
// failure is a false alarm), and `--extra` runs with a copy of lua/ whose
// 6.0 write (record_success.lua) makes three more redis.call('HGET', …),
// each of which must fail on 6.0's write instructions, and compared the
// other way round must report an improvement; then `--shared` runs with a
// copy whose shared clock helper (lua/lib/now.lua) makes one more
// redis.call in every script: every layout slower alike, which each
// layout's own count must catch. The gate's tolerances are compare's
// default (from the runs' spreads: src/compare/tolerances.ts) unless
// `--tolerance <percent>` fixes one. Each line carries the load average it
// ran at. A benchmark (it prints figures), not a test; exit 1 on a false
// alarm, a miss or an improvement not reported.
//
// Usage: npm run bench:gate -- --instructions [--same 20 --extra 20 --shared 3 --rate 10 --window 60 --calls 300 --repeats 3 --tolerance 2]
//        [--save runs.json] [--from runs.json] [--write]
//   --save   keeps every run's result (and its load) in a file
//   --from   judges saved runs again with this build's compare, without running any
//   --write  puts the summary into docs/ci.md (between its `<!-- figure: bench-gate -->` markers)
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
    save: { type: 'string' },
    from: { type: 'string' },
    write: { type: 'boolean', default: false },
  },
});
const bin = fileURLToPath(new URL('../bin/swc.js', import.meta.url));
const source = fileURLToPath(new URL('../lua', import.meta.url));
const { INSTRUCTIONS_SPREAD_FACTOR, INSTRUCTIONS_TOLERANCE_FLOOR } = await import('../dist/compare/tolerances.js');
// compare's default (tolerances from the runs' spreads), unless --tolerance fixes one.
const options = { ...DEFAULT_COMPARE_OPTIONS, ...(values.tolerance !== undefined ? { instructionsTolerance: Number(values.tolerance) / 100 } : {}) };
const load = () => loadavg()[0];
const pct = (f, digits = 2) => `${(f * 100).toFixed(digits)}%`;
const signed = (f) => `${f >= 0 ? '+' : '−'}${pct(Math.abs(f))}`;

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
  return { report: JSON.parse(run.stdout), seconds: (Date.now() - started) / 1000, load: load() };
}

const counts = (report) =>
  report.results
    .map(
      (r) =>
        `${r.layout.replace('stoplight-', '')} w ${Math.round(r.instructions.write.instructionsPerCall).toLocaleString('en-US')} r ${Math.round(r.instructions.read.instructionsPerCall).toLocaleString('en-US')}`,
    )
    .join(', ');
const describe = (verdict) =>
  verdict.failures.length === 0
    ? 'pass'
    : `FAIL ${verdict.failures.map((r) => `${r.layout} ${r.figure} ${r.changeFraction === null ? 'missing' : pct(r.changeFraction, 1)}${r.tolerance ? ` (±${pct(r.tolerance.fraction, 1)})` : ''}`).join(', ')}`;
/** The 6.0 write's own row of a verdict. */
const v6Write = (verdict) => verdict.rows.find((r) => r.layout === 'stoplight-v6' && r.figure === 'writeInstructions');

/** Runs the baseline, the unchanged and planted runs interleaved, then the shared ones; or reads them from --from. */
function collect() {
  if (values.from) return JSON.parse(readFileSync(values.from, 'utf8'));
  const scratch = mkdtempSync(path.join(tmpdir(), 'swc-gate-instructions-'));
  const copyWith = (name, edit) => {
    const dir = path.join(scratch, name);
    cpSync(source, dir, { recursive: true });
    edit(dir);
    return dir;
  };
  try {
    const extraDir = copyWith('extra', (dir) => {
      const file = path.join(dir, 'stoplight-v6', 'record_success.lua');
      // Three cheap commands on a small key, after the script's includes: about 4–5% more instructions per write.
      const planted = "redis.call('HGET', KEYS[1], 'total_successes')\n".repeat(3);
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace(/^(--include[^\n]*\n)+/m, (includes) => `${includes}${planted}`),
      );
    });
    const sharedDir = copyWith('shared', (dir) => {
      const file = path.join(dir, 'lib', 'now.lua');
      // swc_now runs once in every script of every layout: one more redis.call there costs them all.
      writeFileSync(file, readFileSync(file, 'utf8').replace('local function swc_now(arg)\n', "local function swc_now(arg)\n  redis.call('TIME')\n"));
    });
    const runs = [{ kind: 'baseline', ...bench() }];
    console.log(`baseline  load ${runs[0].load.toFixed(1)}  ${counts(runs[0].report)}  (${runs[0].seconds.toFixed(0)} s)`);
    const save = () => values.save && writeFileSync(values.save, JSON.stringify(runs));
    const n = Math.max(Number(values.same), Number(values.extra));
    for (let i = 1; i <= n; i += 1) {
      for (const [kind, limit, dir] of [
        ['same', Number(values.same), undefined],
        ['extra', Number(values.extra), extraDir],
      ]) {
        if (i > limit) continue;
        runs.push({ kind, ...bench(dir) });
        const last = runs.at(-1);
        console.log(`${kind} ${i}`.padEnd(10) + `load ${last.load.toFixed(1)}  ${counts(last.report)}  (${last.seconds.toFixed(0)} s)`);
        save();
      }
    }
    for (let i = 1; i <= Number(values.shared); i += 1) {
      runs.push({ kind: 'shared', ...bench(sharedDir) });
      save();
    }
    return runs;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const runs = collect();
const base = runs.find((r) => r.kind === 'baseline');
const of = (kind) => runs.filter((r) => r.kind === kind);
console.log(
  `\ntolerance ${options.instructionsTolerance !== undefined ? `${pct(options.instructionsTolerance, 1)} (--tolerance)` : `${INSTRUCTIONS_SPREAD_FACTOR} × the larger spread, at least ${pct(INSTRUCTIONS_TOLERANCE_FLOOR, 1)} (compare's default)`}; ` +
    `window ${values.window} s at ${values.rate}/s; ${values.repeats} repeats of ${values.calls} calls per op`,
);
// Per layout and op: the unchanged runs' count over the baseline's, their larger spread, and the tolerance applied.
const moved = new Map();
const note = (key, ratio, row) => {
  const m = moved.get(key) ?? { lo: Infinity, hi: -Infinity, worst: 0, tolLo: Infinity, tolHi: -Infinity, spreadHi: 0 };
  m.lo = Math.min(m.lo, ratio);
  m.hi = Math.max(m.hi, ratio);
  m.worst = Math.max(m.worst, Math.abs(ratio - 1));
  if (row?.tolerance) {
    m.tolLo = Math.min(m.tolLo, row.tolerance.fraction);
    m.tolHi = Math.max(m.tolHi, row.tolerance.fraction);
    m.spreadHi = Math.max(m.spreadHi, row.tolerance.spreadFraction ?? 0);
  }
  moved.set(key, m);
};
let falseAlarms = 0;
// Unchanged runs whose verdict failed on another figure than instructions (commands per call, bytes): named apart.
const otherAlarms = [];
for (const [i, run] of of('same').entries()) {
  const verdict = compareReports(base.report, run.report, options);
  if (verdict.failures.some((r) => r.figure.includes('Instruction'))) falseAlarms += 1;
  const other = verdict.failures.filter((r) => !r.figure.includes('Instruction'));
  if (other.length > 0)
    otherAlarms.push(
      `run ${i + 1}: ${other.map((r) => `${r.layout} ${r.figure} ${r.changeFraction === null ? 'missing' : signed(r.changeFraction)}`).join(', ')}`,
    );
  for (const r of verdict.rows.filter((x) => x.figure.endsWith('Instructions') || x.figure.endsWith('InstructionRatio')))
    if (r.baseline && r.current !== null) note(`${r.layout.replace('stoplight-', '')} ${r.figure}`, r.current / r.baseline, r);
  console.log(`same ${i + 1}`.padEnd(10) + `load ${run.load.toFixed(1)}  ${describe(verdict)}`);
}
let caught = 0;
let improved = 0;
const planted = { lo: Infinity, hi: -Infinity, tolLo: Infinity, tolHi: -Infinity };
for (const [i, run] of of('extra').entries()) {
  const verdict = compareReports(base.report, run.report, options);
  const row = v6Write(verdict);
  if (row?.status === 'regressed') caught += 1;
  if (row?.baseline && row.current !== null) {
    planted.lo = Math.min(planted.lo, row.current / row.baseline - 1);
    planted.hi = Math.max(planted.hi, row.current / row.baseline - 1);
    planted.tolLo = Math.min(planted.tolLo, row.tolerance?.fraction ?? Infinity);
    planted.tolHi = Math.max(planted.tolHi, row.tolerance?.fraction ?? -Infinity);
  }
  const back = compareReports(run.report, base.report, options);
  const better = back.improvements.some((r) => r.layout === 'stoplight-v6' && r.figure === 'writeInstructions');
  if (better) improved += 1;
  console.log(
    `extra ${i + 1}`.padEnd(10) + `load ${run.load.toFixed(1)}  ${describe(verdict)}; reversed: ${better ? 'improvement reported' : 'NO improvement'}`,
  );
}
let sharedCaught = 0;
for (const [i, run] of of('shared').entries()) {
  const verdict = compareReports(base.report, run.report, options);
  const layouts = new Set(verdict.failures.filter((r) => r.figure.endsWith('Instructions')).map((r) => r.layout));
  if (layouts.has('stoplight-v5') && layouts.has('stoplight-v6')) sharedCaught += 1;
  console.log(`shared ${i + 1}`.padEnd(10) + `load ${run.load.toFixed(1)}  ${describe(verdict)}`);
}
const same = of('same').length;
const extra = of('extra').length;
const shared = of('shared').length;
console.log(
  `\nunchanged: ${same - falseAlarms} of ${same} passed the instruction gate; ${otherAlarms.length} failed on another figure${otherAlarms.length > 0 ? ` (${otherAlarms.join('; ')})` : ''}; three extra HGETs in the 6.0 write: ${caught} of ${extra} failed on its write instructions, ` +
    `reversed: improvement reported ${improved} of ${extra}; costlier shared helper: ${sharedCaught} of ${shared} failed on both layouts`,
);

const loads = runs.map((r) => r.load);
const range = (lo, hi, digits = 2) => (lo === hi ? pct(lo, digits) : `${pct(lo, digits).replace('%', '')}–${pct(hi, digits)}`);
const table = [
  '| figure | unchanged runs ÷ baseline | largest move | tolerance applied |',
  '| --- | --- | ---: | --- |',
  ...[...moved.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, m]) => `| ${key} | ${signed(m.lo - 1)} to ${signed(m.hi - 1)} | ${pct(m.worst)} | ±${range(m.tolLo, m.tolHi, 1)} |`),
].join('\n');
const build = `redis-server ${base.report.redis.version} (${base.report.redis.memAllocator})`;
const when = (values.from ? 'saved runs judged again' : 'measured') + ` ${new Date().toISOString().slice(0, 10)}`;
const tolerance =
  options.instructionsTolerance !== undefined
    ? `a fixed ${pct(options.instructionsTolerance, 1)}`
    : `compare's default: ${INSTRUCTIONS_SPREAD_FACTOR} × the larger spread of the two runs' repeats, at least ${pct(INSTRUCTIONS_TOLERANCE_FLOOR, 1)} (a ratio: spreads added, at least ${pct(2 * INSTRUCTIONS_TOLERANCE_FLOOR, 1)})`;
const figure = [
  `**${same - falseAlarms} of ${same}** unchanged runs passed the instruction gate (${falseAlarms} false alarm(s))` +
    `${otherAlarms.length > 0 ? `, though ${otherAlarms.length} failed the whole verdict on another figure (${otherAlarms.join('; ')})` : ', and the whole verdict'}; **${caught} of ${extra}** runs with three extra HGETs in 6.0's write failed on its write instructions ` +
    `(${signed(planted.lo)} to ${signed(planted.hi)} against ±${range(planted.tolLo, planted.tolHi, 1)}); reversed, ${improved} of ${extra} reported an improvement` +
    `${shared > 0 ? `; a costlier shared helper: ${sharedCaught} of ${shared} failed on both layouts` : ''}.`,
  '',
  table,
  '',
  `_${build}, window ${values.window} s at ${values.rate}/s, ${values.repeats} repeats of ${values.calls} calls per op; tolerance ${tolerance}; ` +
    `load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}, runs interleaved; ${when}; regenerated by \`npm run bench:gate -- --instructions --write\`._`,
].join('\n');
console.log(`\n${figure}`);
if (values.write) {
  const file = fileURLToPath(new URL('../docs/ci.md', import.meta.url));
  const text = readFileSync(file, 'utf8');
  const FIGURE = /<!-- figure: bench-gate -->\n[\s\S]*?<!-- \/figure -->/;
  if (!FIGURE.test(text)) throw new Error('docs/ci.md has no <!-- figure: bench-gate --> … <!-- /figure --> section');
  writeFileSync(file, text.replace(FIGURE, `<!-- figure: bench-gate -->\n${figure}\n<!-- /figure -->`));
  console.log('written to docs/ci.md');
}
process.exitCode = falseAlarms === 0 && otherAlarms.length === 0 && caught === extra && improved === extra && sharedCaught === shared ? 0 : 1;
