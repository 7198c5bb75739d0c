import { describe, expect, it } from 'vitest';
import { screenOf, startInPty } from './pty.js';

const BENCH = ['bench', '--rate', '100', '--window', '300'];
const BAR = /swc bench \[[█░]+\]/;

/** The screen's last lines once swc ended: the cursor's line must be empty, and no line may hold a progress bar. */
function expectCleanEnd(output: string): string[] {
  const { lines, row } = screenOf(output);
  expect(lines[row] ?? '', JSON.stringify(output.slice(-400))).toBe('');
  expect(lines.filter((l) => BAR.test(l))).toEqual([]);
  return lines.slice(0, row).filter((l) => l !== '');
}

// A bench in a pseudo-terminal of 80 columns, stopped while its bar is drawn: the screen a person is left with.
describe.concurrent('a clean screen on every way out (pty, 80 columns)', () => {
  it('Ctrl-C during a bench: the bar is gone, the messages stand on lines of their own, the cursor on an empty line; exit 130', async () => {
    const run = startInPty(BENCH);
    await run.waitFor(/swc bench \[█/);
    run.type('\x03');
    const { code, output } = await run.exited;
    expect(code).toBe(130);
    const shown = expectCleanEnd(output);
    expect(shown.slice(-2)).toEqual(['swc: SIGINT: cleaning up…', 'swc: interrupted']);
  });

  it('a second Ctrl-C during the clean-up: its message on a line of its own, no bar; exit 130', async () => {
    const run = startInPty(BENCH);
    await run.waitFor(/swc bench \[█/);
    run.type('\x03');
    await run.waitFor(/cleaning up…/);
    run.type('\x03');
    const { code, output } = await run.exited;
    expect(code).toBe(130);
    const shown = expectCleanEnd(output);
    expect(shown).toContain('swc: SIGINT: cleaning up…');
    // The clean-up may finish before the second Ctrl-C lands; either way the last line is a message.
    expect(shown.at(-1)).toMatch(/^swc: (interrupted|SIGINT again: stopping now; .*)$/);
  });

  it('SIGTERM during a bench: the bar is gone, the last line a message; exit 143', async () => {
    const run = startInPty(BENCH);
    await run.waitFor(/swc bench \[█/);
    run.kill('SIGTERM');
    const { code, output } = await run.exited;
    expect(code).toBe(143);
    expect(expectCleanEnd(output).slice(-2)).toEqual(['swc: SIGTERM: cleaning up…', 'swc: interrupted']);
  });
});

describe('the screen model the tests read', () => {
  it('a carriage return and erase-line remove a drawn line; text after a newline starts a new one', () => {
    expect(screenOf('abc\r\x1b[Kde\r\nfg')).toEqual({ lines: ['de', 'fg'], row: 1 });
    expect(screenOf('bar 50%\rswc: stopped\n')).toEqual({ lines: ['swc: stopped', ''], row: 1 });
  });
});
