import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { LayoutClient } from '../../../src/layouts/client.js';
import { createLayout, layoutNames } from '../../../src/layouts/index.js';
import { ScriptError } from '../../../src/core/errors.js';
import { execPipeline, runScript } from '../../../src/redis/scripts.js';
import { LUA_DIR, readScript } from '../../../src/lua/source.js';
import { parseInfo } from '../../../src/redis/info.js';
import { HOUR_START, ownServer, uniqueName } from '../../helpers.js';

let redis: Redis;
// A server of its own: SCRIPT FLUSH on the shared one would disturb other test files.
ownServer((_server, r) => {
  redis = r;
});

/** How many NOSCRIPT replies the server has sent (INFO errorstats). */
async function noScriptErrors(): Promise<number> {
  const line = parseInfo(await redis.info('errorstats')).errorstat_NOSCRIPT ?? '';
  return Number(/count=(\d+)/.exec(line)?.[1] ?? 0);
}

describe('scripts', () => {
  it('every script starts with a header naming each KEYS and ARGV slot it uses', () => {
    for (const name of layoutNames) {
      for (const script of createLayout(name).scripts) {
        const used = new Set(script.source.match(/(KEYS|ARGV)\[\d+\]/g) ?? []);
        const header = script.source
          .split('\n')
          .filter((l) => l.startsWith('--'))
          .join('\n');
        for (const slot of used) expect(header, `${script.file} documents ${slot}`).toContain(slot.replace(/\[|\]/g, (c) => c));
      }
    }
  });

  it.each(layoutNames)('%s: after SCRIPT FLUSH, a LayoutClient call and a pipeline reload and re-run (NOSCRIPT seen once each)', async (name) => {
    const layout = createLayout(name);
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('flush') };
    await client.recordSuccess(light, { at: HOUR_START + 1, windowSeconds: 60 });
    const before = await noScriptErrors();
    await redis.script('FLUSH');
    await client.recordSuccess(light, { at: HOUR_START + 2, windowSeconds: 60 });
    expect(await noScriptErrors()).toBe(before + 1);
    await redis.script('FLUSH');
    // In a pipeline, order matters: the read must see the write queued before it.
    const replies = await execPipeline(redis, [
      layout.recordSuccess(light, { at: HOUR_START + 3, windowSeconds: 60 }),
      layout.recordSuccess(light, { at: HOUR_START + 4, windowSeconds: 60 }),
      layout.getMetrics(light, { at: HOUR_START + 4, windowSeconds: 60 }),
    ]);
    expect(replies.map(([err]) => err)).toEqual([null, null, null]);
    // The first call of the pipeline met NOSCRIPT, so the whole pipeline was re-run after the reload.
    expect(await noScriptErrors()).toBe(before + 4);
    expect(layout.parseMetrics(replies[2]?.[1]).successes).toBe(4);
  });

  it('names the file and line of a Lua runtime error', async () => {
    const layout = createLayout('stoplight-v6');
    await LayoutClient.open(redis, layout);
    const call = layout.getMetrics({ name: uniqueName('bad') }, { at: HOUR_START, windowSeconds: 60 });
    const bad = { ...call, args: ['not-a-number', 'also-not-a-time'] };
    const error = await runScript(redis, bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as Error).message).toMatch(/^lua\/stoplight-v6\/get_metrics\.lua: .*lua\/lib\/now\.lua:\d+/);
  });

  it('resolves includes once each and keeps a line map', () => {
    const script = readScript('stoplight-v6/record_failure');
    expect(script.source.match(/local function swc_now/g)).toHaveLength(1);
    expect(script.source.match(/local function swc_v6_evict/g)).toHaveLength(1);
    expect(script.source).not.toMatch(/^--include/m);
    expect(script.lineMap).toHaveLength(script.source.split('\n').length);
    expect(script.lineMap.some((l) => l.file === 'lua/stoplight-v6/_window.lua')).toBe(true);
  });
});

describe('scripts read from an edited copy of lua/', () => {
  it('reads the copy, resolves its includes there, and names its files by path', () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'swc-lua-'));
    try {
      cpSync(LUA_DIR, copy, { recursive: true });
      const window = path.join(copy, 'stoplight-v6/_window.lua');
      writeFileSync(window, readFileSync(window, 'utf8').replace('local EVICT_BATCH = 1000', 'local EVICT_BATCH = 7'));
      const own = readScript('stoplight-v6/record_success');
      const edited = readScript('stoplight-v6/record_success', copy);
      expect(edited.source).toContain('local EVICT_BATCH = 7');
      expect(own.source).toContain('local EVICT_BATCH = 1000');
      expect(edited.sha1).not.toBe(own.sha1);
      expect(edited.command).not.toBe(own.command);
      expect(edited.file).toBe(path.join(copy, 'stoplight-v6/record_success.lua'));
      expect(edited.lineMap.some((origin) => origin.file === window)).toBe(true);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
