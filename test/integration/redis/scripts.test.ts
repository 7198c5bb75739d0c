import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ScriptError } from '../../../src/core/errors.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import type { ScriptCall } from '../../../src/lua/source.js';
import { connect } from '../../../src/redis/connect.js';
import { parseInfo } from '../../../src/redis/info.js';
import { RespConnection } from '../../../src/redis/resp.js';
import { execPipeline, flushedFrom, installScripts, loadScripts, runScript } from '../../../src/redis/scripts.js';
import type { PrivateServer } from '../../../src/redis/server.js';
import { createRng } from '../../../src/traffic/random.js';
import { HOUR_START, ownServer, uniqueName } from '../../helpers.js';

const v5 = new StoplightV5();
const v6 = new StoplightV6();
const ALL = [...v5.scripts, ...v6.scripts];

let server: PrivateServer;
let redis: Redis;
// A server of its own: these tests flush the script cache.
ownServer((s, r) => {
  server = s;
  redis = r;
});

/** A counter from INFO (errorstats or commandstats), 0 when absent. */
async function stat(section: 'errorstats' | 'commandstats', name: string, field: string): Promise<number> {
  const line = parseInfo(await redis.info(section))[name] ?? '';
  return Number(new RegExp(`(?:^|,)${field}=(\\d+)`).exec(line)?.[1] ?? 0);
}
const noScriptErrors = (): Promise<number> => stat('errorstats', 'errorstat_NOSCRIPT', 'count');

/** Which of swc's scripts the server has cached, in one atomic look. */
async function cached(on: Redis): Promise<number> {
  const flags = (await on.script('EXISTS', ...ALL.map((s) => s.sha1))) as number[];
  return flags.filter((f) => f === 1).length;
}

/** v5 and v6 successes on one light each, alternating, each with its own event id. */
function mixedCalls(count: number, seed: number): { calls: ScriptCall[]; v5Light: { name: string }; v6Light: { name: string } } {
  const rng = createRng(seed);
  const v5Light = { name: uniqueName('v5') };
  const v6Light = { name: uniqueName('v6') };
  const calls = Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? v5.recordSuccess(v5Light, { windowSeconds: 60, at: HOUR_START + 1, eventId: rng.hex(12) })
      : v6.recordSuccess(v6Light, { windowSeconds: 60, at: HOUR_START + 1 }),
  );
  return { calls, v5Light, v6Light };
}

describe('the script runner', () => {
  it('loads a set of scripts in one MULTI/EXEC and leaves every one cached', async () => {
    await redis.script('FLUSH');
    const multis = await stat('commandstats', 'cmdstat_multi', 'calls');
    const execs = await stat('commandstats', 'cmdstat_exec', 'calls');
    await installScripts(redis, ALL);
    expect(await cached(redis)).toBe(ALL.length);
    expect(await stat('commandstats', 'cmdstat_multi', 'calls')).toBe(multis + 1);
    expect(await stat('commandstats', 'cmdstat_exec', 'calls')).toBe(execs + 1);
  });

  it('never leaves some scripts cached and others not while another client runs SCRIPT FLUSH in a loop', async () => {
    const installer = await connect(server.url);
    const flusher = await connect(server.url);
    const watcher = await connect(server.url);
    let flushing = true;
    const flushes = (async () => {
      while (flushing) await flusher.script('FLUSH');
    })();
    const partial: number[] = [];
    try {
      for (let round = 0; round < 300; round += 1) {
        // Two looks per load, racing with both the load and the flushes.
        const [, a, b] = await Promise.all([installScripts(installer, ALL), cached(watcher), cached(watcher)]);
        for (const n of [a, b]) if (n !== 0 && n !== ALL.length) partial.push(n);
      }
    } finally {
      flushing = false;
      await flushes;
      for (const c of [installer, flusher, watcher]) c.disconnect();
    }
    expect(partial).toEqual([]);
  });

  it('re-runs a single call that hit NOSCRIPT, once, with the same reply', async () => {
    const light = { name: uniqueName('single') };
    await installScripts(redis, v6.scripts);
    await runScript(redis, v6.recordSuccess(light, { windowSeconds: 60, at: HOUR_START + 1 }));
    await redis.script('FLUSH');
    const before = await noScriptErrors();
    const reply = await runScript(redis, v6.getMetrics(light, { windowSeconds: 60, at: HOUR_START + 1 }));
    expect(await noScriptErrors()).toBe(before + 1);
    expect(v6.parseMetrics(reply).successes).toBe(1);
  });

  it('re-runs exactly the flushed tail of a pipeline, in order, on ioredis and on a RESP socket', async () => {
    const resp = await RespConnection.open(redis.options);
    try {
      for (const channel of [redis, resp.channel]) {
        const { calls, v5Light, v6Light } = mixedCalls(2000, 3);
        const flusher = await connect(server.url);
        let flushing = true;
        const flushes = (async () => {
          while (flushing) await flusher.script('FLUSH');
        })();
        const before = await noScriptErrors();
        let replies;
        try {
          await installScripts(redis, ALL);
          replies = [];
          for (let i = 0; i < calls.length; i += 100) replies.push(...(await execPipeline(channel, calls.slice(i, i + 100))));
        } finally {
          flushing = false;
          await flushes;
          flusher.disconnect();
        }
        // The flushes really hit the pipelines: the re-run path ran.
        expect(await noScriptErrors()).toBeGreaterThan(before);
        expect(replies.filter(([err]) => err)).toEqual([]);
        // Each 5.x call adds its own member and each 6.0 call one success: a call lost or run twice would show.
        expect(await redis.zcard(v5.eventsKey(v5Light, 'success', HOUR_START))).toBe(1000);
        const metrics = await runScript(redis, v6.getMetrics(v6Light, { windowSeconds: 60, at: HOUR_START + 1 }));
        expect(v6.parseMetrics(metrics).successes).toBe(1000);
      }
    } finally {
      resp.close();
    }
  });

  it('with flushes and another connection reloading mid-pipeline, every call either runs in order or fails saying why', async () => {
    const flusher = await connect(server.url);
    const reloader = await connect(server.url);
    let going = true;
    const noise = Promise.all([
      (async () => {
        while (going) await flusher.script('FLUSH');
      })(),
      (async () => {
        while (going) await installScripts(reloader, ALL);
      })(),
    ]);
    const failures: unknown[] = [];
    let succeeded = 0;
    try {
      for (let round = 0; round < 40; round += 1) {
        const { calls } = mixedCalls(200, round);
        let replies: Awaited<ReturnType<typeof execPipeline>>;
        try {
          replies = await execPipeline(redis, calls);
        } catch (err) {
          failures.push(err);
          continue;
        }
        // Outside the try: a wrong reply must fail the test, not count as a failed round.
        expect(replies.filter(([err]) => err)).toEqual([]);
        succeeded += 1;
      }
    } finally {
      going = false;
      await noise;
      flusher.disconnect();
      reloader.disconnect();
    }
    for (const err of failures) {
      expect(err).toBeInstanceOf(ScriptError);
      expect((err as Error).message).toMatch(
        /^calls? \d+(-\d+)? of a pipeline of 200 did not run \(the script cache was flushed.*\) while call \d+ after them did \(another connection reloaded the scripts.*reorder calls, so swc stops$|^lua\/.*: the server keeps dropping swc's scripts from its cache/,
      );
    }
    // Refusing is allowed, refusing every time is not: most rounds are re-run past the flushes and succeed.
    expect(succeeded, `${failures.length} of 40 rounds failed`).toBeGreaterThan(0);
  });

  it('loads through a RESP socket too, checking the SHA1s Redis returns', async () => {
    await redis.script('FLUSH');
    const resp = await RespConnection.open(redis.options);
    try {
      await loadScripts(resp.channel, ALL);
    } finally {
      resp.close();
    }
    expect(await cached(redis)).toBe(ALL.length);
  });

  it('names the file and line of a script that fails to compile, and later loads are unaffected', async () => {
    const [good] = v6.scripts;
    const broken = {
      ...good!,
      id: 'broken',
      file: 'lua/broken.lua',
      source: 'local x = (',
      sha1: 'not-checked',
      lineMap: [{ file: 'lua/broken.lua', line: 1 }],
    };
    const error = await installScripts(redis, [broken]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as Error).message).toMatch(/^lua\/broken\.lua: failed to load: .*lua\/broken\.lua:1/);
    await redis.script('FLUSH');
    await installScripts(redis, ALL);
    expect(await cached(redis)).toBe(ALL.length);
  });

  it('flushedFrom finds the not-run tail and refuses a pattern that cannot be re-run in order', () => {
    const pattern = (s: string) => (i: number) => s[i] === 'x';
    expect(flushedFrom(4, pattern('....'))).toBe(4);
    expect(flushedFrom(4, pattern('..xx'))).toBe(2);
    expect(flushedFrom(4, pattern('xxxx'))).toBe(0);
    expect(() => flushedFrom(5, pattern('.xx.x'))).toThrow(/^calls 2-3 of a pipeline of 5 did not run .* while call 4 after them did/);
    expect(() => flushedFrom(3, pattern('x..'))).toThrow(/^call 1 of a pipeline of 3 did not run/);
    // A re-run tail (calls 33-200 of a pipeline of 200) numbers its calls as in that pipeline.
    expect(() => flushedFrom(4, pattern('.xx.'), { offset: 32, total: 200 })).toThrow(
      /^calls 34-35 of a pipeline of 200 did not run .* while call 36 after them did/,
    );
  });
});
