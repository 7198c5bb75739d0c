import { describe, expect, it } from 'vitest';
import { withPrivateServer } from '../helpers.js';
import { runCli } from './run-cli.js';

const lines = (text: string): string[] => text.trimEnd().split('\n');

describe.concurrent('-q: the headline answer in a few lines', () => {
  it('swc bench -q --rate 100 --window 300: at most 6 lines, both layouts’ bytes per light and the ratio', async () => {
    // As the README's first command: a private redis-server swc starts itself. One short throughput round (the README's
    // own run, with its full phases, is test/cli/readme.test.ts's): -q's lines do not depend on the phases' length.
    const r = await runCli(['bench', '-q', '--rate', '100', '--window', '300', '--rounds', '1', '--ops', '300'], { COLUMNS: '80' });
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).length).toBeLessThanOrEqual(6);
    expect(r.stdout).toMatch(
      /^5 min window, 100 req\/s: stoplight-v5 \d+\.\d KB, stoplight-v6 \d+\.\d KB per light; ratio stoplight-v5\/stoplight-v6 \d+\.\d×/m,
    );
    // Off a terminal -q prints no progress line either.
    expect(r.stderr).not.toMatch(/throughput phase/);
  });

  it('swc verify -q and swc lights -q: the verdict line; the total and the largest light', async () => {
    await withPrivateServer({}, async (server) => {
      const verify = await runCli(['verify', '--redis-url', server.url, '--layout', 'stoplight-v6,ring', '--calls', '300', '--seed', '3', '-q']);
      expect(verify.code, verify.stderr).toBe(0);
      expect(lines(verify.stdout)).toEqual([
        expect.stringMatching(/^ok: 2 layouts agree with the model \(600 calls, [\d,]+ replies compared\)$/),
        '  stoplight-v6: ok',
        '  ring: ok',
      ]);
      expect((await runCli(['demo', '--redis-url', server.url, '--write'])).code).toBe(0);
      const lights = await runCli(['lights', '--redis-url', server.url, '-q']);
      expect(lights.code, lights.stderr).toBe(0);
      expect(lines(lights.stdout)).toEqual([
        expect.stringMatching(/^total: 8 lights, \d+ keys, [\d.,]+ KB, [\d,]+ events, 0 with drift$/),
        'states: 2 red, 1 locked red, 1 yellow, 1 locked green, 3 green',
        expect.stringMatching(/^largest: \S+ [\d.,]+ KB$/),
      ]);
    });
  });
});
