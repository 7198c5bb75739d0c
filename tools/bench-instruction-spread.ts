/**
 * How steady `swc bench --instructions` is from one run to the next
 * (`npm run bench:instruction-spread [-- --runs 5 --window 60 --rate 10 --check --write]`).
 *
 * Runs `swc bench --instructions --json` of 5.x and 6.0 `--runs` times, each on fresh private servers (memory
 * and counts only: no timed phase), and prints, per layout and operation, the instructions per call of every
 * run, their median and their spread across runs ((max − min) / median), beside the spread within each run
 * (its repeats, as the JSON gives it), with the load average per run. The count is of instructions, not time,
 * so the load should not move it; what does (a random run id in key names, hash tables rehashing at other
 * moments, the allocator's state, the first call's script load) shows here as spread. `compare`'s gate takes
 * its tolerance from the runs' own spreads (src/compare/tolerances.ts), never below the spread across runs
 * that `--write` stores in src/compare/instruction-spread.ts (per layout and operation); `--check` exits 1
 * when a figure's spread across runs is over 1%.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './timed-swc.js';

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'swc.js');
const OPS = ['write', 'read', 'request'] as const;
const GOAL = 0.01;

interface Counted {
  redis: { version: string };
  results: { layout: string; instructions?: Record<(typeof OPS)[number], { instructionsPerCall: number; spreadFraction: number }> }[];
}

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name}: a whole number of at least 1, got "${text}"`);
  return value;
}

function main(): number {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '5' },
      window: { type: 'string', default: '60' },
      rate: { type: 'string', default: '10' },
      check: { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
    },
  });
  const runs = positive('runs', values.runs);
  const args = [
    ...['bench', '--instructions', '--layout', 'stoplight-v5,stoplight-v6', '--window', values.window, '--rate', values.rate],
    ...['--no-throughput', '--no-accuracy', '--no-progress', '--json'],
  ];
  /** layout → op → per run: [instructions per call, spread within the run]. */
  const seen = new Map<string, Map<string, [number, number][]>>();
  const loads: string[] = [];
  let redis = '?';
  for (let run = 0; run < runs; run += 1) {
    loads.push(os.loadavg()[0]?.toFixed(1) ?? '?');
    const child = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, REDIS_URL: '' }, maxBuffer: 64 * 1024 * 1024 });
    if (child.status !== 0) {
      process.stderr.write(`bench:instruction-spread: swc ${args.join(' ')} exited ${child.status}\n${child.stderr}`);
      return 3;
    }
    const report = JSON.parse(child.stdout) as Counted;
    redis = report.redis.version;
    for (const r of report.results) {
      if (!r.instructions) continue;
      const byOp = seen.get(r.layout) ?? new Map<string, [number, number][]>();
      seen.set(r.layout, byOp);
      for (const op of OPS) byOp.set(op, [...(byOp.get(op) ?? []), [r.instructions[op].instructionsPerCall, r.instructions[op].spreadFraction]]);
    }
    process.stderr.write(`run ${run + 1}/${runs} done (load ${loads[run]})\n`);
  }
  console.log(
    `swc bench --instructions, ${runs} runs of stoplight-v5 and -v6 at ${values.window} s and ${values.rate}/s; 1-min load average per run: ${loads.join(', ')}`,
  );
  console.log('layout        op       instructions/call per run                       median   across runs  within runs (max)');
  let worst = 0;
  const spreads: Record<string, Record<string, number>> = {};
  for (const [layout, byOp] of seen) {
    for (const [op, list] of byOp) {
      const counts = list.map(([c]) => c);
      const mid = median(counts);
      const across = (Math.max(...counts) - Math.min(...counts)) / mid;
      const within = Math.max(...list.map(([, s]) => s));
      worst = Math.max(worst, across);
      (spreads[layout] ??= {})[op] = across;
      console.log(
        `${layout.padEnd(13)} ${op.padEnd(8)} ${counts
          .map((c) => Math.round(c).toLocaleString('en-US'))
          .join(' ')
          .padEnd(
            46,
          )} ${Math.round(mid).toLocaleString('en-US').padStart(8)}  ${`${(across * 100).toFixed(2)}%`.padStart(11)}  ${`${(within * 100).toFixed(2)}%`.padStart(17)}`,
      );
    }
  }
  console.log(`worst spread across runs: ${(worst * 100).toFixed(2)}% (goal: at most ${GOAL * 100}%)`);
  if (values.write) {
    if (runs < 3) throw new Error('--write: a spread across fewer than 3 runs is not a measurement; use --runs 3 or more');
    writeMeasured(spreads, {
      date: new Date().toISOString().slice(0, 10),
      runs,
      redis,
      load: `${Math.min(...loads.map(Number))}-${Math.max(...loads.map(Number))}`,
    });
  }
  return values.check && worst > GOAL ? 1 : 0;
}

/** Writes src/compare/instruction-spread.ts: the spreads across runs that compare's gate never goes below. */
function writeMeasured(spreads: Record<string, Record<string, number>>, measured: { date: string; runs: number; redis: string; load: string }): void {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'compare', 'instruction-spread.ts');
  const round = (n: number): number => Math.round(n * 1e6) / 1e6;
  const body = Object.entries(spreads)
    .map(([layout, ops]) => `    '${layout}': { ${OPS.map((op) => `${op}: ${round(ops[op] ?? 0)}`).join(', ')} },`)
    .join('\n');
  const text = `/**
 * How far \`swc bench --instructions\` moved from one run to the next on an
 * unchanged build: per layout and operation, (max − min) / median of the
 * instructions per call of several runs, each on fresh private servers
 * (hash and skiplist seeds differ per server start, which the repeats of
 * one run cannot see). Written by \`npm run bench:instruction-spread --
 * --write\` (tools/bench-instruction-spread.ts), not by hand; \`swc compare\`'s
 * instruction gate never allows less than these (src/compare/tolerances.ts
 * measuredSpreadOf).
 */
import type { MeasuredInstructionSpread } from './tolerances.js';

export const MEASURED_INSTRUCTION_SPREAD: MeasuredInstructionSpread = {
  measured: { date: '${measured.date}', runs: ${measured.runs}, redis: '${measured.redis}', load: '${measured.load}' },
  spreads: {
${body}
  },
};
`;
  writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

process.exit(main());
