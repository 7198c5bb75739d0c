import { Command, CommanderError, Help, Option } from 'commander';
import { reportError, scrub } from './lifecycle.js';
import { ExitCode } from '../core/errors.js';
import { PACKAGE_NAME, SWC_VERSION } from '../core/version.js';
import { PACKAGE_ROOT } from '../core/package-root.js';
import { flowParagraphs, helpWidth, wrapHelp } from '../report/help-text.js';
import { durationUnitProblem, isTimeUnit } from '../run/values.js';

export { helpWidth, wrapHelp };

// The program without the process around it (signal handlers, stdout guards,
// exit), so tests can run a command in-process; src/cli.ts is the entry point.

/** commander's usage errors that the command's help answers: they end with a pointer to it. */
const HELPED = /^(unknown (option|command)|missing required argument|too many arguments|option '.*' argument missing|required option)/;

/**
 * commander's errors in swc's one-line style: `swc: --rate: must be …`
 * rather than `error: option '--rate <list>' argument '0' is invalid. --rate: …`
 * (swc's parsers already name the flag and the accepted range). A usage
 * error keeps commander's suggestion and points at the help:
 * `swc: unknown option '--rat' (Did you mean --rate?); see swc bench --help`.
 */
function outputFor(command: Command): { outputError: (text: string, write: (s: string) => void) => void } {
  return {
    outputError: (text, write) => {
      const [first = '', ...rest] = text.trimEnd().split('\n');
      const invalid = /^error: option '(-[^ ']*)[^']*' argument '(.*?)' is invalid\. (.*)$/.exec(first);
      if (invalid) {
        const [, flag, value, reason] = invalid as unknown as [string, string, string, string];
        write(`${scrub(`swc: ${reason.startsWith(flag) ? reason : `${flag}: got "${value}"; ${reason}`}`)}\n`);
        return;
      }
      const stray = /^error: too many arguments/.test(first) ? strayWord(command) : undefined;
      if (stray?.unit) {
        write(`${scrub(`swc: ${stray.unit}`)}\n`);
        return;
      }
      const message = first.replace(/^error: /, '').replace(/\.$/, '') + (stray ? `: "${stray.word}"${stray.after ? ` (after ${stray.after})` : ''}` : '');
      const suggestion = rest.map((line) => line.trim()).find((line) => /^\(Did you mean /.test(line));
      const pointer = HELPED.test(message) ? `; see ${helpCommandOf(command)}` : '';
      write(`${scrub(`swc: ${message}${suggestion ? ` ${suggestion}` : ''}${pointer}`)}\n`);
    },
  };
}

/**
 * The first word a command did not take (commander's "too many arguments"),
 * the flag and value typed before it, and, when the two make a duration with
 * its unit split off (`--window 5 min`), what is wrong with that unit.
 */
function strayWord(command: Command): { word: string; after?: string; unit?: string } | undefined {
  let root = command;
  while (root.parent) root = root.parent;
  // commander keeps the argv it parsed (undeclared in its types).
  const raw = (root as unknown as { rawArgs: string[] }).rawArgs.slice(2);
  const word = command.args.at(-1);
  if (word === undefined) return undefined;
  const at = raw.lastIndexOf(word);
  const [flag, value] = at >= 2 ? [raw[at - 2] as string, raw[at - 1] as string] : [undefined, undefined];
  if (flag === undefined || value === undefined || !flag.startsWith('--')) return { word };
  // Only a word that is a unit of time: `--rate 100 extra` is a stray word, not a unit.
  const unit = /^\d/.test(value) && isTimeUnit(word) ? durationUnitProblem(flag, `${value} ${word}`) : undefined;
  return { word, after: `${flag} ${value}`, ...(unit !== undefined ? { unit } : {}) };
}

/** `swc --help` for the program, `swc <command> --help` for a subcommand. */
function helpCommandOf(command: Command): string {
  return command.parent ? `swc ${command.name()} --help` : 'swc --help';
}

/**
 * The groups of a long option list, in the order help shows them: each
 * heading with the flags under it. A flag no group names (one added since)
 * goes under "Other:"; `-h` names each group's flags on a line, `--help` describes all.
 */
interface OptionGroup {
  readonly heading: string;
  readonly flags: readonly string[];
}
const OPTION_GROUPS: Readonly<Record<string, readonly OptionGroup[]>> = {
  bench: [
    {
      heading: 'What to run:',
      flags: [
        '--rate',
        '--window',
        '--layout',
        '--client',
        '--limit',
        '--preset',
        '--lights',
        '--failure-rate',
        '--scenario',
        '--seed',
        '--realtime',
        '--suggest',
        '--sweep',
      ],
    },
    {
      heading: 'What to measure:',
      flags: ['--no-throughput', '--no-commands', '--accuracy', '--no-accuracy', '--threshold', '--no-app-view', '--percentiles'],
    },
    { heading: 'Where:', flags: ['--redis-url', '--redis-server-arg', '--redis-server', '--cluster', '--cluster-shards', '--scripts'] },
    { heading: 'How long:', flags: ['--duration', '--ops', '--time', '--rounds', '--dry-run'] },
    { heading: 'Output:', flags: ['--format', '--json', '--quiet', '--output', '--no-progress', '--wide', '--chart', '--chart-out', '--chart-panels'] },
    {
      heading: 'Against a baseline:',
      flags: [
        '--baseline',
        '--memory-tolerance',
        '--throughput-tolerance',
        '--server-tolerance',
        '--instructions-tolerance',
        '--commands-tolerance',
        '--absolute',
      ],
    },
    { heading: 'Safety:', flags: ['--allow-eviction', '--max-ops', '--trust-scripts', '--unconfined-scripts', '--wait-for-runs'] },
    {
      heading: 'Advanced:',
      flags: ['--connections', '--pipeline', '--instructions', '--profile', '--instruction-calls', '--instruction-repeats'],
    },
  ],
};
const OTHER_GROUP = 'Other:';
const HELP_GROUP = 'Help:';

/** Puts each option of `command` under its heading of {@link OPTION_GROUPS}, with `-h`/`--help` last. */
function groupOptions(command: Command): void {
  const groups = OPTION_GROUPS[command.name()];
  if (!groups) return;
  for (const option of command.options) {
    const group = groups.find((g) => g.flags.includes(option.long ?? option.short ?? ''));
    option.helpGroup(group?.heading ?? OTHER_GROUP);
  }
  command.addHelpOption(
    new Option('-h, --help', 'the options by name on one screen (-h), or every option with what it does, exit codes and examples (--help)').helpGroup(
      HELP_GROUP,
    ),
  );
}

/**
 * One help style for every command: wrapped to {@link helpWidth}; the
 * command list without commander's `[options]` (so the descriptions have
 * room to wrap at 80 columns); no `(default: [])` for a repeatable flag.
 */
const helpConfiguration: Partial<Help> = {
  subcommandTerm(cmd: Command): string {
    return Help.prototype.subcommandTerm.call(this, cmd).replace(' [options]', '');
  },
  groupItems<T extends Command | Option>(unsorted: T[], visible: T[], getGroup: (item: T) => string): Map<string, T[]> {
    const base = Help.prototype.groupItems as (this: unknown, u: T[], v: T[], g: (item: T) => string) => Map<string, T[]>;
    const found = base.call(this, unsorted, visible, getGroup);
    const order = [...Object.values(OPTION_GROUPS).flatMap((groups) => groups.map((g) => g.heading)), OTHER_GROUP, HELP_GROUP];
    const rank = (heading: string): number => (order.includes(heading) ? order.indexOf(heading) : -1);
    return new Map([...found].sort(([a], [b]) => rank(a) - rank(b)));
  },
  optionDescription(option: Option): string {
    const emptyList = Array.isArray(option.defaultValue) && option.defaultValue.length === 0;
    const shown = emptyList ? Object.assign(Object.create(option) as Option, { defaultValue: undefined }) : option;
    // Every default written one way: `(default: table)`, as the hand-written ones read, not commander's `(default: "table")`.
    return Help.prototype.optionDescription.call(this, shown).replace(/default: "([^"]*)"/g, 'default: $1');
  },
};

/** Shows `command`'s help when `-h`/`--help` is among the arguments, before any of its flags is parsed (so a bad value cannot hide the help). */
function helpFirst(program: Command, command: Command): void {
  // commander keeps the arguments it was given (node, script, then the user's) but does not type them.
  const args = (program as unknown as { rawArgs: string[] }).rawArgs.slice(2);
  const end = args.indexOf('--');
  const given = end === -1 ? args : args.slice(0, end);
  if (!given.includes('--help') && !given.includes('-h')) return;
  if (given.includes('--help')) command.help();
  process.stdout.write(wrapHelp(shortHelpText(command), helpWidth()));
  throw new CommanderError(ExitCode.ok, 'commander.helpDisplayed', '(outputHelp)');
}

/**
 * `swc <command> -h`: one screen (the start-up test holds it to 40 lines at
 * 80 columns): what the command does, then its options by name, one group a
 * line (what to run, where, how long, output, …), then where the manual is.
 * `--help` is the manual: every option with what it does and its default,
 * exit codes and examples.
 */
function shortHelpText(command: Command): string {
  const options = command.options.filter((o) => !(o as Option & { hidden?: boolean }).hidden && o.long !== '--help');
  const nameOf = (o: Option): string => o.long ?? o.short ?? o.flags;
  const groups: { heading: string; flags: string[] }[] = (OPTION_GROUPS[command.name()] ?? []).map((g) => ({
    heading: g.heading,
    flags: g.flags.filter((f) => options.some((o) => nameOf(o) === f)),
  }));
  const grouped = new Set(groups.flatMap((g) => g.flags));
  const other = options.map(nameOf).filter((f) => !grouped.has(f));
  if (other.length > 0) groups.push({ heading: groups.length > 0 ? OTHER_GROUP : 'Options:', flags: other });
  const args = command.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`)).join(' ');
  return [
    `Usage: swc ${command.name()} [options]${args ? ` ${args}` : ''}`,
    '',
    command.description(),
    '',
    ...groups.filter((g) => g.flags.length > 0).map((g) => `  ${g.heading} ${g.flags.join(', ')}`),
    '',
    `What each option does and its default, exit codes and examples: swc ${command.name()} --help`,
    '',
  ].join('\n');
}

/**
 * Each subcommand's module (src/commands/<verb>.ts), loaded only when the
 * arguments need it: `swc --version` loads none, `swc inspect …` inspect's.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  bench: async () => (await import('./bench.js')).benchCommand(),
  chart: async () => (await import('./chart.js')).chartCommand(),
  clean: async () => (await import('./clean.js')).cleanCommand(),
  compare: async () => (await import('./compare.js')).compareCommand(),
  demo: async () => (await import('./demo.js')).demoCommand(),
  doctor: async () => (await import('./doctor.js')).doctorCommand(),
  inspect: async () => (await import('./inspect.js')).inspectCommand(),
  lights: async () => (await import('./lights.js')).lightsCommand(),
  verify: async () => (await import('./verify.js')).verifyCommand(),
};

/**
 * The subcommands the user's arguments need: the one they name (also as
 * `help <name>`), none for `--version`, else every one (the program's help
 * lists them, and an unknown name gets the nearest as a suggestion).
 */
export function commandsFor(args: readonly string[]): string[] {
  const [first, second] = args;
  if (first === '-V' || first === '--version') return [];
  const named = first === 'help' ? second : first;
  return named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : Object.keys(COMMANDS);
}

/** What `swc --version` says: the package and its version, the Node running it, and the folder swc runs from. */
export function versionFacts(): { name: string; version: string; node: string; path: string } {
  return { name: PACKAGE_NAME, version: SWC_VERSION, node: process.version, path: PACKAGE_ROOT.replace(/\/$/, '') };
}

/**
 * `-V, --version`: one line (`swc 0.1.0 (sliding-window-counters), Node
 * v22.12.0, from /path`), or with `--json` anywhere beside it the same facts
 * as JSON. Written whole, never wrapped like help.
 */
function addVersionOption(program: Command, args: readonly string[]): void {
  const json = args.includes('--json');
  // `swc --json --version` reaches the program's options first: --json is known there only beside --version.
  if (json && (args.includes('--version') || args.includes('-V'))) program.addOption(new Option('--json').hideHelp());
  program.option('-V, --version', "print swc's version, the Node running it and the folder it runs from (--json: as JSON)");
  program.on('option:version', () => {
    const facts = versionFacts();
    process.stdout.write(json ? `${JSON.stringify(facts, null, 2)}\n` : `swc ${facts.version} (${facts.name}), Node ${facts.node}, from ${facts.path}\n`);
    throw new CommanderError(ExitCode.ok, 'commander.version', facts.version);
  });
}

/**
 * `swc inspect --list …` is `swc lights …`: the same listing, so it takes
 * every flag lights takes (`--top`, `--sort`, `--match`, …). `argv` (node,
 * script, then the user's arguments) with `inspect` and `--list` turned into
 * `lights`, and `--layout auto` (inspect's default, lights' without the flag)
 * dropped; any other argv as it is. A light given beside `--list` is then
 * an argument lights does not take: exit 2.
 */
export function inspectListAsLights(argv: readonly string[]): string[] {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  const flags = end === -1 ? args : args.slice(0, end);
  if (args[0] !== 'inspect' || !flags.includes('--list')) return [...argv];
  const out: string[] = [];
  for (let i = 1; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--list' && (end === -1 || i < end)) continue;
    if ((arg === '--layout' && args[i + 1] === 'auto') || arg === '--layout=auto') {
      if (arg === '--layout') i += 1;
      continue;
    }
    out.push(arg);
  }
  return [...argv.slice(0, 2), 'lights', ...out];
}

/** Builds the `swc` program for `argv` (node, script, then the user's arguments), or with every subcommand when none is given. */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const names = argv === undefined ? Object.keys(COMMANDS) : commandsFor(argv.slice(2));
  const commands = await Promise.all(names.map((name) => (COMMANDS[name] as () => Promise<Command>)()));
  const program = new Command('swc')
    .description('Benchmark and inspect sliding-window counters in Redis (Stoplight 5.x vs 6.0 layouts)')
    .exitOverride()
    .addHelpText(
      'after',
      `
Exit codes (every command): 0 ok, 1 a finding (regression, failed check, light
not found, drift with --check), 2 bad usage or input (nothing sent to Redis),
3 runtime failure (Redis unreachable, script error), 130/143 interrupted.

Examples:
  swc bench --rate 100 --window 300
  swc lights --redis-url redis://127.0.0.1:6379 --top 20`,
    );
  addVersionOption(program, argv?.slice(2) ?? []);
  for (const command of commands) program.addCommand(command);
  for (const command of program.commands) groupOptions(command);
  for (const command of [program, ...program.commands]) {
    command
      .configureOutput({
        ...outputFor(command),
        writeOut: (text) => process.stdout.write(wrapHelp(flowParagraphs(text), helpWidth())),
        getOutHelpWidth: () => helpWidth(),
        getErrHelpWidth: () => helpWidth(process.env, process.stderr),
      })
      .configureHelp(helpConfiguration)
      .exitOverride()
      .showHelpAfterError(false);
  }
  program.hook('preSubcommand', async (_program, command) => {
    helpFirst(program, command);
    // Past the help: what the command's flag parsers read loads now (src/commands/layout-parsers.ts).
    await (await import('./layout-parsers.js')).beforeParse(command);
  });
  return program;
}

/**
 * The exit code for an error thrown out of `parseAsync`: help and version are
 * not failures, commander's own errors (already printed as one line) are bad
 * usage, anything else is reported as one line with its own code.
 */
export function parseFailureCode(err: unknown): number {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return ExitCode.ok;
  if (code.startsWith('commander.')) return ExitCode.usage;
  return reportError(err);
}
