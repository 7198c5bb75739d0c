/** Lua sources: reading a script with its includes, wrapping it for an injected clock, and the calls built from them. */
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { InputFileError } from '../core/errors.js';
import { packagePath } from '../core/package-root.js';
import { readInputFile } from '../core/json-file.js';

/** The `lua/` folder at the package root. */
export const LUA_DIR = packagePath('lua/');

/**
 * How a script pulls in shared Lua:
 * - `swc`: a line `--include <path>` (path under the root, with `.lua`),
 *   each file spliced in at most once per script (swc's own `lua/`);
 * - `stoplight`: a line matching `^--\s*@include\s+([\w\-/]+)$`, replaced by
 *   the text of `<root>/<name>.lua`, recursively, every time it appears, as
 *   Stoplight's own loader does, so the resolved source (and its SHA1) is the
 *   one Stoplight would load;
 * - `none`: no include lines.
 */
export type IncludeConvention = 'swc' | 'stoplight' | 'none';

/** The include conventions, for validation messages. */
export const INCLUDE_CONVENTIONS: readonly IncludeConvention[] = ['swc', 'stoplight', 'none'];

const SWC_INCLUDE = /^--include\s+(\S+)\s*$/;
// Stoplight's loader runs a Ruby regex whose `^`/`$` are line anchors; per
// line, a JS regex anchored on the whole line matches the same lines (a line
// ending in \r does not match in either).
const STOPLIGHT_INCLUDE = /^--\s*@include\s+([\w\-/]+)$/;

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

/** What {@link loadScript} reads. */
export interface ScriptSource {
  /** The folder includes are resolved against. */
  readonly root: string;
  /** The script's path under `root`, with its extension. */
  readonly file: string;
  readonly includes: IncludeConvention;
  /** The script's id (default: `file` without `.lua`). */
  readonly id?: string;
}

const cache = new Map<string, LuaScript>();

/**
 * Bounds on include expansion. Stoplight's convention splices a file every
 * time it is named, so a "diamond" of includes grows exponentially (25
 * levels would be gigabytes); a real script is a few kilobytes, with two or
 * three levels of includes.
 */
export const INCLUDE_LIMITS = {
  /** Includes nested deeper than this are refused. */
  depth: 16,
  /** The resolved source of one script may not exceed this many bytes. */
  bytes: 1024 * 1024,
  /** Include lines expanded in one script, at most. */
  expansions: 10_000,
} as const;

/** The real path of `root`, or the path itself when it cannot be resolved (reading it will say why). */
function realOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/**
 * Refuses a script or include path that leaves `root` once symlinks and
 * `..` are resolved: an include is uploaded to the server as script text,
 * so it must not pull in an arbitrary file of the machine.
 */
function insideRoot(root: string, relative: string): string | null {
  const base = realOr(root);
  const target = realOr(path.resolve(root, relative));
  if (target === base || target.startsWith(base.endsWith(path.sep) ? base : base + path.sep)) return null;
  return `resolves to ${target}, outside the scripts folder ${base}: includes and scripts must stay inside it`;
}

/** How a file under `root` is named in messages: `lua/…` for swc's own scripts, else its path. */
function displayName(root: string, relative: string): string {
  // The real path, not the spelling: an edited copy passed as `--scripts lua` from another folder is named by its absolute path.
  return realOr(root) === realOr(LUA_DIR) ? `lua/${relative}` : path.resolve(root, relative);
}

function finish(id: string, file: string, lines: readonly string[], lineMap: LuaScript['lineMap']): LuaScript {
  const source = lines.join('\n');
  const sha1 = createHash('sha1').update(source).digest('hex');
  return {
    id,
    file,
    source,
    sha1,
    // Two roots can hold different sources under one id: the name carries the hash.
    command: `swc_${id.replace(/[^A-Za-z0-9]/g, '_')}_${sha1.slice(0, 10)}`,
    lineMap,
  };
}

/**
 * Reads a script under `root` and resolves its includes by `includes`'
 * convention. A file that cannot be read, or an include cycle, is an
 * {@link InputFileError} naming the including file and line.
 */
export function loadScript(options: ScriptSource): LuaScript {
  const { root, file, includes } = options;
  const id = options.id ?? file.replace(/\.lua$/, '');
  const cacheKey = `${path.resolve(root)}\u0000${file}\u0000${includes}\u0000${id}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const lines: string[] = [];
  const lineMap: { file: string; line: number }[] = [];
  const seen = new Set<string>();
  // Each file is read from disk once, however often it is spliced in.
  const texts = new Map<string, string>();
  let bytes = 0;
  let expansions = 0;
  /** `from`: the including file and line, for messages. */
  const append = (relative: string, chain: readonly string[], from?: { file: string; line: number; text: string }): void => {
    const at = from ? `${displayName(root, from.file)}:${from.line}` : displayName(root, relative);
    const named = from ? `"${from.text.trim()}": ` : '';
    if (chain.includes(relative)) {
      throw new InputFileError(at, `include cycle (${[...chain, relative].join(' -> ')})`);
    }
    if (chain.length >= INCLUDE_LIMITS.depth) {
      throw new InputFileError(at, `${named}includes nested more than ${INCLUDE_LIMITS.depth} deep (${[...chain, relative].join(' -> ')})`);
    }
    if (from && (expansions += 1) > INCLUDE_LIMITS.expansions) {
      throw new InputFileError(at, `${named}more than ${INCLUDE_LIMITS.expansions.toLocaleString('en-US')} includes expanded in one script (an include bomb?)`);
    }
    const outside = insideRoot(root, relative);
    if (outside) throw new InputFileError(at, `${named}${relative}: ${outside}`);
    if (includes === 'swc') {
      if (seen.has(relative)) return;
      seen.add(relative);
    }
    let text = texts.get(relative);
    if (text === undefined) {
      try {
        // Like every input file: a FIFO or a device in an edited scripts folder
        // must not block swc beyond the reach of Ctrl-C, nor fill its memory.
        text = readInputFile(path.join(root, relative));
      } catch (err) {
        const why = err instanceof InputFileError ? err.problem : `cannot read (${(err as Error).message})`;
        throw new InputFileError(at, from ? `${named}${displayName(root, relative)}: ${why}` : why);
      }
      texts.set(relative, text);
    }
    text.split('\n').forEach((line, index) => {
      const include = includes === 'swc' ? SWC_INCLUDE.exec(line) : includes === 'stoplight' ? STOPLIGHT_INCLUDE.exec(line) : null;
      if (include?.[1]) {
        const target = includes === 'swc' ? include[1] : `${include[1]}.lua`;
        append(target, [...chain, relative], { file: relative, line: index + 1, text: line });
        return;
      }
      // Checked as lines are added, so an exponential expansion stops at the bound, not after it.
      bytes += Buffer.byteLength(line) + 1;
      if (bytes > INCLUDE_LIMITS.bytes) {
        throw new InputFileError(
          displayName(root, file),
          `the script with its includes exceeds ${INCLUDE_LIMITS.bytes / 1024 / 1024} MiB (at ${displayName(root, relative)}:${index + 1}): an include bomb or a file that is not a script`,
        );
      }
      lines.push(line);
      lineMap.push({ file: displayName(root, relative), line: index + 1 });
    });
  };
  append(file, []);
  const script = finish(id, displayName(root, file), lines, lineMap);
  cache.set(cacheKey, script);
  return script;
}

/**
 * Reads `<root>/<id>.lua` (root: swc's own `lua/` folder, or an edited copy
 * of it), replacing each `--include <path>` line with that file under the
 * same root (each file at most once), so shared Lua lives in one place.
 */
export function readScript(id: string, root: string = LUA_DIR): LuaScript {
  return loadScript({ root, file: `${id}.lua`, includes: 'swc', id });
}

/**
 * Lines put in front of a script that reads the clock from Redis `TIME`, so
 * it can run unchanged under an injected clock. The caller appends one extra
 * ARGV: the injected time in whole microseconds, or '' for the server's own
 * clock. The prologue takes that value off, rebinds `ARGV` to a copy without
 * it (the script sees exactly the ARGV it expects), and shadows `redis` with
 * a table whose `call`/`pcall` answer `TIME` with the injected time and pass
 * every other command, and every other field (`log`, `sha1hex`, constants…),
 * to the real one. Locals, not globals: Redis 7 refuses to assign globals in
 * scripts, and a local shadows the global for the rest of the chunk, includes
 * spliced below included.
 *
 * Redis names the line that raised an error, which for a failed command is
 * now the wrapper's; so `call` runs the command with `pcall` and, on an error
 * reply, adds the script's own line (`called at user_script:N`, found with
 * `error`'s level argument since scripts have no debug library) before
 * raising it. A call in tail position (`return redis.call(…)`) has no line
 * left to name.
 */
const CLOCK_PROLOGUE = [
  '-- swc: injected clock (see src/lua/source.ts); the script follows unchanged.',
  'local swc_real_redis = redis',
  'local swc_injected_us = ARGV[#ARGV]',
  'local ARGV = (function(all) local copy = {} for i = 1, #all - 1 do copy[i] = all[i] end return copy end)(ARGV)',
  'local function swc_time(command)',
  "  if swc_injected_us == '' or type(command) ~= 'string' or string.upper(command) ~= 'TIME' then return nil end",
  '  local us = tonumber(swc_injected_us)',
  "  return { string.format('%d', math.floor(us / 1000000)), string.format('%d', us % 1000000) }",
  'end',
  'local redis = setmetatable({',
  '  call = function(command, ...)',
  '    local injected = swc_time(command)',
  '    if injected then return injected end',
  '    local reply = swc_real_redis.pcall(command, ...)',
  "    if type(reply) == 'table' and reply.err then",
  "      local _, where = pcall(error, '', 3)",
  "      if where ~= '' then reply.err = reply.err .. ' (called at ' .. string.gsub(where, ': $', '') .. ')' end",
  '      error(reply)',
  '    end',
  '    return reply',
  '  end,',
  '  pcall = function(command, ...) return swc_time(command) or swc_real_redis.pcall(command, ...) end,',
  '}, { __index = swc_real_redis })',
];

/** Where the prologue's lines come from, in error messages. */
export const PROLOGUE_FILE = "swc's clock wrapper";

/**
 * The script wrapped so that `redis.call('TIME')` and `redis.pcall('TIME')`
 * return an injected time passed as one extra, last ARGV (see
 * {@link injectedTimeArg}); every other call passes through, and the script
 * sees exactly the KEYS and ARGV it was written for.
 */
export function withInjectedClock(script: LuaScript): LuaScript {
  const lines = [...CLOCK_PROLOGUE, ...script.source.split('\n')];
  const lineMap = [...CLOCK_PROLOGUE.map((_, i) => ({ file: PROLOGUE_FILE, line: i + 1 })), ...script.lineMap];
  return finish(`${script.id}+clock`, script.file, lines, lineMap);
}

/** The extra ARGV of a {@link withInjectedClock} script: whole microseconds, or '' for the server's clock. */
export function injectedTimeArg(at: number | undefined): string {
  if (at === undefined) return '';
  const second = Math.floor(at);
  // Rounding to whole microseconds must not carry into the next second:
  // hour keys and buckets are chosen from floor(at) on this side.
  return String(Math.min(Math.round(at * 1_000_000), second * 1_000_000 + 999_999));
}

/**
 * The index in `lineMap` (lines split at LF) of Lua's line `n` of `source`:
 * Lua also ends a line at a bare CR, and reads CR LF or LF CR as one end.
 */
function lineIndex(source: string, n: number): number {
  if (!source.includes('\r')) return n - 1;
  let line = 1;
  let lf = 0;
  for (let i = 0; i < source.length && line < n; i += 1) {
    const c = source[i];
    if (c !== '\n' && c !== '\r') continue;
    const next = source[i + 1];
    if ((next === '\n' || next === '\r') && next !== c) i += 1;
    if (c === '\n' || next === '\n') lf += 1;
    line += 1;
  }
  return lf;
}

/** The file and line Lua's line `n` of `script` came from (Lua counts a bare CR as a line end too). */
export const originOf = (script: LuaScript, n: number): LuaScript['lineMap'][number] | undefined => script.lineMap[lineIndex(script.source, n)];

/** Rewrites `user_script:N` in a Redis error into the file and line it came from. */
export function locate(script: LuaScript, message: string): string {
  return message.replace(/user_script:(\d+)/g, (whole, n: string) => {
    const origin = originOf(script, Number(n));
    return origin ? `${origin.file}:${origin.line}` : whole;
  });
}

let ownHashes: ReadonlySet<string> | undefined;

/** Every `.lua` file under `dir`, as paths relative to it. */
function luaFiles(dir: string, under = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(dir, under), { withFileTypes: true })) {
    const relative = under ? `${under}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...luaFiles(dir, relative));
    else if (entry.isFile() && entry.name.endsWith('.lua')) out.push(relative);
  }
  return out;
}

/**
 * Whether `script` is byte for byte one of the installed swc's own scripts
 * (read from `lua/` beside this module, includes resolved; bare or under
 * swc's clock wrapper). Trust is decided by content, never by path: an
 * edited copy of `lua/`, wherever it lives and however it is spelled, is
 * the user's.
 */
export function isOwnScript(script: LuaScript): boolean {
  if (!ownHashes) {
    const hashes = new Set<string>();
    for (const file of luaFiles(LUA_DIR)) {
      let own: LuaScript;
      try {
        own = loadScript({ root: LUA_DIR, file, includes: 'swc' });
      } catch {
        continue; // a fragment that does not stand alone is no script of its own
      }
      hashes.add(own.sha1).add(withInjectedClock(own).sha1);
    }
    ownHashes = hashes;
  }
  return ownHashes.has(script.sha1);
}
