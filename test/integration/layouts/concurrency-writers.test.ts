import { describe, expect, it } from 'vitest';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { SlidingWindowModel } from '../../../src/model/sliding-window.js';
import { runScript } from '../../../src/redis/scripts.js';
import { createRng } from '../../../src/traffic/random.js';
import { fileConnections, uniqueName } from '../../helpers.js';

const CONNECTIONS = 50;
const RUN_MS = 10_000;
const WINDOW_SECONDS = 3;
const layout = new StoplightV6();
const connections = fileConnections(CONNECTIONS);

describe('stoplight-v6 under 50 concurrent writers for 10 s, on the server clock', () => {
  it('keeps totals equal to the sum of buckets, and the model agrees on the counts', async () => {
    const light = { name: uniqueName('fifty') };
    const clients = await Promise.all(connections.map((c) => LayoutClient.open(c, layout)));
    // Each script reads Redis TIME and scripts run one at a time, so every
    // event's second is exact; the success script returns it, a failure's
    // snapshot carries it as last_error_at.
    const events: { second: number; outcome: 'success' | 'failure' }[] = [];
    const deadline = Date.now() + RUN_MS;
    await Promise.all(
      clients.map(async (client, n) => {
        const rng = createRng(n + 1);
        while (Date.now() < deadline) {
          if (rng.next() < 0.3) {
            const snapshot = await client.recordFailure(light, { windowSeconds: WINDOW_SECONDS, errorJson: '{"e":1}' });
            events.push({ second: Math.floor(snapshot?.lastErrorAt ?? Number.NaN), outcome: 'failure' });
          } else {
            const second = await runScript(client.redis, layout.recordSuccess(light, { windowSeconds: WINDOW_SECONDS }));
            events.push({ second: Number(second), outcome: 'success' });
          }
        }
      }),
    );
    expect(events.length).toBeGreaterThan(1000);
    expect(events.every((e) => Number.isInteger(e.second))).toBe(true);

    const last = events.reduce((max, e) => Math.max(max, e.second), 0);
    const model = new SlidingWindowModel(WINDOW_SECONDS, 'half-open');
    for (const e of [...events].sort((a, b) => a.second - b.second)) model.record(e.second, e.outcome);
    const snapshot = await clients[0]!.getMetrics(light, { windowSeconds: WINDOW_SECONDS, at: last });
    expect({ successes: snapshot.successes, failures: snapshot.failures }).toEqual(model.count(last));

    const hash = await connections[0]!.hgetall(layout.metricsKey(light));
    const sums = { successes: 0, failures: 0 };
    for (const [field, value] of Object.entries(hash)) {
      if (/^bucket:\d+:s$/.test(field)) sums.successes += Number(value);
      if (/^bucket:\d+:f$/.test(field)) sums.failures += Number(value);
    }
    expect({ successes: Number(hash.total_successes), failures: Number(hash.total_failures) }).toEqual(sums);
    expect(sums.successes + sums.failures).toBeGreaterThan(0);
  });
});
