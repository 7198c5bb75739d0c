import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { LUA_DIR } from '../../../src/lua/source.js';

/**
 * A copy of swc's lua/ folder in a temp dir with one edit: `find` (which
 * must occur exactly once in `file`) replaced by `replace`. Removed after
 * the test that asked for it.
 */
export function plantBug(file: string, find: string, replace: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'swc-plant-'));
  cpSync(LUA_DIR, dir, { recursive: true });
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return plantBugIn(dir, file, find, replace);
}

/** One more edit in a copy plantBug made (`dir`): `find`, exactly once in `file`, replaced by `replace`. Returns `dir`. */
export function plantBugIn(dir: string, file: string, find: string, replace: string): string {
  const target = path.join(dir, file);
  const text = readFileSync(target, 'utf8');
  const at = text.indexOf(find);
  if (at === -1 || text.indexOf(find, at + 1) !== -1) throw new Error(`plantBug: "${find}" must occur exactly once in ${file}`);
  writeFileSync(target, text.slice(0, at) + replace + text.slice(at + find.length));
  return dir;
}

/**
 * A copy of lua/ whose 6.0 subtraction, where swc's skips a zero count,
 * sends HINCRBY the string "-0", which every build refuses (a Lua -0
 * reaches only Redis 7.0 as "-0"): a script error on the first eviction of
 * a bucket that held no failure, after a fill that evicts nothing.
 */
export function plantRefusedZero(): string {
  return plantBug(
    'stoplight-v6/_subtract.lua',
    "  if count ~= 0 then\n    redis.call('HINCRBY', metrics_key, field, -count)\n  end",
    "  redis.call('HINCRBY', metrics_key, field, count == 0 and '-0' or -count)",
  );
}
