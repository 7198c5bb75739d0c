/**
 * Third round of bad input, the flags: each is exit 2 with one line naming the
 * flag, before Redis is reached, through the same program and error path as
 * the CLI, in-process. test/cli/safety/input-round3.test.ts keeps a spawned
 * refusal of each other command, the refused files and the private server.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

// Unreachable: exit 2 proves nothing was sent (a connection attempt would be exit 3).
const NOWHERE = ['--redis-url', 'redis://127.0.0.1:1'];

describe('bad input, third round (in-process)', () => {
  it.each([
    ['bench --rate 0x10', ['bench', '--rate', '0x10', ...NOWHERE], /--rate: expected a number .* got "0x10"/],
    ['bench --rate Infinity', ['bench', '--rate', 'Infinity', ...NOWHERE], /--rate: expected a number/],
    ['bench --threshold 1e400', ['bench', '--threshold', '1e400', ...NOWHERE], /--threshold: /],
    ['bench --threshold 99999999999999999999999', ['bench', '--threshold', '99999999999999999999999', ...NOWHERE], /--threshold: must be 0 to 1/],
    ['?db= past INT_MAX', ['lights', '--redis-url', 'redis://127.0.0.1:1?db=99999999999'], /--redis-url: database must be a whole number from 0 to 2147483647/],
  ])('%s', async (_label, args, message) => {
    const result = await runInProcess(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
