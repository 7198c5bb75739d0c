import type { Redis } from 'ioredis';
import { fill } from '../src/bench/run.js';
import { createLayout } from '../src/layouts/index.js';
import { RespConnection } from '../src/redis/resp.js';
import { loadScripts } from '../src/redis/scripts.js';
import { BENCH_EPOCH, lightSeed } from '../src/traffic/events.js';

/**
 * A small 5.x fleet written the way `swc bench` fills a cell (steady rate, a
 * seeded failure share, one window of traffic, bench's writer and clock),
 * shared by the forecast test and the forecast figure
 * (tools/forecast-figure.ts). No vitest here, so the figure's script can
 * import it.
 */
export const FLEET_SEED = 11;

/** Each light's own window (= its traffic's duration), rate and failure share. */
export const FLEET = [
  { name: 'search', windowSeconds: 60, rate: 10, failureRate: 0.1 },
  { name: 'checkout', windowSeconds: 120, rate: 5, failureRate: 0.5 },
  { name: 'payments', windowSeconds: 300, rate: 1, failureRate: 0.02 },
  { name: 'shipping', windowSeconds: 180, rate: 4, failureRate: 0.3 },
] as const;

/** One light of {@link FLEET}. */
export type FleetLight = (typeof FLEET)[number];

/** When the fleet is listed: a second after the longest light's last event. */
export const FLEET_AT = BENCH_EPOCH + 300;

/**
 * Writes the fleet as bench fills a cell's first light: its traffic spec with
 * the plan's seed, through the 5.x scripts, `windows` windows of it (5.x keeps
 * a day of events, so a real fleet holds several). Returns the moment to list
 * it at: a second after the longest light's last event.
 */
export async function writeFleet(redis: Redis, windows = 1): Promise<number> {
  const v5 = createLayout('stoplight-v5');
  const writer = await RespConnection.open(redis.options);
  try {
    await loadScripts(writer.channel, v5.scripts);
    for (const light of FLEET) {
      const spec = {
        rate: light.rate,
        durationSeconds: light.windowSeconds * windows,
        failureRate: light.failureRate,
        seed: lightSeed(FLEET_SEED, 0),
        startAt: BENCH_EPOCH,
      };
      await fill(writer, v5, [{ name: light.name }], [spec], light.windowSeconds, () => undefined, undefined);
    }
  } finally {
    writer.close();
  }
  return BENCH_EPOCH + Math.max(...FLEET.map((l) => l.windowSeconds)) * windows;
}
