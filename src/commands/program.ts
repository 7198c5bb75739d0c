import { Command, CommanderError, Help, Option } from 'commander';
import { reportError, scrub } from './lifecycle.js';
import { ExitCode } from '../core/errors.js';
import { SWC_VERSION } from '../core/version.js';
import { helpWidth, wrapHelp } from '../report/help-text.js';

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
      const message = first.replace(/^error: /, '');
      const suggestion = rest.map((line) => line.trim()).find((line) => /^\(Did you mean /.test(line));
      const pointer = HELPED.test(message) ? `; see ${helpCommandOf(command)}` : '';
      write(`${scrub(`swc: ${message}${suggestion ? ` ${suggestion}` : ''}${pointer}`)}\n`);
    },
  };
}

/** `swc --help` for the program, `swc <command> --help` for a subcommand. */
function helpCommandOf(command: Command): string {
  return command.parent ? `swc ${command.name()} --help` : 'swc --help';
}

/**
 * The groups of a long option list, in the order help shows them: each
 * heading with the flags under it. A flag no group names (one added since)
 * goes under "Other:"; `-h` shows the groups marked short, `--help` all.
 */
interface OptionGroup {
  readonly heading: string;
  readonly short: boolean;
  readonly flags: readonly string[];
}
const OPTION_GROUPS: Readonly<Record<string, readonly OptionGroup[]>> = {
  bench: [
    {
      heading: 'What to run:',
      short: true,
      flags: ['--rate', '--window', '--layout', '--preset', '--lights', '--failure-rate', '--scenario', '--seed', '--realtime', '--suggest', '--sweep'],
    },
    {
      heading: 'What to measure:',
      short: true,
      flags: ['--no-throughput', '--no-commands', '--accuracy', '--no-accuracy', '--threshold', '--no-app-view', '--percentiles'],
    },
    { heading: 'Where:', short: true, flags: ['--redis-url', '--redis-server-arg', '--redis-server', '--cluster', '--cluster-shards', '--scripts'] },
    { heading: 'How long:', short: true, flags: ['--duration', '--ops', '--time', '--rounds', '--dry-run'] },
    {
      heading: 'Output:',
      short: true,
      flags: ['--format', '--json', '--quiet', '--output', '--no-progress', '--wide', '--chart', '--chart-out', '--chart-panels'],
    },
    {
      heading: 'Against a baseline:',
      short: false,
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
    { heading: 'Safety:', short: false, flags: ['--allow-eviction', '--max-ops', '--trust-scripts', '--unconfined-scripts', '--wait-for-runs'] },
    {
      heading: 'Advanced:',
      short: false,
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
  command.addHelpOption(new Option('-h, --help', 'the common options (-h), or every option with exit codes and examples (--help)').helpGroup(HELP_GROUP));
}

/** While true, help shows only the groups marked short (`swc bench -h`). */
let shortHelp = false;

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
    const shown = shortHelp ? new Set(Object.values(OPTION_GROUPS).flatMap((groups) => groups.filter((g) => g.short).map((g) => g.heading))) : undefined;
    return new Map([...found].filter(([heading]) => !shown || shown.has(heading)).sort(([a], [b]) => rank(a) - rank(b)));
  },
  optionDescription(option: Option): string {
    const emptyList = Array.isArray(option.defaultValue) && option.defaultValue.length === 0;
    const shown = emptyList ? Object.assign(Object.create(option) as Option, { defaultValue: undefined }) : option;
    return Help.prototype.optionDescription.call(this, shown);
  },
};

/** Shows `command`'s help when `-h`/`--help` is among the arguments, before any of its flags is parsed (so a bad value cannot hide the help). */
function helpFirst(program: Command, command: Command): void {
  // commander keeps the arguments it was given (node, script, then the user's) but does not type them.
  const args = (program as unknown as { rawArgs: string[] }).rawArgs.slice(2);
  const end = args.indexOf('--');
  const given = end === -1 ? args : args.slice(0, end);
  if (!given.includes('--help') && !given.includes('-h')) return;
  if (given.includes('--help') || !OPTION_GROUPS[command.name()]) command.help();
  // `-h` of a command with option groups: the common ones, and where the rest is.
  shortHelp = true;
  let text: string;
  try {
    text = command.helpInformation();
  } finally {
    shortHelp = false;
  }
  const rest = OPTION_GROUPS[command.name()]?.filter((g) => !g.short).map((g) => g.heading.replace(/:$/, '').toLowerCase()) ?? [];
  process.stdout.write(wrapHelp(`${text}\nEvery option (also ${rest.join(', ')}), exit codes and examples: swc ${command.name()} --help\n`, helpWidth()));
  throw new CommanderError(ExitCode.ok, 'commander.helpDisplayed', '(outputHelp)');
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
    .version(SWC_VERSION, '-V, --version')
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
  for (const command of commands) program.addCommand(command);
  for (const command of program.commands) groupOptions(command);
  for (const command of [program, ...program.commands]) {
    command
      .configureOutput({
        ...outputFor(command),
        writeOut: (text) => process.stdout.write(wrapHelp(text, helpWidth())),
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
