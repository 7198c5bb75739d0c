import { describe, expect, it } from 'vitest';
import { ownServer } from '../helpers.js';
import type { PrivateServer } from '../../src/redis/server.js';
import type { Redis } from 'ioredis';
import { runInPty, scrolledOff } from './in-pty.js';
import { runCli, startCli } from './run-cli.js';

let server: PrivateServer;
let redis: Redis;
ownServer((s, r) => ([server, redis] = [s, r]));

/** Resolves once `read()` matches `pattern` (the process's own output, never a clock, decides). */
async function until(read: () => string, pattern: RegExp, ended: () => boolean): Promise<void> {
  while (!pattern.test(read())) {
    if (ended()) throw new Error(`ended before ${String(pattern)}:\n${read()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('swc lights --watch', () => {
  it('on a terminal redraws in place: the scrollback does not grow; piped, it prints only the rows that changed', async () => {
    const demo = await runCli(['demo', '--redis-url', server.url, '--write']);
    expect(demo.code, demo.stderr).toBe(0);
    // Each frame ends with ESC [J (clear below). From the end of the first frame to the end of the last, nothing may scroll off.
    const tty = await runInPty(['lights', '--redis-url', server.url, '--watch', '1'], { columns: 80, rows: 30, interruptAfterSeconds: 6 });
    const ends = [...tty.output.matchAll(/\x1b\[J/g)].map((m) => m.index + m[0].length);
    expect(ends.length, tty.output).toBeGreaterThanOrEqual(2);
    const first = scrolledOff(tty.output.slice(0, ends[0]), 80, 30);
    expect(scrolledOff(tty.output.slice(0, ends.at(-1)), 80, 30)).toBe(first);
    expect(tty.output).not.toContain('\x1b[2J');
    // A frame taller than the screen is cut to it, so a redraw never pushes its top into the scrollback.
    const short = await runInPty(['lights', '--redis-url', server.url, '--watch', '1'], { columns: 80, rows: 12, interruptAfterSeconds: 6 });
    const shortEnds = [...short.output.matchAll(/\x1b\[J/g)].map((m) => m.index + m[0].length);
    expect(shortEnds.length, short.output).toBeGreaterThanOrEqual(2);
    expect(scrolledOff(short.output.slice(0, shortEnds.at(-1)), 80, 12)).toBe(scrolledOff(short.output.slice(0, shortEnds[0]), 80, 12));
    expect(short.output).toMatch(/more line\(s\) below the screen/);

    // Piped, at a fixed --at: the first listing whole, then a line per tick and only the rows that changed.
    const at = String(Math.floor(Date.now() / 1000));
    const run = startCli(['lights', '--redis-url', server.url, '--watch', '1', '--at', at]);
    const ended = (): boolean => run.child.exitCode !== null;
    await until(run.stdout, /: no row changed\n/, ended);
    await redis.hset('stoplight:v5:metadata:watch-new-light', 'last_used_at', at);
    await until(run.stdout, /: \d+ row\(s\) changed\n/, ended);
    run.child.kill('SIGINT');
    await run.exited;
    const out = run.stdout();
    const changed = out.slice(out.search(/: \d+ row\(s\) changed\n/));
    const body = changed.split('\n').slice(
      1,
      changed.split('\n').findIndex((l, i) => i > 0 && l.startsWith('---')),
    );
    expect(
      body.some((l) => l.includes('watch-new-light')),
      changed,
    ).toBe(true);
    // Rows that did not change are not printed again.
    expect(
      body.some((l) => l.includes('legacy-pdf')),
      changed,
    ).toBe(false);
    expect(out.match(/┌/g)).toHaveLength(1);
  });
});
