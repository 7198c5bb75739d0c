/**
 * The time guard put into scripts swc did not write before they run on a
 * server swc did not start (`--trust-scripts`).
 *
 * Redis cannot stop a script that wrote and then loops: SCRIPT KILL answers
 * UNKILLABLE, and only SHUTDOWN NOSAVE (which swc never sends) frees the
 * server. Nor does a run of slow C calls (a slow command, a long string
 * function) ever reach Redis's busy hook. So the script is made to give up
 * by itself: where the checks go is read from the script's syntax tree, as
 * Lua 5.1 reads it (luaparse: the same lexer rules as Lua's own, a bare CR
 * ending a comment and `\` + CR + LF being one escaped newline included),
 * never from a scan of the text:
 *
 * - before every statement of every block (the chunk, function bodies,
 *   `do`, loops, `if` branches), so straight-line code counts too;
 * - at the end of every `while` and `for` body (before its `end`) and at the
 *   start of every `repeat` body, so a loop with an empty body, or whose
 *   condition is the slow part, still passes a check on each turn.
 *
 * Each check adds its weight to a count: 1 for a statement without a call,
 * {@link GUARD_CALL_WEIGHT} for one with a call (a command or a C function,
 * the only things that can be slow within one statement). The first check
 * reads the server's clock (`TIME`), which starts the call's budget; later
 * checks read it again each time the count has grown by the interval, which
 * starts at one call's weight, doubles while readings come less than 2 ms apart (up to
 * {@link GUARD_MAX_INTERVAL}) and shrinks in proportion when they come
 * further apart. So at most 1024 / 64 = 16 calls run between two readings,
 * and slow ones are read one by one. A reading past the budget raises
 * `SWCGUARD` with the user's line; once raised, every later check raises
 * again, so a `pcall` around the loop cannot keep it going. Where TIME is
 * refused, the count alone stops the script at {@link GUARD_MAX_STEPS}.
 * `loadstring` and `load` are refused too, by name and through `_G`: code
 * made at run time would have no checks. A script that names `_G` gets a
 * copy of the globals with those two replaced (`rawget`, `pairs` and
 * missing-global errors behave as on the real table).
 *
 * Everything is inserted within its own line, and the guard's own code goes
 * in front of line 1, so Redis's line numbers still point at the user's
 * lines. What it cannot bound: a single C call that is slow by itself (one
 * huge `string.rep`, one slow command). The per-call checks after each call
 * (src/redis/call-limits.ts) still see those.
 */
import { createHash } from 'node:crypto';
import luaparse from 'luaparse';
import { UsageError } from '../core/errors.js';
import { isOwnScript, originOf, type LuaScript } from './source.js';

/** The weight of a statement with a call in it (a command or a C function may be slow), against 1 for one without. */
export const GUARD_CALL_WEIGHT = 64;
/** The most weight between two readings of the clock (when statements are fast). */
export const GUARD_MAX_INTERVAL = 1024;
/** The time two readings should be apart, in µs: slow statements make the interval shorter, fast ones longer. */
const INTERVAL_TARGET_US = 2000;
/** Weight after which a script stops when TIME cannot be read. */
export const GUARD_MAX_STEPS = 20_000_000;
/** The error code a guarded script answers with when it stops. */
export const GUARD_ERROR_CODE = 'SWCGUARD';

/**
 * The check's name: a suffix from the script's own SHA1, so no script can
 * name it to shadow it (a script cannot hold its own hash).
 */
const stepName = (source: string): string => `swc_guard_${sha1Of(source).slice(0, 12)}`;

/** The check inserted before a statement (`;` keeps a `(` that starts the next statement from reading as a call). */
const check = (name: string, weight: number): string => ` ${name}(${weight}); `;

/**
 * Lua, inside a function the user's code called: `' (at user_script:N)'`,
 * or '' where Lua cannot tell (a tail call). `error`'s level 3 from inside
 * `pcall` is the caller of the function that runs this.
 */
const CALLER_LINE = "local _, where = pcall(error, '', 3) where = where ~= '' and ' (at ' .. string.gsub(where, ': $', '') .. ')' or ''";

/** The guard's own code, one line, put in front of the script's first line. */
function prologue(budgetMs: number, name: string, copiesGlobals: boolean): string {
  const stop = (why: string): string => `${CALLER_LINE} stopped = {err = '${GUARD_ERROR_CODE} ${why}' .. where} error(stopped)`;
  const refused = `${GUARD_ERROR_CODE} loadstring and load are refused in a guarded script`;
  return [
    `local ${name}`,
    'do',
    `local call, units, nextAt, every, last, deadline, stopped = redis.pcall, 0, 0, ${GUARD_CALL_WEIGHT}, nil, nil, nil`,
    'local error, pcall, type, tonumber, floor, string = error, pcall, type, tonumber, math.floor, string',
    `${name} = function(weight)`,
    'if stopped then error(stopped) end',
    'units = units + weight',
    'if units < nextAt then return end',
    "local t = call('TIME')",
    "if type(t) ~= 'table' or t.err then",
    `if units >= ${GUARD_MAX_STEPS} then ${stop(`ran ${GUARD_MAX_STEPS} steps in one call (TIME refused)`)} end`,
    `nextAt = units + ${GUARD_MAX_INTERVAL} return end`,
    'local now = tonumber(t[1]) * 1000000 + tonumber(t[2])',
    `if last == nil then deadline = now + ${Math.round(budgetMs * 1000)}`,
    `elseif now - last > ${INTERVAL_TARGET_US} then every = floor(every * ${INTERVAL_TARGET_US} / (now - last)) if every < 1 then every = 1 end`,
    `elseif every < ${GUARD_MAX_INTERVAL} then every = every * 2 if every > ${GUARD_MAX_INTERVAL} then every = ${GUARD_MAX_INTERVAL} end end`,
    `if now > deadline then ${stop(`ran past its budget of ${budgetMs} ms in one call`)} end`,
    'last = now nextAt = units + every',
    'end',
    'end',
    // Code made at run time would have no checks: loadstring and load are refused, by name and through _G.
    `local loadstring = function() ${CALLER_LINE} error({err = '${refused}' .. where}) end`,
    'local load = loadstring',
    ...(copiesGlobals
      ? [
          'local _G = _G',
          'do',
          'local real, copy = _G, {}',
          'for k, v in pairs(real) do copy[k] = v end',
          'copy.loadstring, copy.load, copy._G = loadstring, loadstring, copy',
          // A missing global raises Redis's own error, at the user's line; a new one is refused as on the real table.
          'local meta = getmetatable(real)',
          "setmetatable(copy, {__index = type(meta) == 'table' and meta.__index or nil,",
          "__newindex = type(meta) == 'table' and meta.__newindex or function() error('Attempt to modify a readonly table', 2) end})",
          '_G = copy',
          'end',
        ]
      : []),
    '',
  ].join(' ');
}

/** A script the guard cannot read as Lua 5.1: it is not sent (exit 2). */
export class GuardParseError extends UsageError {}

/** The parts of luaparse's nodes the guard reads. */
interface LuaNode {
  readonly type: string;
  readonly range: [number, number];
  readonly body?: readonly LuaNode[];
  readonly clauses?: readonly LuaNode[];
  readonly [field: string]: unknown;
}

const isNode = (value: unknown): value is LuaNode => typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

const CALLS = new Set(['CallExpression', 'StringCallExpression', 'TableCallExpression']);
const LOOPS_ENDING_IN_END = new Set(['WhileStatement', 'ForNumericStatement', 'ForGenericStatement']);

/** Whether `node` calls a function outside the blocks and function bodies it holds (those are checked on their own). */
function callsOutsideBlocks(node: LuaNode): boolean {
  if (CALLS.has(node.type)) return true;
  for (const [field, value] of Object.entries(node)) {
    if (field === 'body' || node.type === 'FunctionDeclaration') continue;
    const children = Array.isArray(value) ? value : [value];
    if (children.some((child) => isNode(child) && callsOutsideBlocks(child))) return true;
  }
  return false;
}

/** Every place a check goes, as [offset, weight]. */
function checkPoints(chunk: LuaNode): [number, number][] {
  const points: [number, number][] = [];
  const weightOf = (node: LuaNode): number => (callsOutsideBlocks(node) ? GUARD_CALL_WEIGHT : 1);
  const visit = (node: LuaNode): void => {
    if (node.body) {
      for (const statement of node.body) points.push([statement.range[0], weightOf(statement)]);
      const last = node.body[node.body.length - 1];
      // A loop's turn passes a check even with an empty body; after a final break or return there is no next turn (nor may code follow).
      const endsTurn = last?.type === 'BreakStatement' || last?.type === 'ReturnStatement';
      // A generic for calls its iterator on every turn.
      const header = node.type === 'ForGenericStatement' ? GUARD_CALL_WEIGHT : weightOf(node);
      if (LOOPS_ENDING_IN_END.has(node.type) && !endsTurn) points.push([node.range[1] - 'end'.length, header]);
      if (node.type === 'RepeatStatement') points.push([node.range[0] + 'repeat'.length, header]);
    }
    for (const value of Object.values(node)) {
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child);
    }
  };
  visit(chunk);
  return points.sort((a, b) => a[0] - b[0]);
}

/** The syntax tree of `source` as Lua 5.1 reads it; a script it cannot read is a {@link GuardParseError}. */
function parse(source: string, script?: LuaScript): { chunk: LuaNode; namesG: boolean } {
  // A shebang (`#!lua flags=…`) is Redis's, not Lua's: blanked to the same length, so offsets stay.
  const text = source.startsWith('#!') ? source.replace(/^[^\r\n]*/, (line) => ' '.repeat(line.length)) : source;
  try {
    const chunk = luaparse.parse(text, { luaVersion: '5.1', ranges: true, scope: true, comments: false }) as unknown as LuaNode & {
      globals?: readonly { name: string }[];
    };
    return { chunk, namesG: (chunk.globals ?? []).some((g) => g.name === '_G') };
  } catch (err) {
    const { line, message } = err as { line?: number; message?: string };
    const origin = script && line !== undefined ? originOf(script, line) : undefined;
    const where = origin ? `${origin.file}:${origin.line}` : (script?.file ?? 'a script');
    throw new GuardParseError(
      `${where}: refused: swc cannot read this script as Lua 5.1 (${String(message).replace(/^\[\d+:\d+\] /, '')}), so it cannot put its time guard in; nothing was sent`,
    );
  }
}

/** `source` with the guard in: same number of lines, each user line where it was. */
export function guardSource(source: string, budgetMs: number, script?: LuaScript): string {
  const name = stepName(source);
  const { chunk, namesG } = parse(source, script);
  let out = '';
  let from = 0;
  for (const [at, weight] of checkPoints(chunk)) {
    out += source.slice(from, at) + check(name, weight);
    from = at;
  }
  const guarded = out + source.slice(from);
  const head = prologue(budgetMs, name, namesG);
  // A shebang (`#!lua flags=…`) must stay the first line: the guard goes in front of the second.
  if (guarded.startsWith('#!')) {
    const eol = /\r\n|\n\r|\r|\n/.exec(guarded);
    return eol === null ? guarded : `${guarded.slice(0, eol.index + eol[0].length)}${head}${guarded.slice(eol.index + eol[0].length)}`;
  }
  return head + guarded;
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
    const source = guardSource(script.source, budgetMs, script);
    copy = { ...script, source, sha1: sha1Of(source) };
    guardedCopies.add(copy);
    byBudget.set(budgetMs, copy);
  }
  return copy;
}
