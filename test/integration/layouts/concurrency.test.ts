import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { createRng } from '../../../src/traffic/random.js';
import { fileConnections, HOUR_START, uniqueName } from '../../helpers.js';

const CONNECTIONS = 20;
const WRITES_PER_CONNECTION = 250;
const layout = new StoplightV6();
const connections = fileConnections(CONNECTIONS);

/** Sums the bucket fields of a 6.0 hash and lists the index members it should have. */
async function audit(redis: Redis, light: { name: string }) {
  const hash = await redis.hgetall(layout.metricsKey(light));
  let successes = 0;
  let failures = 0;
  const seconds = new Set<string>();
  for (const [field, value] of Object.entries(hash)) {
    const match = /^bucket:(\d+):([sf])$/.exec(field);
    if (!match?.[1]) continue;
    seconds.add(`bucket:${match[1]}`);
    if (match[2] === 's') successes += Number(value);
    else failures += Number(value);
  }
  const index = await redis.zrange(layout.indexKey(light), 0, -1);
  return {
    totals: { successes: Number(hash.total_successes ?? 0), failures: Number(hash.total_failures ?? 0) },
    sums: { successes, failures },
    index: index.sort(),
    buckets: [...seconds].sort(),
  };
}

describe('stoplight-v6 under concurrent writers', () => {
  it(`keeps totals equal to the sum of live buckets with ${CONNECTIONS} connections`, async () => {
    const light = { name: uniqueName('concurrent') };
    const windowSeconds = 5;
    const clients = await Promise.all(connections.map((c) => LayoutClient.open(c, layout)));
    let written = 0;
    await Promise.all(
      clients.map(async (client, n) => {
        const rng = createRng(1000 + n);
        for (let i = 0; i < WRITES_PER_CONNECTION; i += 1) {
          // Each writer's clock runs a little ahead or behind the others (skew).
          const at = HOUR_START + i * 0.1 + rng.next() * 3;
          if (rng.next() < 0.3) {
            await client.recordFailure(light, { at, windowSeconds, errorJson: '{"e":1}' });
          } else {
            await client.recordSuccess(light, { at, windowSeconds });
          }
          written += 1;
          if (i % 50 === 0) await client.getMetrics(light, { at, windowSeconds });
        }
      }),
    );
    expect(written).toBe(CONNECTIONS * WRITES_PER_CONNECTION);
    const redis = connections[0] as Redis;
    const state = await audit(redis, light);
    expect(state.totals).toEqual(state.sums);
    expect(state.index).toEqual(state.buckets);
    expect(state.index.length).toBeGreaterThan(0);
  });
});
