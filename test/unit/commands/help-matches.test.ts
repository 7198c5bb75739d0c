// Help text and one usage error: nothing here needs a process of its own, so
// these run in-process (same program, COLUMNS read the same way; they were
// spawns in test/cli/help-matches.test.ts).
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

const COMMANDS = ['bench', 'chart', 'clean', 'compare', 'doctor', 'inspect', 'lights', 'verify'];

/**
 * The options of a help text, one entry per option (its wrapped description
 * joined), from every option group (`Options:`, or bench's `What to run:`,
 * `Where:`, …): any section whose first item is a flag.
 */
function optionEntries(help: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const section of help.split('\n\n')) {
    const [heading = '', ...lines] = section.split('\n');
    if (!/^[A-Z][^:]*:$/.test(heading) || !/^ {2}-/.test(lines[0] ?? '')) continue;
    let current = '';
    for (const line of lines) {
      const flag = /^ {2}(?:-\w, )?(--[a-z0-9-]+)/.exec(line);
      if (flag) {
        current = flag[1] as string;
        entries.set(current, line.trim());
      } else if (current) entries.set(current, `${entries.get(current)} ${line.trim()}`);
    }
  }
  return entries;
}

describe('help that matches behaviour', () => {
  it("no option of any command states its default twice (its own words and commander's)", async () => {
    for (const command of COMMANDS) {
      const help = (await runInProcess([command, '--help'], { COLUMNS: '200' })).stdout;
      const entries = optionEntries(help);
      expect(entries.size, command).toBeGreaterThan(1);
      for (const [flag, text] of entries) {
        // commander appends "(default: x)" at the end; a description that already says "(default: …)" must not get it again.
        const generated = /\(default: [^()]*\)$/.test(text.trim()) ? 1 : 0;
        const written = text.split('(default').length - 1 - generated;
        expect(generated + (generated > 0 ? written : 0), `${command} ${flag}: ${text}`).toBeLessThanOrEqual(1);
      }
    }
  });

  it('commands that read a running cluster do not offer --cluster-shards, and still refuse it with the reason', async () => {
    for (const command of ['lights', 'inspect', 'clean']) {
      const help = (await runInProcess([command, '--help'])).stdout;
      expect(optionEntries(help).has('--cluster'), command).toBe(true);
      expect(help, command).not.toMatch(/--cluster-shards/);
      const args = command === 'inspect' ? [command, 'some-light', '--cluster-shards', '3'] : [command, '--cluster-shards', '3'];
      const run = await runInProcess(args);
      expect(run.code, command).toBe(2);
      expect(run.stderr).toMatch(/--cluster-shards: .* reads a running cluster/);
    }
    for (const command of ['bench', 'verify'])
      expect(optionEntries((await runInProcess([command, '--help'])).stdout).has('--cluster-shards'), command).toBe(true);
  });

  it('--server-tolerance says what the gate uses: CPU time per call first', async () => {
    for (const command of ['compare', 'bench']) {
      const text = optionEntries((await runInProcess([command, '--help'], { COLUMNS: '200' })).stdout).get('--server-tolerance') ?? '';
      expect(text, command).toMatch(/CPU time per call \(INFO cpu/);
    }
  });

  it('verify --calls shows its default once, in the words of the other defaults', async () => {
    const text = optionEntries((await runInProcess(['verify', '--help'], { COLUMNS: '200' })).stdout).get('--calls');
    expect(text).toMatch(/\(default: 20,000\)$/);
  });
});
