/**
 * swc's own servers killed under a bench (#29): the run's private server
 * (`killpriv`) and the accuracy lane's second one. Each ends the run with
 * exit 3 and exactly one line on stderr naming what died; the lane's death
 * used to go unnoticed until the next cell reached the lane (30 s or more).
 */
import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startCli } from '../run-cli.js';

/** The redis-server children of `pid`, oldest first (the run's own server, then the accuracy lane's). */
function serversOf(pid: number): number[] {
  try {
    const out = execFileSync('ps', ['-o', 'pid=,comm=', '--sort=start_time', '--ppid', String(pid)], { encoding: 'utf8' });
    return out
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(([, comm]) => comm === 'redis-server')
      .map(([p]) => Number(p));
  } catch {
    return [];
  }
}

/** The `--port` a redis-server process was started with. */
function portOf(pid: number): number {
  const args = execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
  return Number(/--port (\d+)/.exec(args)?.[1] ?? /:(\d+)/.exec(args)?.[1]);
}

/**
 * Waits until `pid` has two redis-server children and swc holds a connection
 * to the second (the lane opened: the run is measuring). A kill before swc's
 * start-up PING is answered is a lane that never started, which swc reports
 * as a warning and runs without: not the case under test.
 */
async function bothServers(pid: number): Promise<number[]> {
  for (;;) {
    const servers = serversOf(pid);
    if (servers.length >= 2) {
      const probe = new Redis({ port: portOf(servers[1] as number), host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      try {
        await probe.connect();
        const info = await probe.info('clients');
        if (Number(/connected_clients:(\d+)/.exec(info)?.[1]) >= 2) return servers;
      } catch {
        // not listening yet
      } finally {
        probe.disconnect();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// One cell whose fill alone takes many seconds here: the kill lands in it.
const LONG = ['bench', '--layout', 'stoplight-v5', '--window', '3600', '--rate', '100', '--lights', '4', '--no-throughput', '--no-progress'];

describe.concurrent('a private server of swc killed mid-bench', () => {
  it.each([
    [
      "the run's own server (killpriv)",
      0,
      /^swc: swc's private server \(127\.0\.0\.1:\d+\) stopped \(killed by SIGKILL\) during the run, after [\d,]+ of [\d,]+ events$/,
    ],
    [
      "the accuracy lane's server",
      1,
      /^swc: swc's second private server \(127\.0\.0\.1:\d+, where the accuracy phases run\) stopped \(killed by SIGKILL\) during the run$/,
    ],
  ])('%s: exit 3, one line on stderr saying which', async (_label, which, line) => {
    const swc = startCli(LONG, { REDIS_URL: '' });
    const servers = await bothServers(swc.child.pid as number);
    process.kill(servers[which] as number, 'SIGKILL');
    const { code } = await swc.exited;
    expect(code, swc.stderr()).toBe(3);
    const lines = swc.stderr().trim().split('\n');
    expect(lines, swc.stderr()).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(swc.stdout()).toBe('');
  });
});
