import { describe, expect, it } from 'vitest';
import { commonMatch, cursorFraction } from '../../../src/redis/scan.js';
import { LIGHTS, OTHER_KEYS, scanFixture } from '../../cli/lights-scan-shared.js';
import { commandCalls } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';

const fixture = scanFixture();

// The SCAN calls are counted by the server (cmdstat_scan), so lights runs
// in-process here; a signal during the scan and a server that does not answer
// need a process (test/cli/lights-scan.test.ts).
describe('one gentle SCAN pass', () => {
  it(`on ${OTHER_KEYS + 2 * LIGHTS} keys: cmdstat_scan calls ≤ DBSIZE / COUNT + 2, and every light is found`, async () => {
    const { server, redis } = fixture;
    const dbsize = Number(await redis.dbsize());
    await redis.call('CONFIG', 'RESETSTAT');
    // COUNT fixed at 1000 (the default adapts it to a per-call budget: more, cheaper calls).
    const run = await runInProcess(['lights', '--redis-url', server.url, '--json', '--scan-pause', '0', '--scan-count', '1000']);
    expect(run.code, run.stderr).toBe(0);
    const calls = await commandCalls(redis, 'scan');
    const doc = JSON.parse(run.stdout) as { matched: number; scan: { calls: number; match: string; dbsize: number } };
    expect(doc.matched).toBe(LIGHTS);
    expect(doc.scan.match).toBe('[srf@lu]*');
    expect(calls).toBe(doc.scan.calls);
    expect(calls).toBeLessThanOrEqual(Math.floor(dbsize / 1000) + 2);
    // Reported for the record: the figure docs/operator.md quotes.
    console.log(`lights on ${dbsize} keys: ${calls} SCAN calls (bound ${Math.floor(dbsize / 1000) + 2})`);
  });

  it("--layout all reads swc's own designs too, still in one pass", async () => {
    const { server, redis } = fixture;
    await redis.call('CONFIG', 'RESETSTAT');
    const run = await runInProcess(['lights', '--redis-url', server.url, '--json', '--scan-pause', '0', '--scan-count', '1000', '--layout', 'all']);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { patterns: string[] };
    expect(doc.patterns.length).toBeGreaterThan(2);
    expect(await commandCalls(redis, 'scan')).toBeLessThanOrEqual(Math.floor(Number(await redis.dbsize()) / 1000) + 2);
  });

  it('a long scan shows progress on stderr (keys seen of DBSIZE, time left); --no-progress silences it', async () => {
    const { server } = fixture;
    // The same long scan twice (in-process runs take turns), once with --no-progress.
    const [run, quiet] = await Promise.all([
      runInProcess(['lights', '--redis-url', server.url, '--scan-pause', '25', '--scan-count', '1000', '--top', '1']),
      runInProcess(['lights', '--redis-url', server.url, '--scan-pause', '25', '--scan-count', '1000', '--top', '1', '--no-progress']),
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^swc: scanning: ~[\d,]+ of 120,100 keys \(\d+ SCAN calls\)(, about \d+ s left)?$/m);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('--scan-count is range-checked: exit 2, naming the flag and the range', async () => {
    const bads = ['0', '100001', '1.5', 'many'];
    const runs = await Promise.all(bads.map((bad) => runInProcess(['lights', '--redis-url', fixture.server.url, '--scan-count', bad])));
    for (const [i, run] of runs.entries()) {
      expect(run.code, bads[i]).toBe(2);
      expect(run.stderr, bads[i]).toMatch(/^swc: --scan-count: .*\b1 to 100000, got "?/);
    }
  });

  it('the MATCH shared by the patterns, and the cursor read as progress', () => {
    expect(commonMatch(['stoplight:v5:*', 'stoplight:v6:*', 'swc-bench:*'])).toBe('s[tw]*');
    expect(commonMatch(['stoplight:v6:*'])).toBe('stoplight:v6:*');
    expect(commonMatch(['stoplight:v6:*', 'rl:{*}:x'])).toBe('[sr]*');
    expect(commonMatch(['stoplight:v6:*', '*:x'])).toBeNull();
    expect(commonMatch(['a*b:*', 'a*c:*'])).toBe('a*');
    expect(cursorFraction('0', 1000)).toBe(1);
    // Cursor 1 of a 1024-slot table: its reversed bits put it half way.
    expect(cursorFraction('1', 1000)).toBe(0.5);
  });
});
