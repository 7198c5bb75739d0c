/** Strings from a baseline or result file never reach the terminal raw: compare (every format) and bench --baseline. */
import { describe, expect, it } from 'vitest';
import { shown } from '../../../src/safety/text.js';
import { redisUrl } from '../../helpers.js';
import { HOSTILE, hostileResults, RAW_CONTROL } from '../../hostile-results.js';
import { runCli, words } from '../run-cli.js';

describe('shown()', () => {
  it('escapes control characters and cuts an over-long value naming its byte count', () => {
    expect(shown(`a${HOSTILE}b`)).toBe('a\\x1b]0;pwned\\x07\\x1b[2J\\x0db');
    const long = 'x'.repeat(8 * 1024 * 1024);
    const cut = shown(long);
    expect(cut.length).toBeLessThan(300);
    expect(cut).toMatch(/… \(8,388,608 bytes\)$/);
  });
});

// One spawned run of each command; compare's refusal, its other formats and
// --json run in-process in test/unit/commands/escape-files.test.ts.
describe('hostile strings in compared files', () => {
  const { baseline, current } = hostileResults();

  it('compare --format table: no raw control character on stdout or stderr, values cut', async () => {
    const result = await runCli(['compare', baseline, current, '--format', 'table']);
    expect([0, 1]).toContain(result.code);
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stdout + result.stderr).toContain('\\x1b]0;pwned\\x07');
    expect(result.stdout.length + result.stderr.length).toBeLessThan(200_000);
  });

  it('swc chart (terminal): labels escaped', async () => {
    const result = await runCli(['chart', baseline, current]);
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
  });

  it('bench --baseline with a hostile baseline: no raw control character', async () => {
    const result = await runCli([
      ...words('bench --layout stoplight-v5 --rate 1 --window 30 --lights 1 --no-throughput --no-progress --no-accuracy --baseline'),
      baseline,
      '--redis-url',
      redisUrl(),
    ]);
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stdout + result.stderr).toMatch(/\\x1b/);
  });
});
