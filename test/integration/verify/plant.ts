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
  const target = path.join(dir, file);
  const text = readFileSync(target, 'utf8');
  const at = text.indexOf(find);
  if (at === -1 || text.indexOf(find, at + 1) !== -1) throw new Error(`plantBug: "${find}" must occur exactly once in ${file}`);
  writeFileSync(target, text.slice(0, at) + replace + text.slice(at + find.length));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
