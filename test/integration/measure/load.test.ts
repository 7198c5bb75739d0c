import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedisUnavailableError, ScriptError, UsageError } from '../../../src/core/errors.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { runLoad, type LoadProgress } from '../../../src/measure/load.js';
import { connect } from '../../../src/redis/connect.js';
import { parseInfo } from '../../../src/redis/info.js';
import { installScripts, runScript } from '../../../src/redis/scripts.js';
import { startPrivateServer, type PrivateServer } from '../../../src/redis/server.js';
import { createRng } from '../../../src/traffic/random.js';
import { HOUR_START, redisUrl, uniqueName } from '../../helpers.js';

const v5 = new StoplightV5();
const v6 = new StoplightV6();
const connections: Redis[] = [];

beforeAll(async () => {
  for (let i = 0; i < 3; i += 1) {
    const redis = await connect(redisUrl());
    await installScripts(redis, [...v5.scripts, ...v6.scripts]);
    connections.push(redis);
  }
});
afterAll(() => {
  for (const redis of connections) redis.disconnect();
});

/** Successes on one 5.x light, each with its own member, all in one hour key. */
function v5Successes(light: { name: string }) {
  const rng = createRng(7);
  return () => v5.recordSuccess(light, { windowSeconds: 60, at: HOUR_START + 10, eventId: rng.hex(12) });
}

describe('runLoad', () => {
  it.each([
    [1, 1],
    [3, 7],
    [2, 64],
  ])('sends exactly the asked operations with %i connections and pipeline %i', async (c, p) => {
    const light = { name: uniqueName('exact') };
    const result = await runLoad({
      connections: connections.slice(0, c),
      pipeline: p,
      stop: { ops: 1001 },
      nextCall: v5Successes(light),
    });
    expect(result.ops).toBe(1001);
    expect(result.calls).toBe(1001);
    expect(await connections[0]!.zcard(v5.eventsKey(light, 'success', HOUR_START))).toBe(1001);
  });

  it('with batches queued and replies read at intervals, runs exactly the asked calls, in order', async () => {
    const light = { name: uniqueName('quiet') };
    let at = HOUR_START;
    const result = await runLoad({
      connections: connections.slice(0, 1),
      pipeline: 64,
      depth: 4,
      readIntervalMs: 5,
      stop: { ops: 2001 },
      nextCall: () => v6.recordSuccess(light, { windowSeconds: 3600, at: (at += 1) }),
    });
    expect(result.ops).toBe(2001);
    const snapshot = v6.parseMetrics(await runScript(connections[0]!, v6.getMetrics(light, { windowSeconds: 3600, at })));
    expect(snapshot.successes).toBe(2001);
    expect(snapshot.lastSuccessAt).toBe(HOUR_START + 2001);
  });

  it('counts an operation of several calls once and sends every call', async () => {
    const light = { name: uniqueName('pairs') };
    const result = await runLoad({
      connections,
      pipeline: 5,
      stop: { ops: 300 },
      nextCall: v5Successes(light),
      callsPerOp: 2,
    });
    expect(result.ops).toBe(300);
    expect(result.calls).toBe(600);
    expect(await connections[0]!.zcard(v5.eventsKey(light, 'success', HOUR_START))).toBe(600);
  });

  it('reports ordered percentiles in milliseconds', async () => {
    const light = { name: uniqueName('latency') };
    const result = await runLoad({ connections, pipeline: 4, stop: { ops: 2000 }, nextCall: v5Successes(light) });
    expect(result.p50Ms).toBeGreaterThan(0);
    expect(result.p50Ms).toBeLessThanOrEqual(result.p99Ms);
    expect(result.p99Ms).toBeLessThanOrEqual(result.p999Ms);
    expect(result.meanMs).toBeGreaterThan(0);
    expect(result.seconds).toBeGreaterThan(0);
    expect(result.opsPerSec).toBeCloseTo(result.ops / result.seconds, 6);
  });

  it('runs for a time when asked and reports progress up to the end', async () => {
    const light = { name: uniqueName('timed') };
    const progress: LoadProgress[] = [];
    const result = await runLoad({
      connections,
      pipeline: 2,
      stop: { seconds: 0.3 },
      nextCall: v5Successes(light),
      onProgress: (p) => progress.push(p),
      progressIntervalMs: 50,
    });
    expect(result.ops).toBeGreaterThan(0);
    expect(await connections[0]!.zcard(v5.eventsKey(light, 'success', HOUR_START))).toBe(result.ops);
    const last = progress.at(-1);
    expect(last).toMatchObject({ done: result.ops, total: null, fraction: 1 });
    const done = progress.map((p) => p.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
  });

  it('stops with a ScriptError on an error reply instead of counting it', async () => {
    const light = { name: uniqueName('wrongtype') };
    // A string where the 6.0 script expects a hash: every call fails WRONGTYPE.
    await connections[0]!.set(v6.metricsKey(light), 'not a hash');
    const run = runLoad({
      connections,
      pipeline: 8,
      stop: { ops: 500 },
      nextCall: () => v6.recordSuccess(light, { windowSeconds: 60, at: HOUR_START }),
    });
    await expect(run).rejects.toThrow(ScriptError);
    await expect(run).rejects.toThrow(/^lua\/stoplight-v6\/record_success\.lua: WRONGTYPE .*\(after 0 operations of the load\)$/);
  });

  it('stops every connection when one call in the middle fails', async () => {
    const good = { name: uniqueName('good') };
    const bad = { name: uniqueName('bad') };
    await connections[0]!.set(v6.metricsKey(bad), 'not a hash');
    let calls = 0;
    const successes = v5Successes(good);
    const run = runLoad({
      connections,
      pipeline: 4,
      stop: { ops: 100_000 },
      nextCall: () => {
        calls += 1;
        return calls === 200 ? v6.recordSuccess(bad, { windowSeconds: 60, at: HOUR_START }) : successes();
      },
    });
    await expect(run).rejects.toThrow(/WRONGTYPE/);
    // The run settles only once every connection has stopped: nothing is sent afterwards.
    const atRejection = calls;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toBe(atRejection);
    expect(calls).toBeLessThan(1000);
  });

  describe('on a server of its own', () => {
    let server: PrivateServer;
    let own: Redis;
    beforeEach(async () => {
      server = await startPrivateServer();
      own = await connect(server.url);
      await installScripts(own, v5.scripts);
    });
    afterEach(async () => {
      own.disconnect();
      await server.stop();
    });

    it('stops with a RedisUnavailableError when a connection goes away', async () => {
      const successes = v5Successes({ name: uniqueName('dropped') });
      let calls = 0;
      const run = runLoad({
        connections: [own],
        pipeline: 4,
        stop: { ops: 100_000 },
        nextCall: () => {
          calls += 1;
          // Every client but the one killing, so the load connection too.
          if (calls === 40) setImmediate(() => void own.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes'));
          return successes();
        },
      });
      await expect(run).rejects.toThrow(RedisUnavailableError);
    });

    it('stops with a RedisUnavailableError from the close when the server dies', async () => {
      const successes = v5Successes({ name: uniqueName('killed') });
      let killed = false;
      const run = runLoad({
        connections: [own],
        pipeline: 4,
        stop: { ops: 1_000_000 },
        nextCall: () => {
          if (!killed) {
            killed = true;
            setTimeout(() => process.kill(server.pid, 'SIGKILL'), 100);
          }
          return successes();
        },
      });
      const err = await run.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RedisUnavailableError);
      // The close itself stopped the run, not the reply timeout (whose error says "no reply within").
      expect((err as Error).message).not.toMatch(/no reply within/);
    });

    it('stops with a RedisUnavailableError when the server hangs', async () => {
      const successes = v5Successes({ name: uniqueName('hung') });
      let calls = 0;
      const run = runLoad({
        connections: [own],
        pipeline: 4,
        stop: { ops: 1_000_000 },
        replyTimeoutMs: 300,
        nextCall: () => {
          calls += 1;
          if (calls === 400) process.kill(server.pid, 'SIGSTOP');
          return successes();
        },
      });
      try {
        await expect(run).rejects.toThrow(/load stopped after \d+ operations: .*no reply within/);
      } finally {
        process.kill(server.pid, 'SIGCONT');
      }
    });

    it('with two batches in flight, re-runs the flushed tail and then the batch behind it, in order, when SCRIPT FLUSH hits', async () => {
      const light = { name: uniqueName('flushed-deep') };
      const flusher = await connect(server.url);
      const noScriptErrors = async () => Number(/count=(\d+)/.exec(parseInfo(await own.info('errorstats')).errorstat_NOSCRIPT ?? '')?.[1] ?? 0);
      const before = await noScriptErrors();
      // Each call's time is one second later: 6.0 keeps the last success time, so a call run out of order leaves an older one.
      let at = HOUR_START;
      const timer = setInterval(() => void flusher.script('FLUSH').catch(() => undefined), 2);
      let result;
      try {
        result = await runLoad({
          connections: [own],
          pipeline: 50,
          depth: 2,
          stop: { ops: 3000 },
          nextCall: () => v6.recordSuccess(light, { windowSeconds: 3600, at: (at += 1) }),
        });
      } finally {
        clearInterval(timer);
        flusher.disconnect();
      }
      expect(result.ops).toBe(3000);
      expect(await noScriptErrors()).toBeGreaterThan(before);
      await installScripts(own, v6.scripts);
      const snapshot = v6.parseMetrics(await runScript(own, v6.getMetrics(light, { windowSeconds: 3600, at })));
      expect(snapshot.successes).toBe(3000);
      expect(snapshot.consecutiveSuccesses).toBe(3000);
      expect(snapshot.lastSuccessAt).toBe(HOUR_START + 3000);
    });

    it('re-runs exactly the flushed calls when SCRIPT FLUSH hits mid-run', async () => {
      const light = { name: uniqueName('flushed') };
      const flusher = await connect(server.url);
      const noScriptErrors = async () => Number(/count=(\d+)/.exec(parseInfo(await own.info('errorstats')).errorstat_NOSCRIPT ?? '')?.[1] ?? 0);
      const before = await noScriptErrors();
      const timer = setInterval(() => void flusher.script('FLUSH').catch(() => undefined), 2);
      let result;
      try {
        result = await runLoad({ connections: [own], pipeline: 50, stop: { ops: 20_000 }, nextCall: v5Successes(light) });
      } finally {
        clearInterval(timer);
        flusher.disconnect();
      }
      expect(result.ops).toBe(20_000);
      // The flushes hit batches in flight: the re-run path really ran.
      expect(await noScriptErrors()).toBeGreaterThan(before);
      // Each call adds its own member: a call lost or run twice would show.
      expect(await own.zcard(v5.eventsKey(light, 'success', HOUR_START))).toBe(20_000);
    });
  });

  it('rejects impossible settings before sending anything', async () => {
    const nextCall = v5Successes({ name: uniqueName('unused') });
    await expect(runLoad({ connections: [], pipeline: 1, stop: { ops: 1 }, nextCall })).rejects.toThrow(UsageError);
    await expect(runLoad({ connections, pipeline: 0, stop: { ops: 1 }, nextCall })).rejects.toThrow(UsageError);
    await expect(runLoad({ connections, pipeline: 1, stop: { ops: 0 }, nextCall })).rejects.toThrow(UsageError);
    await expect(runLoad({ connections, pipeline: 1, stop: { seconds: 0 }, nextCall })).rejects.toThrow(UsageError);
    await expect(runLoad({ connections, pipeline: 1, depth: 0, stop: { ops: 1 }, nextCall })).rejects.toThrow(UsageError);
    await expect(runLoad({ connections, pipeline: 1, depth: 2, callsPerOp: 2, stop: { ops: 1 }, nextCall })).rejects.toThrow(UsageError);
  });
});
