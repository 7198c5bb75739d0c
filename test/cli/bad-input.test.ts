import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// The rest of the bad-input cases run in-process: test/unit/commands/bad-input.test.ts.
describe('bad input that only redis-server can judge', () => {
  it('swc doctor --redis-server-arg no-such-directive=1: exit 2, one line naming --redis-server-arg, the server gone', async () => {
    const result = await runCli(['doctor', '--redis-server-arg', 'no-such-directive=1']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^swc: --redis-server-arg/);
    expect(result.stderr).not.toMatch(/\n\s+at |Error:/);
  });
});
