import { describe, expect, it } from 'vitest';
import { fill } from '../../../src/bench/run.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { installScripts } from '../../../src/redis/scripts.js';
import { RespConnection } from '../../../src/redis/resp.js';
import { BENCH_EPOCH } from '../../../src/traffic/events.js';
import { withPrivateServer } from '../../helpers.js';

// #29 item 3: the fill runs one load per light; under --max-ops each light's
// first batch used to go at once (its own clock), so many small lights were
// not capped at all. One clock over every light: the whole fill takes at
// least its calls over the cap.
describe('fill under a load cap', () => {
  it('40 lights of 5 events at a cap of 100 calls/s take at least 1.5 s (used to go at once)', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      const layout = new StoplightV6();
      await installScripts(redis, layout.scripts);
      const connection = await RespConnection.open(redis.options);
      try {
        const lights = Array.from({ length: 40 }, (_, i) => ({ name: `cap-${i}` }));
        const specs = lights.map((_, i) => ({ rate: 1, durationSeconds: 5, failureRate: 0, seed: i, startAt: BENCH_EPOCH }));
        let written = 0;
        const started = performance.now();
        await fill(connection, layout, lights, specs, 10, (n) => (written += n), undefined, 100);
        const elapsed = performance.now() - started;
        expect(written).toBe(200);
        // 200 calls at 100/s: the last batch is due at 1.9 s. A lower bound, which a busy machine only makes easier
        // to meet: not a speed bound.
        expect(elapsed).toBeGreaterThanOrEqual(1500);
      } finally {
        connection.close();
      }
    });
  });
});
