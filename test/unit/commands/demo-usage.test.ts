import { describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

describe('swc demo: usage', () => {
  it('writes into a server of the user only with --write, and --write only with --redis-url', async () => {
    // One after another: each run captures the process's stdout and stderr.
    const noWrite = await runInProcess(['demo', '--redis-url', 'redis://127.0.0.1:1']);
    const noUrl = await runInProcess(['demo', '--write']);
    const then = await runInProcess(['demo', '--then', 'inspect']);
    const help = await runInProcess(['demo', '--help'], { COLUMNS: '80' });
    expect(noWrite).toMatchObject({ code: 2, stdout: '' });
    expect(noWrite.stderr).toMatch(/--redis-url: .*only with --write/);
    expect(noUrl).toMatchObject({ code: 2 });
    expect(noUrl.stderr).toMatch(/--write: needs --redis-url/);
    expect(then.code).toBe(2);
    expect(then.stderr).toMatch(/--then.*lights/);
    expect(help.code).toBe(0);
    expect(help.stdout.split('\n').filter((line) => line.length > 80)).toEqual([]);
  });
});
