import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../../src/redis/connect.js';
import { startPrivateServer, type PrivateServer } from '../../../src/redis/server.js';
import { lazyfreePending, settleLazyFree } from '../../../src/measure/lazyfree.js';
import { usedMemory } from '../../../src/measure/memory.js';
import { runCli, words } from '../run-cli.js';

const opened: { server: PrivateServer; redis: Redis }[] = [];
afterEach(async () => {
  for (const { server, redis } of opened.splice(0)) {
    redis.disconnect();
    await server.stop();
  }
});

/** A server that frees deleted keys in the background, as Valkey 8 does by default. */
async function lazyServer(): Promise<Redis> {
  const server = await startPrivateServer({ settings: ['lazyfree-lazy-user-del=yes'] });
  const redis = await connect(server.url);
  opened.push({ server, redis });
  return redis;
}

describe("lazy freeing of a cell's deleted keys", () => {
  it('settleLazyFree waits until the background thread has freed what DEL unlinked: used_memory no longer falls afterwards', async () => {
    const redis = await lazyServer();
    for (let k = 0; k < 10; k += 1) {
      const pipeline = redis.pipeline();
      for (let j = 0; j < 6000; j += 1) pipeline.zadd(`z${k}`, j, `member-${j}`);
      await pipeline.exec();
    }
    await redis.del(...Array.from({ length: 10 }, (_, k) => `z${k}`));
    expect(await settleLazyFree([redis])).toBe(true);
    expect(await lazyfreePending(redis)).toBe(0);
    const settled = await usedMemory(redis);
    await new Promise((r) => setTimeout(r, 300));
    // Ten 6,000-member sorted sets are several MB: a free still under way would show as a fall far beyond 64 KB.
    expect(settled - (await usedMemory(redis))).toBeLessThan(64 * 1024);
  });

  it('a bench whose small cell follows a large one completes on a lazy-freeing server (no false "used_memory fell" alarm)', async () => {
    // Cell 3 (600 s at 10/s) follows cell 2 (300 s at 100/s, about 3 MB): without the wait, cell 2's clean-up is freed during cell 3.
    const run = await runCli([
      ...words('bench --layout stoplight-v5 --window 300,600 --rate 10,100 --no-throughput --no-accuracy --redis-server-arg lazyfree-lazy-user-del=yes --json'),
    ]);
    expect(run.stderr).not.toMatch(/used_memory fell/);
    expect(run.code).toBe(0);
    const results = (JSON.parse(run.stdout) as { results: { memory: { usedMemoryDeltaPerLight: number } }[] }).results;
    expect(results).toHaveLength(4);
    for (const r of results) expect(r.memory.usedMemoryDeltaPerLight).toBeGreaterThan(0);
  });
});
