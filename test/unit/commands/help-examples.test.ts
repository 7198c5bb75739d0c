import { describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

// Help text through the same program as the CLI, in-process (these were spawns
// in test/cli/help.test.ts, which keeps what a real process shows).
/** The subcommands `swc --help` lists (whatever is registered, so a new one is checked too). */
async function subcommands(): Promise<string[]> {
  const help = (await runInProcess(['--help'])).stdout;
  const section = help.slice(help.indexOf('Commands:'));
  return [...section.matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1] as string).filter((name) => name !== 'help');
}

describe('every --help lists exit codes and at least two examples', () => {
  it("swc --help and each subcommand's", async () => {
    const names = await subcommands();
    expect(names).toEqual(expect.arrayContaining(['bench', 'chart', 'compare', 'doctor', 'inspect', 'lights']));
    for (const args of [[], ...names.map((n) => [n])]) {
      const run = await runInProcess([...args, '--help']);
      const label = `swc ${args.join(' ')} --help`;
      expect(run.code, label).toBe(0);
      expect(run.stdout, label).toMatch(/^Exit codes[^\n]*: 0 /m);
      const examples = run.stdout.slice(run.stdout.indexOf('\nExamples:'));
      expect(run.stdout.includes('\nExamples:'), label).toBe(true);
      expect(examples.split('\n').filter((l) => l.startsWith('  swc ')).length, label).toBeGreaterThanOrEqual(2);
    }
  });
});
