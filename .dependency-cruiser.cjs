// Folder rules of docs/architecture.md: imports only go down, and folders form no cycle.
//
//   cli         src/cli.ts, src/commands/
//   use cases   src/bench/ src/inspect/ src/verify/ src/compare/ src/doctor/ src/demo/ src/clean/  (and report/, beside them)
//   run         src/run/: the one guarded run, the run's namespace, the clean-up of its keys, the refusals
//   report      src/report/: pure rendering, importing result types only; no use case imports it at run time
//   safety      src/safety/: what keeps a run from harming a shared server (the probe, the run's ACL
//               user, the names of a run's keys, terminal-safe text, writes that follow no link)
//   measure     src/measure/
//   layouts     src/layouts/, src/clients/ (rate-limiter packages driven through their own calls)
//   base        src/redis/ src/lua/ src/traffic/ src/model/
//   core        src/core/, src/schemas/ (the --json contract)
//
// A known violation that needs the larger redesign is allowed by name in
// KNOWN below, with the reason; the rule itself stays as strict as designed.

const CLI = '^src/(cli\\.ts|commands/)';
const USE_CASES = '^src/(bench|inspect|verify|compare|doctor|demo|clean)/';
const RUN = '^src/run/';
const REPORT = '^src/report/';
const SAFETY = '^src/safety/';
const MEASURE = '^src/measure/';
const LAYOUTS = '^src/(layouts|clients)/';
const BASE = '^src/(redis|lua|traffic|model)/';
const CORE = '^src/(core|schemas)/';

/** Each layer and the layers above it, which it must not import. */
const ABOVE = {
  usecases: [CLI],
  // report/ sits beside the use cases and reads their result types; report-imports-only-types keeps it to types.
  report: [CLI],
  // run/ is what every use case that reaches a server goes through: the guarded run, its namespace and clean-up.
  run: [CLI, USE_CASES, REPORT],
  // safety/ is called by the guarded run (and by the CLI for its flags).
  safety: [CLI, USE_CASES, REPORT, RUN],
  measure: [CLI, USE_CASES, REPORT, RUN, SAFETY],
  layouts: [CLI, USE_CASES, REPORT, RUN, SAFETY, MEASURE],
  base: [CLI, USE_CASES, REPORT, RUN, SAFETY, MEASURE, LAYOUTS],
  core: [CLI, USE_CASES, REPORT, RUN, SAFETY, MEASURE, LAYOUTS, BASE],
};

/**
 * Known violations: [from, to, why]. Each needs a change beyond this step
 * (see docs/architecture.md, "Next steps"); remove the entry with the fix.
 */
const KNOWN = [];

/** Known run-time imports out of report/: [from, to, why]. */
const KNOWN_REPORT_RUNTIME = [
  // A report file written before swc stored encodingHints gets them computed
  // while rendering; the loader (with the results schema) should fill them in.
  ['^src/report/encoding-hints\\.ts$', '^src/measure/encoding-advice\\.ts$', 'hints of an old report are computed while rendering'],
  // The compare verdict's figure predicates, tolerances and per-key-role change texts live with
  // the comparison today; they move to core/ with the one JSON contract (docs/architecture.md).
  ['^src/report/compare\\.ts$', '^src/compare/(diff|instructions|memory-detail)\\.ts$', 'verdict wording sits with the comparison'],
];

/**
 * The rule that `from` (a layer's path pattern) must not import `above`, less
 * the KNOWN edges out of it: one rule for the layer without the files that
 * have a known edge, and one per such file allowing exactly that edge.
 */
function layerRules(layer, from, above, extra = {}) {
  const known = KNOWN.filter(([file]) => new RegExp(from).test(file.replace(/^\^|\\|\$$/g, '')));
  const rule = (name, fromSpec, toSpec) => ({
    name,
    severity: 'error',
    comment: `${layer} must not import a layer above it.`,
    from: fromSpec,
    to: { ...toSpec, ...extra },
  });
  return [
    rule(`${layer}-imports-only-down`, { path: from, pathNot: known.map(([file]) => file) }, { path: above }),
    ...known.map(([file, to, why]) => rule(`${layer}-imports-only-down (known: ${why})`, { path: file }, { path: above, pathNot: [to] })),
  ];
}

/**
 * src/commands/ holds the program (the registry of commands, which loads each
 * one), the CLI helpers and the commands, each command a file with the folder
 * of its name (bench.ts and bench/). A file there that is in none of the three
 * lists fails `commands-are-listed`, so a new command comes under the rules.
 */
const PROGRAM = 'program';
const CLI_HELPERS = [
  'options', // connection, cluster and output flags, --json, colour
  'lifecycle', // actions, errors, shutdown
  'cluster-read', // reading a cluster's nodes
  'listing', // listing lights
  'chart-panels', // --chart-panels
  'chart-output', // charts written to a file or drawn for the terminal
  'compare-options', // the tolerance flags
  'verdict', // a comparison's verdict printed
  'output-files', // --output, --chart-out, --out
  'builds', // --builds
  'layout-parsers', // what --layout and --scripts parse with
  'rdb-target', // --rdb: a snapshot on a private server
  'server-read', // the server a reading command names first
];
/**
 * The only modules of src/redis/ a command may import: what parses or
 * shows a flag's value, none of which opens a connection. Everything that
 * reaches a server goes through the one door, src/run/open.ts (openTarget).
 */
const CLI_REDIS_ALLOWED = [
  ['url', 'a --redis-url value checked, and secrets redacted from what is printed'],
  ['server-settings', '--redis-server-arg checked, and the range of --cluster-shards'],
  ['errors', 'lifecycle turns a Redis error into its one line and exit code'],
  ['scan', 'the ranges of --scan-count and the default of --scan-pause'],
];
const COMMANDS = ['bench', 'chart', 'clean', 'compare', 'demo', 'doctor', 'inspect', 'lights', 'verify'];

const anyOf = (names) => `(${names.join('|')})`;
/** A command's file and the folder of its name. */
const commandPath = (name) => `^src/commands/${name}(\\.ts$|/)`;

/**
 * One rule per command: it imports no other command's file or folder (what two
 * commands share lives in a helper), and a helper imports no command.
 */
function commandRules() {
  const names = COMMANDS;
  return [
    {
      name: 'commands-are-listed',
      severity: 'error',
      comment: 'Every file in src/commands/ is the program, a CLI helper or a command (.dependency-cruiser.cjs lists them), so the rules below cover it.',
      from: { path: '^src/commands/[^/]+\\.ts$', pathNot: [`^src/commands/${anyOf([PROGRAM, ...CLI_HELPERS, ...COMMANDS])}\\.ts$`] },
      to: {},
    },
    ...names.map((name) => ({
      name: `command-${name}-imports-no-other-command`,
      severity: 'error',
      comment: `A command is flags, one use-case call and its rendering; what ${name} shares with another command lives in a CLI helper (${CLI_HELPERS.join(', ')}).`,
      from: { path: commandPath(name) },
      to: { path: names.filter((other) => other !== name).map(commandPath) },
    })),
    {
      name: 'commands-open-no-connection',
      severity: 'error',
      comment: `The CLI parses and prints: it reaches Redis only through src/run/ (openTarget, the guarded run), never src/redis/ itself, except ${CLI_REDIS_ALLOWED.map(([f, why]) => `redis/${f}.ts (${why})`).join('; ')}.`,
      from: { path: CLI },
      to: { path: '^src/redis/', pathNot: CLI_REDIS_ALLOWED.map(([file]) => `^src/redis/${file}\\.ts$`) },
    },
    {
      name: 'cli-helpers-import-no-command',
      severity: 'error',
      comment: 'A CLI helper serves every command; it imports none of them.',
      from: { path: `^src/commands/(${CLI_HELPERS.join('|')})\\.ts$` },
      to: { path: names.map(commandPath) },
    },
  ];
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle means two modules are one; the import graph has none today and stays so.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment:
        'Folders form no cycle either: with scope folder, dependency-cruiser derives one edge per pair of folders that have an import between them, and a cycle of those edges fails, even where each module-level edge goes one way (e.g. redis/a.ts -> lua/b.ts and lua/c.ts -> redis/d.ts).',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...layerRules('usecases', USE_CASES, ABOVE.usecases),
    ...layerRules('report', REPORT, ABOVE.report),
    ...layerRules('run', RUN, ABOVE.run),
    ...layerRules('safety', SAFETY, ABOVE.safety),
    ...layerRules('measure', MEASURE, ABOVE.measure),
    ...layerRules('layouts', LAYOUTS, ABOVE.layouts),
    ...layerRules('base', BASE, ABOVE.base),
    ...layerRules('core', CORE, ABOVE.core),
    {
      name: 'base-peers-stay-apart',
      severity: 'error',
      comment: 'traffic and model are pure: they reach no server and load no script.',
      from: { path: '^src/(traffic|model)/' },
      to: { path: '^src/(redis|lua)/' },
    },
    {
      name: 'use-cases-do-not-render',
      severity: 'error',
      comment: 'A use case returns data; the CLI renders it with report/. Result types may be shared, run-time code not.',
      from: { path: USE_CASES },
      to: { path: REPORT, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'report-imports-only-types',
      severity: 'error',
      comment: 'report/ renders results: at run time it imports only report/, core and its rendering libraries.',
      from: { path: REPORT, pathNot: KNOWN_REPORT_RUNTIME.map(([file]) => file) },
      to: { path: '^src/', pathNot: [REPORT, CORE], dependencyTypesNot: ['type-only'] },
    },
    ...KNOWN_REPORT_RUNTIME.map(([file, to, why]) => ({
      name: `report-imports-only-types (known: ${why})`,
      severity: 'error',
      comment: 'report/ renders results: at run time it imports only report/, core and its rendering libraries.',
      from: { path: file },
      to: { path: '^src/', pathNot: [REPORT, CORE, to], dependencyTypesNot: ['type-only'] },
    })),
    ...commandRules(),
    {
      name: 'library-not-cli',
      severity: 'error',
      comment: 'The library API (src/index.ts) is what the CLI calls, never the CLI itself.',
      from: { path: '^src/index\\.ts$' },
      to: { path: CLI },
    },
    {
      name: 'no-terminal-libraries-below-cli',
      severity: 'error',
      comment: 'Only the CLI and report/ style output; library code returns data.',
      from: { path: '^src/', pathNot: [CLI, REPORT] },
      to: { path: 'node_modules/(chalk|cli-table3)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
