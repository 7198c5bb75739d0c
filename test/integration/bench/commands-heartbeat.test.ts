import { describe, expect, it } from 'vitest';
import { createNamespace, markRun } from '../../../src/run/namespace.js';
import { cellCommands } from '../../../src/bench/phases/commands.js';
import type { Cell } from '../../../src/bench/plan.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { createLayout } from '../../../src/layouts/index.js';
import { HOUR_START, withPrivateServer } from '../../helpers.js';

const CELL: Cell = { layout: 'stoplight-v5', windowSeconds: 60, rate: 1, durationSeconds: 60 };

describe("commands per call leave out the run's own heartbeat", () => {
  it('a heartbeat beating every millisecond never lands in a reading; without the hold its SETs are counted', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      const layout = createLayout('stoplight-v5', { prefix: 'swc-hb' });
      const client = await LayoutClient.open(redis, layout);
      const light = { name: 'hb' };
      for (let i = 0; i < 70; i++) await client.recordSuccess(light, { windowSeconds: 60, at: HOUR_START + i });
      // The run's real heartbeat, on the readings' own connection, refreshed far more often than a run's.
      const heartbeat = await markRun(redis, createNamespace(), redis, { refreshMs: 1 });
      try {
        const held = await cellCommands(redis, layout, light, CELL, HOUR_START + 70, heartbeat);
        expect(held.commands).toBeDefined();
        for (const op of [held.commands!.write, held.commands!.failure, held.commands!.read]) expect(op.breakdown.map((c) => c.command)).not.toContain('set');

        // The control: the same heartbeat, not held, shows up as SETs of the write.
        const unheld = await cellCommands(redis, layout, light, CELL, held.until + 1, { quiet: (body) => body() });
        const sets = [unheld.commands!.write, unheld.commands!.failure, unheld.commands!.read].flatMap((op) => op.breakdown.filter((c) => c.command === 'set'));
        expect(sets.length).toBeGreaterThan(0);
      } finally {
        heartbeat.stop();
      }
    });
  });
});
