/**
 * Strings from compared files never reach the terminal raw, through the same
 * program as the CLI, in-process (compare reads files only). One spawned run of
 * compare, chart and bench --baseline is in test/cli/safety/escape-files.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { hostileResults, RAW_CONTROL } from '../../hostile-results.js';
import { runInProcess } from '../in-process.js';

describe('hostile strings in compared files (in-process)', () => {
  const { baseline, current, otherBuild } = hostileResults();

  it('compare of two builds: the refusal names them escaped', async () => {
    const result = await runInProcess(['compare', baseline, otherBuild]);
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr).toContain('7.2.0\\x1b]0;pwned\\x07');
  });

  it.each(['markdown', 'github'])('compare --format %s: no raw control character on stdout or stderr, values cut', async (format) => {
    const result = await runInProcess(['compare', baseline, current, '--format', format]);
    expect([0, 1]).toContain(result.code);
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stdout + result.stderr).toContain('\\x1b]0;pwned\\x07');
    expect(result.stdout.length + result.stderr.length).toBeLessThan(200_000);
  });

  it('compare --json keeps the exact strings', async () => {
    const result = await runInProcess(['compare', baseline, current, '--json']);
    expect(result.stdout).toContain('\\u001b]0;pwned\\u0007');
  });
});
