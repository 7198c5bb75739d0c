/**
 * The time guard put into scripts swc did not write before they run on a
 * server swc did not start (`--trust-scripts`).
 *
 * Redis cannot stop a script that wrote and then loops: SCRIPT KILL answers
 * UNKILLABLE, and only SHUTDOWN NOSAVE (which swc never sends) frees the
 * server. So the script is made to give up by itself. Every place where Lua
 * can run without end goes through a check first:
 *
 * - the start of every loop body (after each `do`, which covers `while`,
 *   `for` and plain blocks, and after each `repeat`);
 * - the start of every function body (recursion, tail calls, callbacks of
 *   `table.sort` or `string.gsub`).
 *
 * The check counts steps. At step {@link GUARD_FIRST_READING} it reads the
 * server's clock (`TIME`), which starts the call's budget; then it reads it
 * again every 1 to {@link GUARD_MAX_INTERVAL} steps, aiming at a reading
 * every 2 ms (slow steps, such as a command per step, are read more often).
 * A reading past the budget raises `SWCGUARD` with a message. Once raised,
 * every later step raises again, so a `pcall` around the loop cannot keep
 * it going. A script of fewer steps never reads the clock. Where TIME is
 * refused, the count alone stops the script at {@link GUARD_MAX_STEPS}.
 * `loadstring` and `load` are refused too: code made at run time would have
 * no checks.
 *
 * Everything is inserted within its own line, and the guard's own code goes
 * in front of line 1, so Redis's line numbers still point at the user's
 * lines. What it cannot bound: a single C call that is slow by itself (one
 * huge `string.rep`, one slow command). The per-call checks after each call
 * (src/redis/call-limits.ts) still see those.
 */
import { createHash } from 'node:crypto';
import { isOwnScript, type LuaScript } from './source.js';

/** Steps before the first reading of the clock: a script of fewer steps never reads it. */
export const GUARD_FIRST_READING = 64;
/** The most steps between two readings of the clock (when steps are fast). */
export const GUARD_MAX_INTERVAL = 1024;
/** The time two readings should be apart, in µs: slow steps make the interval shorter, fast ones longer. */
const INTERVAL_TARGET_US = 2000;
/** Steps after which a script stops when TIME cannot be read. */
export const GUARD_MAX_STEPS = 20_000_000;
/** The error code a guarded script answers with when it stops. */
export const GUARD_ERROR_CODE = 'SWCGUARD';

/**
 * The check's name: a suffix from the script's own SHA1, so no script can
 * name it to shadow it (a script cannot hold its own hash).
 */
const stepName = (source: string): string => `swc_guard_${sha1Of(source).slice(0, 12)}`;

/** The check inserted at each loop and function start (`;` keeps `(` on the next token from reading as a call). */
const check = (name: string): string => ` ${name}(); `;

/** The guard's own code, one line, put in front of the script's first line. */
function prologue(budgetMs: number, name: string): string {
  const stop = (why: string): string => `stopped = {err = '${GUARD_ERROR_CODE} ${why}'} error(stopped)`;
  return [
    `local ${name}`,
    'do',
    `local call, steps, nextAt, every, last, deadline, stopped = redis.pcall, 0, ${GUARD_FIRST_READING}, ${GUARD_FIRST_READING}, nil, nil, nil`,
    `${name} = function()`,
    'if stopped then error(stopped) end',
    'steps = steps + 1',
    'if steps < nextAt then return end',
    "local t = call('TIME')",
    "if type(t) ~= 'table' or t.err then",
    `if steps >= ${GUARD_MAX_STEPS} then ${stop(`ran ${GUARD_MAX_STEPS} steps in one call (TIME refused)`)} end`,
    `nextAt = steps + ${GUARD_MAX_INTERVAL} return end`,
    'local now = tonumber(t[1]) * 1000000 + tonumber(t[2])',
    `if last == nil then deadline = now + ${Math.round(budgetMs * 1000)}`,
    `elseif now - last > ${INTERVAL_TARGET_US} then every = math.max(1, math.floor(every * ${INTERVAL_TARGET_US} / (now - last)))`,
    `elseif every < ${GUARD_MAX_INTERVAL} then every = every * 2 end`,
    `if now > deadline then ${stop(`ran past its budget of ${budgetMs} ms in one call`)} end`,
    'last = now nextAt = steps + every',
    'end',
    'end',
    // Code made at run time would have no checks: loadstring and load are refused, by name and through _G.
    "local loadstring = function() error({err = 'SWCGUARD loadstring and load are refused in a guarded script'}) end",
    'local load = loadstring',
    'local _G, rawget',
    'do',
    'local realG, realRawget = _G, rawget',
    'local proxy = {}',
    "setmetatable(proxy, {__index = function(_, k) if k == 'loadstring' or k == 'load' then return loadstring end if k == '_G' then return proxy end return realG[k] end,",
    '__newindex = function(_, k, v) realG[k] = v end, __metatable = false})',
    '_G = proxy',
    'rawget = function(t, k) if t == realG or t == proxy then return proxy[k] end return realRawget(t, k) end',
    'end',
    '',
  ].join(' ');
}

type Token = { readonly kind: 'name' | 'other'; readonly text: string; readonly end: number };

/** Where a long bracket (`[[`, `[==[`) opens at `i`: its level, or -1. */
function longBracketLevel(source: string, i: number): number {
  if (source[i] !== '[') return -1;
  let j = i + 1;
  while (source[j] === '=') j += 1;
  return source[j] === '[' ? j - i - 1 : -1;
}

/** The index just past the long bracket of `level` opened at `i` (the end of the source if it never closes). */
function skipLongBracket(source: string, i: number, level: number): number {
  const close = `]${'='.repeat(level)}]`;
  const at = source.indexOf(close, i + level + 2);
  return at === -1 ? source.length : at + close.length;
}

/** The tokens that matter to the guard (names and punctuation), strings and comments skipped. */
function* tokens(source: string): Generator<Token> {
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (c === '-' && source[i + 1] === '-') {
      const level = longBracketLevel(source, i + 2);
      if (level >= 0) i = skipLongBracket(source, i + 2, level);
      else {
        const eol = source.indexOf('\n', i);
        i = eol === -1 ? source.length : eol;
      }
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== c && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      i = j + 1;
    } else if (c === '[' && longBracketLevel(source, i) >= 0) {
      i = skipLongBracket(source, i, longBracketLevel(source, i));
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < source.length && /[A-Za-z0-9_]/.test(source[j] as string)) j += 1;
      yield { kind: 'name', text: source.slice(i, j), end: j };
      i = j;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      // A number (with exponent signs and hex digits): no keyword hides in it.
      let j = i + 1;
      while (j < source.length && /[0-9A-Za-z_.]/.test(source[j] as string))
        j += /[eEpP]/.test(source[j] as string) && /[+-]/.test(source[j + 1] ?? '') ? 2 : 1;
      i = j;
    } else {
      if (!/\s/.test(c)) yield { kind: 'other', text: c, end: i + 1 };
      i += 1;
    }
  }
}

/** The offsets where a check goes: after each `do` and `repeat`, and after each function's parameter list. */
function checkPoints(source: string): number[] {
  const points: number[] = [];
  let inFunction = false;
  let inParameters = false;
  for (const token of tokens(source)) {
    if (token.kind === 'name' && (token.text === 'do' || token.text === 'repeat')) points.push(token.end);
    else if (token.kind === 'name' && token.text === 'function') inFunction = true;
    else if (inFunction && token.text === '(') {
      inFunction = false;
      inParameters = true;
    } else if (inParameters && token.text === ')') {
      inParameters = false;
      points.push(token.end);
    }
  }
  return points;
}

/** `source` with the guard in: same number of lines, each user line where it was. */
export function guardSource(source: string, budgetMs: number): string {
  const name = stepName(source);
  let out = '';
  let from = 0;
  for (const at of checkPoints(source)) {
    out += source.slice(from, at) + check(name);
    from = at;
  }
  const guarded = out + source.slice(from);
  // A shebang (`#!lua flags=…`) must stay the first line: the guard goes in front of the second.
  if (guarded.startsWith('#!')) {
    const eol = guarded.indexOf('\n');
    return eol === -1 ? guarded : `${guarded.slice(0, eol + 1)}${prologue(budgetMs, name)}${guarded.slice(eol + 1)}`;
  }
  return prologue(budgetMs, name) + guarded;
}

/** The SHA1 Redis gives a source. */
export const sha1Of = (source: string): string => createHash('sha1').update(source).digest('hex');

/** Guarded copies made so far, per script and budget; and the copies themselves (a copy is never guarded twice). */
const copies = new WeakMap<LuaScript, Map<number, LuaScript>>();
const guardedCopies = new WeakSet<LuaScript>();

/**
 * `script` with the guard in, for a call budget of `budgetMs`: the same id,
 * file and lines, its own source and SHA1 (so it is loaded and called by
 * that SHA1). swc's own scripts, and copies that are guarded already, come
 * back as they are.
 */
export function guardedScript(script: LuaScript, budgetMs: number): LuaScript {
  if (guardedCopies.has(script) || isOwnScript(script)) return script;
  let byBudget = copies.get(script);
  if (!byBudget) copies.set(script, (byBudget = new Map()));
  let copy = byBudget.get(budgetMs);
  if (!copy) {
    const source = guardSource(script.source, budgetMs);
    copy = { ...script, source, sha1: sha1Of(source) };
    guardedCopies.add(copy);
    byBudget.set(budgetMs, copy);
  }
  return copy;
}
