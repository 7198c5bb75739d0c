import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { cellCommands } from '../../../src/bench/phases/commands.js';
import type { Cell } from '../../../src/bench/plan.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { createLayout } from '../../../src/layouts/index.js';
import { HOUR_START, withPrivateServer } from '../../helpers.js';

const CELL: Cell = { layout: 'stoplight-v5', windowSeconds: 60, rate: 1, durationSeconds: 60 };

/**
 * A heartbeat that sends one SET (as the run's alive key does) during the
 * first reading it is asked about, and says so through beats() when `tells`.
 */
function plantedBeat(redis: Redis, tells: boolean): { beats: () => { sent: number; answered: number } } {
  let asked = 0;
  let sent = 0;
  let answered = 0;
  return {
    beats: () => {
      asked++;
      // The first call opens the write's first reading. The SET goes out on the
      // reading's own connection once its opening INFO is sent (a microtask
      // later), so the server runs it inside the reading, as a beat between
      // two calls would.
      if (asked === 1) {
        if (tells) sent++;
        queueMicrotask(() => {
          void redis.set('swc-bench:heartbeat-test:alive', 'writing', 'EX', 15).then(() => {
            if (tells) answered++;
          });
        });
      }
      return { sent, answered };
    },
  };
}

describe("commands per call leave out the run's own heartbeat", () => {
  it('a reading with an alive-key SET in it is taken again; without the beat count the SET would be counted', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      const layout = createLayout('stoplight-v5', { prefix: 'swc-hb' });
      const client = await LayoutClient.open(redis, layout);
      const light = { name: 'hb' };
      for (let i = 0; i < 70; i++) await client.recordSuccess(light, { windowSeconds: 60, at: HOUR_START + i });

      const told = await cellCommands(redis, layout, light, CELL, HOUR_START + 70, plantedBeat(redis, true));
      expect(told.commands).toBeDefined();
      expect(told.commands!.write.breakdown.map((c) => c.command)).not.toContain('set');

      const untold = await cellCommands(redis, layout, light, CELL, told.until + 1, plantedBeat(redis, false));
      expect(untold.commands).toBeDefined();
      // The control: the same SET, not reported, is counted as the write's.
      expect(untold.commands!.write.breakdown.map((c) => c.command)).toContain('set');
    });
  });
});
