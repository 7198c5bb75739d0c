import { describe, expect, it } from 'vitest';
import { buildProgram, helpWidth, wrapHelp } from '../../../src/commands/program.js';
import { runInProcess } from '../in-process.js';
import { words } from '../../words.js';

/** Every command's argument list for its help: the program, then each subcommand. */
const helps = [[], ...(await buildProgram()).commands.map((c) => [c.name()])];

/** Lines longer than `width` columns. */
const over = (text: string, width: number): string[] => text.split('\n').filter((l) => [...l].length > width);

describe('help fits and points the right way', () => {
  it('has at least the commands the issue names', () => {
    expect(helps.map((h) => h[0])).toEqual(expect.arrayContaining(['bench', 'chart', 'clean', 'compare', 'doctor', 'inspect', 'lights', 'verify']));
  });

  for (const args of helps) {
    const label = `swc ${[...args, '--help'].join(' ')}`;
    it(`${label}: no line over 80 columns at COLUMNS=80 and piped, none over 100 at COLUMNS=100; no (default: []); no README pointer`, async () => {
      for (const env of [{ COLUMNS: '80' }, { COLUMNS: '' }]) {
        const run = await runInProcess([...args, '--help'], env);
        expect(run.code, label).toBe(0);
        expect(run.stderr, label).toBe('');
        expect(run.stdout, label).toMatch(/^Usage: swc/);
        expect(over(run.stdout, 80), `${label} ${JSON.stringify(env)}`).toEqual([]);
        expect(run.stdout, label).not.toContain('(default: [])');
        // The README's sections moved to docs/: a pointer names the docs file.
        expect(run.stdout, label).not.toMatch(/README/);
      }
      const wide = await runInProcess([...args, '--help'], { COLUMNS: '100' });
      expect(over(wide.stdout, 100), label).toEqual([]);
    });
  }

  it('wraps to a wider terminal: the command list of swc --help takes one line per command at 200 columns', async () => {
    const run = await runInProcess(['--help'], { COLUMNS: '200' });
    expect(run.stdout).toMatch(
      /^ {2}bench +drive synthetic traffic through each layout with an injected clock \(or real traffic with --realtime\); measure memory per light, throughput and latency$/m,
    );
    const narrow = await runInProcess(['--help'], { COLUMNS: '80' });
    expect(narrow.stdout).toMatch(/^ {2}bench +drive synthetic traffic through each layout with\n {32}an injected clock/m);
  });

  it('the help width: COLUMNS, else the terminal, else 80 when piped', () => {
    expect(helpWidth({ COLUMNS: '132' }, { isTTY: true, columns: 90 })).toBe(132);
    expect(helpWidth({}, { isTTY: true, columns: 90 })).toBe(90);
    expect(helpWidth({}, { isTTY: false })).toBe(80);
    expect(helpWidth({ COLUMNS: 'wide' }, {})).toBe(80);
  });

  it('wrapHelp breaks a long line at spaces, keeps its indent plus two, and leaves short lines alone', () => {
    const line = `  swc bench ${'--flag value '.repeat(8).trim()}`;
    const out = wrapHelp(`short\n${line}`, 40).split('\n');
    expect(out[0]).toBe('short');
    expect(out.slice(1).every((l) => l.length <= 40)).toBe(true);
    expect(out[1]).toMatch(/^ {2}swc bench/);
    expect(out.slice(2).every((l) => /^ {4}\S/.test(l))).toBe(true);
    expect(out.slice(1).join(' ').replace(/ +/g, ' ').trim()).toBe(line.trim());
  });

  it('--help wins over a bad flag value given with it (exit 0 and the help, nothing on stderr)', async () => {
    for (const args of [
      ['lights', '--help', '--redis-url', 'x'],
      ['lights', '--redis-url', 'x', '--help'],
      ['bench', '--rate', '0', '-h'],
      ['inspect', '--bogus', '--help'],
    ]) {
      const run = await runInProcess(args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stderr, args.join(' ')).toBe('');
      expect(run.stdout, args.join(' ')).toMatch(new RegExp(`^Usage: swc ${args[0]} `));
    }
    // Without --help the bad value is still exit 2; after `--` a "--help" is an operand, not a request for help.
    expect((await runInProcess(['lights', '--redis-url', 'x'])).code).toBe(2);
    expect((await runInProcess(['chart', '--', '--help'])).stdout).toBe('');
  });
});

describe('typos: commander suggestion and a pointer at the help', () => {
  it('swc bench --rat 100: "(Did you mean --rate?)" and "see swc bench --help", one line, exit 2', async () => {
    const run = await runInProcess(['bench', '--rat', '100']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe("swc: unknown option '--rat' (Did you mean --rate?); see swc bench --help\n");
  });

  it('swc bnech: "(Did you mean bench?)" and "see swc --help", exit 2', async () => {
    const run = await runInProcess(['bnech']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("swc: unknown command 'bnech' (Did you mean bench?); see swc --help\n");
  });

  it('no suggestion when nothing is close; a missing argument points at the help too; a bad value keeps its own line', async () => {
    expect((await runInProcess(['lights', '--zzzzzz'])).stderr).toBe("swc: unknown option '--zzzzzz'; see swc lights --help\n");
    expect((await runInProcess(['chart'])).stderr).toBe("swc: missing required argument 'result'; see swc chart --help\n");
    const bad = await runInProcess(['bench', '--rate', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^swc: --rate: /);
    expect(bad.stderr).not.toMatch(/see swc/);
  });
});

describe('bench groups its options; -h is the short help, --help the full one', () => {
  const headings = (text: string): string[] => text.split('\n').filter((l) => /^[A-Z][A-Za-z ]*:$/.test(l));

  it('--help: every group in order, every option under a named group (none under "Other:"), the help option last', async () => {
    const run = await runInProcess(['bench', '--help'], { COLUMNS: '80' });
    expect(run.code).toBe(0);
    expect(headings(run.stdout)).toEqual([
      'What to run:',
      'What to measure:',
      'Where:',
      'How long:',
      'Output:',
      'Against a baseline:',
      ...words('Safety: Advanced: Help: Examples:'),
    ]);
    const section = (heading: string): string =>
      run.stdout.slice(run.stdout.indexOf(`\n${heading}\n`), run.stdout.indexOf('\n\n', run.stdout.indexOf(`\n${heading}\n`) + 1));
    expect(section('Where:')).toMatch(/^ {2}--redis-url <url>/m);
    expect(section('Safety:')).toMatch(/^ {2}--allow-eviction/m);
    expect(section('Against a baseline:')).toMatch(/^ {2}--baseline <file>/m);
    expect(section('Help:')).toMatch(/^ {2}-h, --help/m);
    // Every flag bench has is shown exactly once.
    const command = (await buildProgram()).commands.find((c) => c.name() === 'bench');
    for (const option of command?.options ?? [])
      expect(run.stdout.split('\n').filter((l) => l.startsWith(`  ${option.flags}  `) || l === `  ${option.flags}`).length, option.flags).toBe(1);
  });

  it('-h: only the common groups, then where the rest is; exit 0, within 80 columns', async () => {
    const run = await runInProcess(['bench', '-h'], { COLUMNS: '80' });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(headings(run.stdout)).toEqual(['What to run:', 'What to measure:', 'Where:', 'How long:', 'Output:']);
    expect(run.stdout).not.toMatch(/^ {2}(--allow-eviction|--baseline|--connections) |^Exit codes/m);
    expect(run.stdout).toMatch(/Every option \(also against a baseline, safety, advanced\), exit codes and\nexamples: swc bench --help\n$/);
    expect(over(run.stdout, 80)).toEqual([]);
    // A command without groups: -h is its whole help, as --help.
    expect((await runInProcess(['lights', '-h'], { COLUMNS: '80' })).stdout).toBe((await runInProcess(['lights', '--help'], { COLUMNS: '80' })).stdout);
  });
});
