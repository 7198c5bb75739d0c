#!/usr/bin/env node
// How long does `swc` take to start? Times `node -e 0` (the floor: Node
// itself), `node bin/swc.js --version` and `node bin/swc.js inspect --help`,
// interleaved (one of each per round, so a busy moment of the machine falls
// on all three alike), after warm-up rounds; prints each command's median,
// min–max and interquartile range in milliseconds and its median's ratio to
// `node -e 0`. With hyperfine on the PATH (and no --own-timing) hyperfine
// times the three commands instead (one after another, not interleaved).
// A benchmark (it prints figures), not a test; test/cli/startup.test.ts
// guards what loads at start.
//
// Usage: npm run bench:startup [-- --runs 30 --warmup 3 --own-timing --write --against <other bin/swc.js>]
//   --write    also puts the table into docs/benchmarks.md (between its
//              `<!-- figure: startup -->` markers)
//   --against  also times another build's bin/swc.js (an older checkout),
//              in the same rounds, named --against-label in the table
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    'own-timing': { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    against: { type: 'string' },
    'against-label': { type: 'string' },
  },
});
const runs = Number(values.runs);
const warmup = Number(values.warmup);
if (!Number.isInteger(runs) || runs < 15) throw new Error(`--runs: a whole number of at least 15, got "${values.runs}"`);
if (!Number.isInteger(warmup) || warmup < 0) throw new Error(`--warmup: a whole number, got "${values.warmup}"`);

/** The commands, the floor first; `args` go to the node running this script. */
const COMMANDS = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'swc --version', args: ['bin/swc.js', '--version'] },
  { name: 'swc inspect --help', args: ['bin/swc.js', 'inspect', '--help'] },
];
if (values.against !== undefined) {
  const other = path.resolve(values.against);
  const label = values['against-label'] ?? values.against;
  COMMANDS.push(
    { name: `swc --version (${label})`, args: [other, '--version'] },
    { name: `swc inspect --help (${label})`, args: [other, 'inspect', '--help'] },
  );
}

/** Runs one command once and returns its wall time in milliseconds. */
function timeOnce(args) {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return ms;
}

/** Every command's times, interleaved round by round. */
function ownTiming() {
  for (let i = 0; i < warmup; i++) for (const c of COMMANDS) timeOnce(c.args);
  const times = COMMANDS.map(() => []);
  for (let i = 0; i < runs; i++) COMMANDS.forEach((c, j) => times[j].push(timeOnce(c.args)));
  return times;
}

function hasHyperfine() {
  return spawnSync('hyperfine', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Every command's times from hyperfine (its JSON export), in milliseconds. */
function hyperfineTiming() {
  const out = path.join(os.tmpdir(), `swc-startup-${process.pid}.json`);
  const quote = (a) => (/^[\w./-]+$/.test(a) ? a : `'${a}'`);
  const commands = COMMANDS.map((c) => [process.execPath, ...c.args].map(quote).join(' '));
  const run = spawnSync('hyperfine', ['-N', '--warmup', String(warmup), '--runs', String(runs), '--export-json', out, ...commands], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (run.status !== 0) throw new Error(`hyperfine exited ${run.status}`);
  return JSON.parse(readFileSync(out, 'utf8')).results.map((r) => r.times.map((s) => s * 1000));
}

/** The q-quantile of sorted values, interpolated between neighbours. */
function quantile(sorted, q) {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

const useHyperfine = !values['own-timing'] && hasHyperfine();
const times = useHyperfine ? hyperfineTiming() : ownTiming();
const stats = times.map((t) => {
  const sorted = [...t].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), min: sorted[0], max: sorted.at(-1), q1: quantile(sorted, 0.25), q3: quantile(sorted, 0.75) };
});
const floor = stats[0].median;
const ms = (v) => v.toFixed(0);
const rows = COMMANDS.map((c, i) => {
  const s = stats[i];
  return `| \`${c.name}\` | ${ms(s.median)} | ${ms(s.min)}–${ms(s.max)} | ${ms(s.q1)}–${ms(s.q3)} | ${(s.median / floor).toFixed(2)}× |`;
});
const how = useHyperfine ? `hyperfine, ${runs} runs each after ${warmup} warm-up` : `${runs} interleaved rounds after ${warmup} warm-up`;
const load = os.loadavg()[0].toFixed(1);
const table = [`| command | median ms | min–max ms | IQR ms | median / \`node -e 0\` |`, `| --- | ---: | ---: | ---: | ---: |`, ...rows].join('\n');
const caption = `_${how}, Node ${process.version}, ${os.cpus().length} cores, load average ${load} (${new Date().toISOString().slice(0, 10)}; regenerated by \`npm run bench:startup -- --write\`)._`;
process.stdout.write(`${table}\n\n${caption}\n`);

if (values.write) {
  const file = path.join(root, 'docs', 'benchmarks.md');
  const text = readFileSync(file, 'utf8');
  const FIGURE = /<!-- figure: startup -->\n[\s\S]*?<!-- \/figure -->/;
  if (!FIGURE.test(text)) throw new Error('docs/benchmarks.md has no <!-- figure: startup --> … <!-- /figure --> section');
  writeFileSync(file, text.replace(FIGURE, `<!-- figure: startup -->\n${table}\n\n${caption}\n<!-- /figure -->`));
  process.stdout.write('written to docs/benchmarks.md\n');
}
