/** Lua sources: reading `lua/<id>.lua` with its includes, and the calls built from them. */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputFileError, ScriptError } from '../errors.js';
import { readInputFile } from '../json-file.js';

/** The `lua/` folder at the package root (same relative place from src/ and dist/). */
export const LUA_DIR = fileURLToPath(new URL('../../lua/', import.meta.url));

const INCLUDE_LINE = /^--include\s+(\S+)\s*$/;

/** One Lua script, includes resolved, ready for SCRIPT LOAD / EVALSHA. */
export interface LuaScript {
  /** `<layout>/<operation>`, e.g. `stoplight-v6/record_failure`. */
  readonly id: string;
  /** For error messages: `lua/…` for swc's own scripts, else the file's path. */
  readonly file: string;
  readonly source: string;
  readonly sha1: string;
  /** The ioredis custom command name this script is defined under. */
  readonly command: string;
  /** For each line of `source`, the file and line it came from. */
  readonly lineMap: readonly { file: string; line: number }[];
}

/** A script invocation: which script, its KEYS and its ARGV. */
export interface ScriptCall {
  readonly script: LuaScript;
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
}

const cache = new Map<string, LuaScript>();

/** How a file under `root` is named in messages: `lua/…` for swc's own scripts, else its path. */
function displayName(root: string, relative: string): string {
  return path.resolve(root) === path.resolve(LUA_DIR) ? `lua/${relative}` : path.join(root, relative);
}

/**
 * Reads `<root>/<id>.lua` (root: swc's own `lua/` folder, or an edited copy
 * of it), replacing each `--include <path>` line with that file under the
 * same root (each file at most once), so shared Lua lives in one place.
 */
export function readScript(id: string, root: string = LUA_DIR): LuaScript {
  const cacheKey = `${path.resolve(root)}\u0000${id}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const lines: string[] = [];
  const lineMap: { file: string; line: number }[] = [];
  const seen = new Set<string>();
  const append = (relative: string, chain: readonly string[]): void => {
    if (chain.includes(relative)) {
      throw new ScriptError(`${displayName(root, relative)}: include cycle (${[...chain, relative].join(' -> ')})`);
    }
    if (seen.has(relative)) return;
    seen.add(relative);
    let text: string;
    try {
      // Like every input file: a FIFO or a device in an edited scripts folder
      // must not block swc beyond the reach of Ctrl-C, nor fill its memory.
      text = readInputFile(path.join(root, relative));
    } catch (cause) {
      const from = chain.at(-1);
      const problem = cause instanceof InputFileError ? `: ${cause.problem}` : '';
      throw new ScriptError(
        `${displayName(root, relative)}: cannot read${problem}${from ? ` (included from ${displayName(root, from)})` : ''}`,
        { cause },
      );
    }
    text.split('\n').forEach((line, index) => {
      const include = INCLUDE_LINE.exec(line);
      if (include?.[1]) {
        append(include[1], [...chain, relative]);
        return;
      }
      lines.push(line);
      lineMap.push({ file: displayName(root, relative), line: index + 1 });
    });
  };
  append(`${id}.lua`, []);
  const source = lines.join('\n');
  const sha1 = createHash('sha1').update(source).digest('hex');
  const script: LuaScript = {
    id,
    file: displayName(root, `${id}.lua`),
    source,
    sha1,
    // Two roots can hold different sources under one id: the name carries the hash.
    command: `swc_${id.replace(/[^A-Za-z0-9]/g, '_')}_${sha1.slice(0, 10)}`,
    lineMap,
  };
  cache.set(cacheKey, script);
  return script;
}

/** Rewrites `user_script:N` in a Redis error into the file and line it came from. */
export function locate(script: LuaScript, message: string): string {
  return message.replace(/user_script:(\d+)/g, (whole, n: string) => {
    const origin = script.lineMap[Number(n) - 1];
    return origin ? `${origin.file}:${origin.line}` : whole;
  });
}
