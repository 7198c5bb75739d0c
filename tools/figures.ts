/**
 * Where every figure of README.md and docs/*.md comes from.
 *
 * A measured figure lives in a `<!-- figure: <id> -->…<!-- /figure -->`
 * block (or an `<!-- example -->` block of README.md or docs/tour.md); its id is registered here,
 * one line, with the command that measures it and writes the block.
 * `npm run docs:figures` runs the cheap ones, `-- --only <id>` one of them,
 * `-- --all` the slow ones too. test/unit/docs/figures.test.ts fails on a
 * block whose id is not here, on an id here with no block, and on a
 * measurement-like number in prose outside a block (tools/figure-blocks.ts
 * states the rule; DEFINITIONS below are the numbers that only look like
 * one).
 */

export interface FigureSource {
  /** The block's id, as in `<!-- figure: <id> -->`. */
  readonly id: string;
  /** The document holding the block. */
  readonly doc: string;
  /** The command that measures the figure and writes the block (run from the repository's root). */
  readonly command: string;
  /** Longer than a few seconds (a benchmark): `npm run docs:figures` runs it only with --all or --only. */
  readonly slow?: boolean;
}

// One line per figure (prettier keeps them so).
// prettier-ignore
export const FIGURES: readonly FigureSource[] = [
  { id: 'first-commands', doc: 'README.md', command: 'tsx tools/readme-examples.ts' },
  { id: 'startup', doc: 'docs/benchmarks.md', command: 'node scripts/bench-startup.mjs --write', slow: true },
  { id: 'lights-vs-memkeys', doc: 'docs/operator.md', command: 'tsx tools/bench-scan.ts --write', slow: true },
  { id: 'blog-preset', doc: 'docs/bench.md', command: 'tsx tools/figure-command.ts docs/bench.md blog-preset --to Commands bench --preset blog --no-throughput --format markdown --no-progress', slow: true },
  { id: 'throughput', doc: 'docs/bench.md', command: 'tsx tools/figure-command.ts docs/bench.md throughput --from Engine --to Commands bench --rate 10,100 --window 300 --format markdown --no-accuracy --no-progress', slow: true },
  { id: 'which-layout', doc: 'docs/bench.md', command: 'tsx tools/figure-command.ts docs/bench.md which-layout --from Which --to _Rule bench --suggest --window 5m --rate 100 --no-throughput --format markdown --no-progress', slow: true },
  { id: 'blog-chart', doc: 'docs/bench.md', command: 'tsx tools/figure-chart.ts', slow: true },
  { id: 'layouts-all', doc: 'docs/layouts.md', command: 'tsx tools/figure-command.ts docs/layouts.md layouts-all --to Commands bench --preset blog --no-throughput --format markdown --layout all --no-progress', slow: true },
  { id: 'lights-states', doc: 'docs/operator.md', command: 'tsx tools/figure-states.ts' },
  { id: 'inspect-states', doc: 'docs/inspect.md', command: 'tsx tools/figure-states.ts' },
  { id: 'lights-states-v6', doc: 'docs/operator.md', command: 'tsx tools/figure-states.ts' },
  { id: 'inspect-recovery', doc: 'docs/inspect.md', command: 'tsx tools/figure-states.ts' },
  { id: 'bench-gate', doc: 'docs/ci.md', command: 'node scripts/bench-gate-instructions.mjs --write', slow: true },
  { id: 'lights-forecast', doc: 'docs/inspect.md', command: 'tsx tools/forecast-figure.ts --write', slow: true },
  { id: 'rdb-vs-live', doc: 'docs/operator.md', command: 'tsx tools/bench-rdb.ts --write-docs', slow: true },
  { id: 'test-time', doc: 'README.md', command: 'tsx tools/figure-test-time.ts', slow: true },
  { id: 'builds-blog', doc: 'docs/builds.md', command: 'tsx tools/figure-builds.ts', slow: true },
  { id: 'clients-ttl', doc: 'docs/clients.md', command: 'tsx tools/figure-command.ts docs/clients.md clients-ttl --to Commands bench --client all --rate 10 --layout ring,sliding-log --format markdown --no-progress', slow: true },
];

/**
 * Numbers in prose that look like a measurement and are not one: a
 * default, a bound, an input, a figure of a format. `says` is the number and
 * unit as written; every occurrence of it in `doc` is allowed.
 */
export interface Definition {
  readonly doc: string;
  readonly says: string;
  readonly reason: string;
}

export const DEFINITIONS: readonly Definition[] = [
  { doc: 'docs/operator.md', says: '16 ×', reason: "the --rdb bound's bytes per table slot of a hash or sorted set, a constant of src/inspect/rdb-bound.ts" },
  { doc: 'docs/operator.md', says: '64 ×', reason: "the --rdb bound's bytes per √n of a skiplist, a constant of src/inspect/rdb-bound.ts" },
  { doc: 'docs/bench.md', says: '10%', reason: 'how far under the bound the preset cells aim (a constant of steady-lights.ts)' },
  { doc: 'docs/bench.md', says: '0.08%', reason: "the steady preset's target spread (PRESET_STEADY_LIGHTS.relativeSd)" },
  { doc: 'docs/bench.md', says: '11 bytes', reason: 'SKIPLIST_NODE_SD_BYTES, a constant of steady-lights.ts' },
  { doc: 'docs/bench.md', says: '165 B', reason: "the preflight's bound per 5.x event (layouts/footprint.ts)" },
  { doc: 'docs/bench.md', says: '380 B', reason: "the preflight's bound per 6.0 window-second (layouts/footprint.ts)" },
  { doc: 'docs/bench.md', says: '250 ms', reason: "tinybench's time per layout, a setting" },
  { doc: 'docs/bench.md', says: '10 s', reason: 'the default of --wait-for-runs' },
  { doc: 'docs/bench.md', says: '109 bytes', reason: 'an example of what the encoding hint says' },
  { doc: 'docs/bench.md', says: '144 bytes', reason: 'an example of what the encoding hint says' },
  { doc: 'docs/builds.md', says: '16 MB', reason: "a user's key in the case, an input" },
  { doc: 'docs/builds.md', says: '2 ms', reason: "the settle wait's step, a setting" },
  { doc: 'docs/benchmarks.md', says: '0.1 s', reason: 'the time per round, a setting' },
  { doc: 'docs/ci.md', says: '1.5 ×', reason: 'INSTRUCTIONS_SPREAD_FACTOR, a constant of compare/tolerances.ts' },
  { doc: 'docs/ci.md', says: '2%', reason: 'the former instruction tolerance, a constant for results without repeats' },
  { doc: 'docs/operator.md', says: '0.5 s', reason: "the span of the --max-ops test's samples of the server's counters, a setting" },
  { doc: 'docs/reliability.md', says: '250 ms', reason: 'UNTRUSTED_CALL_BUDGET_MS, the per-call time budget of untrusted scripts' },
  { doc: 'docs/reliability.md', says: '1 MB', reason: 'UNTRUSTED_MEMORY_MARGIN_BYTES, the margin under maxmemory that stops untrusted scripts' },
  { doc: 'docs/reliability.md', says: '0.5 s', reason: "the span of the --max-ops test's samples of the server's counters, a setting" },
  { doc: 'docs/ci.md', says: '1%', reason: "the memory gate's default tolerance" },
  { doc: 'docs/ci.md', says: '1 s', reason: "the lower end of a scenario field's accepted range" },
  { doc: 'docs/inspect.md', says: '1024 bytes', reason: 'what KB means' },
  { doc: 'docs/inspect.md', says: '8 MB', reason: 'an example size' },
  { doc: 'docs/layouts.md', says: '50%', reason: 'the failure rate of the traffic, an input' },
  { doc: 'docs/operator.md', says: '0–100%', reason: "the fail-rate line's fixed scale" },
  { doc: 'docs/operator.md', says: '80%', reason: "the example burst's failure share, an input" },
  { doc: 'docs/output.md', says: '1 KB', reason: 'what KB means' },
  { doc: 'docs/output.md', says: '30 µs', reason: 'a constant of src/bench/estimate.ts' },
  { doc: 'docs/output.md', says: '15 µs', reason: 'a constant of src/bench/estimate.ts (FILL_SECONDS_PER_EVENT)' },
  { doc: 'docs/output.md', says: '20 µs', reason: 'a constant of src/bench/estimate.ts (ACCURACY_BESIDE_SECONDS_PER_EVENT)' },
  { doc: 'docs/output.md', says: '0.7 s', reason: 'a constant of src/bench/estimate.ts (SERVER_START_SECONDS)' },
  { doc: 'docs/output.md', says: '6 s', reason: 'a constant of src/bench/estimate.ts' },
  { doc: 'docs/output.md', says: '1 s', reason: 'a constant of src/bench/estimate.ts' },
  { doc: 'docs/output.md', says: '1 ms', reason: 'a constant of src/bench/estimate.ts' },
  { doc: 'docs/output.md', says: '2.4 ms', reason: 'a constant of src/bench/estimate.ts' },
  { doc: 'docs/reliability.md', says: '4 s', reason: "the clean-up's BUSY retry bound after a signal" },
  { doc: 'docs/reliability.md', says: '12 ×', reason: "packed's size formula" },
  { doc: 'docs/reliability.md', says: '25%', reason: "a gate rule's tolerance" },
  { doc: 'docs/reliability.md', says: '50%', reason: "a gate rule's tolerance" },
  { doc: 'docs/reliability.md', says: '5 s', reason: "a test's bound" },
  { doc: 'docs/reliability.md', says: '8 s', reason: 'the signal bound' },
  { doc: 'docs/reliability.md', says: '10 s', reason: 'the reply timeout' },
  { doc: 'docs/reliability.md', says: '100 ×', reason: 'connections × pipeline, an input' },
  {
    doc: 'docs/reliability.md',
    says: '30 s',
    reason: 'the bound test/cli/safety/manifest-bounds.test.ts asserts on the 4 MB accuracy-phase read (toBeLessThan(30_000))',
  },
  { doc: 'docs/reliability.md', says: '8 MB', reason: "the size of test/cli/safety/inspect-huge-value.test.ts' last_error_json (HUGE = 8 MiB), an input" },
  {
    doc: 'docs/reliability.md',
    says: '300 ×',
    reason: 'the --max-ops value of test/cli/bench-shared.test.ts, an input of the bound 1.2 × cap × 0.5 s it asserts',
  },
  { doc: 'docs/instructions.md', says: '1.5 ×', reason: 'INSTRUCTIONS_SPREAD_FACTOR, a constant of compare/tolerances.ts' },
  { doc: 'docs/verify.md', says: '1 s', reason: "the shortest of verify's windows" },
];

/**
 * Measured figures still in prose with no script behind them, counted per
 * document. A count may only go down: a new figure goes in a block, and a
 * document that reaches 0 leaves this list. Each is a figure to move into a
 * block written by a script, or to drop.
 */
export const UNSOURCED: Readonly<Record<string, number>> = {
  'docs/ci.md': 0,
};
