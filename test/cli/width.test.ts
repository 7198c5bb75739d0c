import { describe, expect, it } from 'vitest';
import { redisUrl, withPrivateServer } from '../helpers.js';
import { runCli, type CliResult } from './run-cli.js';

/** Lines longer than `width` columns (every character swc prints is one column wide). */
const over = (text: string, width: number): string[] => text.split('\n').filter((l) => [...l].length > width);

/** `swc bench …` against a redis-server of its own: runs on one server take turns, so these run at once. */
const benchOnOwnServer = (args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> =>
  withPrivateServer({}, (server) => runCli(['bench', '--redis-url', server.url, ...args], env));

describe.concurrent('output fits COLUMNS=80', () => {
  it('swc bench --rate 100 --window 300: no line past 80 columns; the first screen has memory, ratio, cost and what it means', async () => {
    const [r, piped] = await Promise.all([
      benchOnOwnServer(['--rate', '100', '--window', '300', '--rounds', '2', '--ops', '500'], { COLUMNS: '80' }),
      // Without COLUMNS and off a TTY: the 120-column layout (checked below).
      benchOnOwnServer(['--rate', '100', '--window', '300', '--rounds', '1', '--ops', '300', '--no-accuracy'], { COLUMNS: '' }),
    ]);
    expect(r.stderr).not.toMatch(/Error|at .*\.js/);
    expect(r.code).toBe(0);
    expect(over(r.stdout, 80)).toEqual([]);
    expect(over(r.stderr, 80)).toEqual([]);
    const screen = r.stdout.split('\n').slice(0, 24).join('\n');
    expect(screen).toMatch(/stoplight-v5 │ stoplight-v6 │ ratio │ +cost │/);
    // A noisy cost widens its column: then window and req/s (one value each) move into the title.
    expect(screen).toMatch(/│ +(?:5 min +│ +100 │ +)?30,000 │ +\d+\.\d │ +\d+\.\d │ +\d+\.\d+× │ +\d+\.\d+×( noisy)? │/);
    if (!/│ 5 min/.test(screen)) expect(screen).toMatch(/— window 5 min, req\/s 100/);
    expect(screen).toMatch(/What it means: at a 5 min window and 100 req\/s, a stoplight-v6 light takes/);
    // Without COLUMNS and off a TTY: the 120-column layout, with the encodings of each key on one row.
    expect(piped.code).toBe(0);
    expect(over(piped.stdout, 120)).toEqual([]);
    expect(piped.stdout).toMatch(/encoding of each key/);
  });

  it('swc bench --suggest: no line past 80 columns', async () => {
    const r = await benchOnOwnServer(['--suggest', '--window', '30', '--rate', '5', '--rounds', '1', '--ops', '300'], { COLUMNS: '80' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Which layout\? 30 s window at 5 req\/s/);
    expect(over(r.stdout, 80)).toEqual([]);
    expect(over(r.stderr, 80)).toEqual([]);
    // Seven layouts: one row per layout, not a column each.
    expect(r.stdout).toMatch(/│ layout +│ +KB │ +ratio │ +cost │/);
  });

  it('swc doctor and swc verify wrap at COLUMNS=80; off a TTY without COLUMNS a finding stays on one line', async () => {
    const doctor = await runCli(['doctor', '--redis-url', redisUrl()], { COLUMNS: '80' });
    expect(doctor.code).toBe(0);
    expect(over(doctor.stdout, 80)).toEqual([]);
    const args = ['verify', '--redis-url', redisUrl(), '--layout', 'stoplight-v6', '--calls', '300', '--seed', '3', '--no-progress'];
    const [verify, piped] = await Promise.all([runCli(args, { COLUMNS: '80' }), runCli(args, { COLUMNS: '' })]);
    expect(verify.code).toBe(0);
    expect(over(verify.stdout, 80)).toEqual([]);
    // The answer first, the server written to under it, then the layout's line whole.
    expect(piped.stdout.split('\n')[0]).toMatch(/^ok: stoplight-v6 agrees with the model \(300 calls, [\d,]+ replies compared\)$/);
    expect(piped.stdout.split('\n')[1]).toMatch(/^Server: redis:\/\/127\.0\.0\.1:\d+\/0; not measured there: /);
    expect(piped.stdout.split('\n')[2]).toMatch(/^stoplight-v6: 300 calls on 8 lights \(windows .*\), \d+ replies compared, .* s$/);
  });
});
