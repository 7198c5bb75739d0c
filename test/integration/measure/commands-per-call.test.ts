import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../../src/layouts/client.js';
import { createLayout } from '../../../src/layouts/index.js';
import { loadManifestLayout } from '../../../src/layouts/manifest.js';
import type { Layout } from '../../../src/layouts/types.js';
import { measureCommandsPerCall, type CommandsPerCall } from '../../../src/measure/commandstats.js';
import { HOUR_START, withPrivateServer } from '../../helpers.js';

const WINDOW = 60;
const CALLS = 10;

/** Writes one light past its window (so evictions are in steady state), then measures CALLS more writes of it. */
async function writeCost(redis: Redis, layout: Layout): Promise<CommandsPerCall | null> {
  const client = await LayoutClient.open(redis, layout);
  const light = { name: 'cost' };
  let at = HOUR_START;
  for (let i = 0; i < WINDOW + 5; i++) await client.recordSuccess(light, { windowSeconds: WINDOW, at: at++, eventId: i.toString(16).padStart(24, '0') });
  return measureCommandsPerCall(redis, () => client.recordSuccess(light, { windowSeconds: WINDOW, at: at++ }), CALLS);
}

const planted = mkdtempSync(join(tmpdir(), 'swc-zcard-'));
afterAll(() => rmSync(planted, { recursive: true, force: true }));

describe('commands per call (INFO commandstats deltas on a private server)', () => {
  it('are exact: the same breakdown and bytes in three runs, and an extra ZCARD in the 6.0 write is +1 ZCARD per call', async () => {
    // A copy of lua/ with one extra redis.call('ZCARD', …) in the 6.0 write.
    cpSync(resolve('lua'), planted, { recursive: true });
    const script = join(planted, 'stoplight-v6', 'record_success.lua');
    const source = readFileSync(script, 'utf8');
    const marker = 'swc_v6_evict(metrics_key, index_key, second - window)';
    expect(source).toContain(marker);
    writeFileSync(script, source.replace(marker, `${marker}\nredis.call('ZCARD', index_key)`));

    await withPrivateServer({}, async (_server, redis) => {
      const runs: CommandsPerCall[] = [];
      for (let run = 0; run < 3; run++) {
        await redis.flushall();
        const cost = await writeCost(redis, createLayout('stoplight-v6', { prefix: `swc-cost-${run}` }));
        expect(cost).not.toBeNull();
        runs.push(cost!);
      }
      const [first] = runs;
      for (const run of runs.slice(1)) expect(run).toEqual(first);
      expect(first!.scriptCalls).toBe(1);
      expect(first!.commands.min).toBe(first!.commands.max);
      expect(first!.commands.mean).toBeGreaterThan(0);
      expect(first!.replyBytes).toBeGreaterThan(0);
      expect(first!.requestBytes).toBeGreaterThan(0);
      expect(first!.breakdown.map((c) => c.command)).not.toContain('info');
      expect(first!.breakdown.map((c) => c.command)).not.toContain('zcard');

      await redis.flushall();
      const manifest = loadManifestLayout(resolve('fixtures/manifests/stoplight-v6.json'), { scriptsDir: planted, prefix: 'swc-cost-planted' });
      const changed = await writeCost(redis, manifest);
      expect(changed).not.toBeNull();
      expect(changed!.commands.mean).toBe(first!.commands.mean + 1);
      expect(changed!.breakdown.find((c) => c.command === 'zcard')).toEqual({ command: 'zcard', mean: 1, min: 1, max: 1 });
      const others = (cost: CommandsPerCall): unknown => cost.breakdown.filter((c) => c.command !== 'zcard');
      expect(others(changed!)).toEqual(others(first!));
    });
  });
});
