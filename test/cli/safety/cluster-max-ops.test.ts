/**
 * `--max-ops` on a cluster paces every command swc sends, from the first
 * connection's handshake on: the seed's probe, each primary's session, the
 * preflight and the turn-taking, not only the run (#41: 119 commands reached
 * the cluster in its first 0.5 s at a cap of 40). The commands are counted
 * by the servers themselves: MONITOR on every primary, each line stamped
 * with the server's own time.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startPrivateCluster } from '../../../src/redis/cluster.js';
import { connect } from '../../../src/redis/connect.js';
import { UNKNOWN_SCRIPT_COMMANDS } from '../../../src/redis/command-cap.js';
import { runCli, TWO_LIGHTS_10S } from '../run-cli.js';

const CAP = 40;
const WINDOW_SECONDS = 0.5;

/** The most commands any span of `seconds` holds, over sorted times in seconds. */
function busiest(times: readonly number[], seconds: number): number {
  let most = 0;
  let from = 0;
  for (let to = 0; to < times.length; to += 1) {
    while ((times[to] as number) - (times[from] as number) >= seconds) from += 1;
    most = Math.max(most, to - from + 1);
  }
  return most;
}

describe('swc bench --cluster --max-ops', () => {
  it(`no ${WINDOW_SECONDS} s of any primary's MONITOR, summed over the cluster, holds more than the cap's share plus one call, from the handshake on`, async (context) => {
    const cluster = await startPrivateCluster({ shards: 3 });
    context.onTestFinished(() => cluster.stop());
    const watchers: Redis[] = [];
    const times: number[] = [];
    for (const url of cluster.urls) {
      const watcher = await connect(url);
      watchers.push(watcher);
      const monitor = await watcher.monitor();
      watchers.push(monitor);
      // The time MONITOR prints is the server's own clock (the nodes share this machine's).
      monitor.on('monitor', (time: string) => times.push(Number(time)));
    }
    try {
      const run = await runCli(
        [
          'bench',
          '--cluster',
          '--redis-url',
          cluster.urls[0] as string,
          '--max-ops',
          String(CAP),
          '--layout',
          'stoplight-v6',
          ...TWO_LIGHTS_10S,
          '--no-throughput',
          '--no-accuracy',
          '--no-progress',
          '--json',
        ],
        {},
        240_000,
      );
      expect(run.code, run.stderr).toBe(0);
      // MONITOR lines arrive after the commands: a PING of each watcher's own marks the end.
      await Promise.all(watchers.filter((_, i) => i % 2 === 0).map((w) => w.ping()));
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      for (const w of watchers) w.disconnect();
    }
    times.sort((a, b) => a - b);
    // The run sent its handshake, checks, fill, memory reads and clean-up: hundreds of commands.
    expect(times.length).toBeGreaterThan(100);
    // A leaky bucket with no burst: a span of T seconds holds at most CAP × T commands, plus the largest single send (one script call).
    expect(busiest(times, WINDOW_SECONDS)).toBeLessThanOrEqual(CAP * WINDOW_SECONDS + UNKNOWN_SCRIPT_COMMANDS);
    // The first half second, the handshake and the preflight: single commands, no script call, so the share plus one
    // (measured: 12 paced, 31 when only the run was paced; MONITOR does not show CONFIG, which INFO commandstats counts).
    const first = times[0] as number;
    expect(times.filter((t) => t < first + WINDOW_SECONDS).length).toBeLessThanOrEqual(CAP * WINDOW_SECONDS + 1);
  }, 300_000);
});
