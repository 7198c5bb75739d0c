import { describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

// swc lights' usage errors through the same program and error path as the
// CLI, in-process; test/cli/lights.test.ts keeps one spawn of them.
describe('swc lights: bad usage', () => {
  it.each([
    [['--top', '0'], '--top: must be 1 to 10000000'],
    [['--sort', 'size'], '--sort'],
    [['--match', 'a[b'], '--match: unclosed [ in "a[b"'],
    [['--window', '0'], '--window: must be from 1 s to 604800 s'],
    [['--format', 'xml'], '--format'],
    [['--at', 'soon'], '--at: expected Unix seconds'],
    [['--forecast', 'stoplight-v7'], '--forecast: expected one of stoplight-v5, stoplight-v6'],
    [['--forecast', 'stoplight-v6', '--forecast-sample', '0'], '--forecast-sample: must be 1 to 100000'],
    [['--forecast-events', '10'], '--forecast-sample/--forecast-events: only with --forecast <layout>'],
    [['--forecast', 'stoplight-v6', '--watch', '5'], '--forecast: replays once; drop --watch'],
    [['--state', 'red,purple'], '--state: expected a comma-separated list of red, yellow, locked red, locked green, green; got "purple"'],
  ])('rejects %j with one line and exit 2, before connecting', async (flags, message) => {
    // Port 1 would refuse: exit 2 (not 3) shows Redis was never contacted.
    const run = await runInProcess(['lights', '--redis-url', 'redis://127.0.0.1:1', ...flags]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});
