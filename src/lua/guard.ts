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
 * The one C call no check can interrupt is weighed before it runs: a
 * pattern match (`string.find`, `match`, `gmatch`, `gsub`) by the steps it
 * may take, `string.rep`, `format`, `gsub` and `table.concat` by the bytes
 * they may build; every check reads the Lua heap too. On a user's server,
 * what each call sends to Redis is weighed against the per-call bound
 * (`sentBytes`): a call that behaved in swc's rehearsal cannot write
 * megabytes there and make Redis evict.
 *
 * Everything is inserted within its own line, and the guard's own code goes
 * in front of line 1, so Redis's line numbers still point at the user's
 * lines. What it cannot bound: one slow command (a SORT, a SUNIONSTORE of
 * the run's own big sets), and data a command copies within the namespace;
 * the per-call checks after each call (src/redis/call-limits.ts) see those.
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
/** The Lua heap budget (used_memory_lua, which maxmemory does not count): what the scripts' heap, and the server's RSS with it, may grow by. */
export const GUARD_LUA_HEAP_BYTES = 8 * 1024 * 1024;
/**
 * The most one guarded call's Lua heap may grow (`collectgarbage('count')`):
 * an eighth of the budget, since building a string takes up to about three
 * times its size in RSS at its peak (the string it grew from, Lua's
 * concatenation buffer, the new string), and the allocator keeps some of it
 * (a doubling loop stopped at a quarter of the budget grew a server's peak
 * RSS by 8.4 MB, beyond its own used_memory).
 * One string or table function may build half of that (its buffer doubles).
 */
export const GUARD_CALL_HEAP_BYTES = GUARD_LUA_HEAP_BYTES / 8;
/** Pattern-matching steps one string function may take, per ms of the call's budget (about 2 × 10⁸ steps a second on a laptop core: one call under the bound takes under half the budget). */
export const GUARD_PATTERN_STEPS_PER_MS = 100_000;
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

/** What the script names that the guard shadows: `_G` (a copy of the globals), `getmetatable` (a string's metatable leads to the string functions). */
interface Shadows {
  readonly globals: boolean;
  readonly getmetatable: boolean;
}

/** The guard's own code, one line, put in front of the script's first line. */
function prologue(budgetMs: number, name: string, shadows: Shadows, sentBytes: number): string {
  const stop = (why: string): string => `${CALLER_LINE} stopped = {err = '${GUARD_ERROR_CODE} ${why}' .. where} error(stopped)`;
  const refused = `${GUARD_ERROR_CODE} loadstring and load are refused in a guarded script`;
  const heap = GUARD_CALL_HEAP_BYTES;
  const built = GUARD_CALL_HEAP_BYTES / 2;
  const steps = Math.round(budgetMs * GUARD_PATTERN_STEPS_PER_MS);
  const overHeap = `bytes, over the ${built} bytes one call of it may build`;
  return [
    `local ${name}, ${name}_f, ${name}_S, ${name}_T, ${name}_R, ${name}_J, ${name}_P, ${name}_c, ${name}_a, ${name}_m, ${name}_w = nil, nil, string, table, redis, cjson, cmsgpack`,
    'do',
    `local call, units, nextAt, every, last, deadline, stopped = redis.pcall, 0, 0, ${GUARD_CALL_WEIGHT}, nil, nil, nil`,
    'local error, pcall, type, tonumber, floor, string, gc, heapAt = error, pcall, type, tonumber, math.floor, string, collectgarbage, nil',
    // A stop raised from `level` frames up (4: the caller of the function that calls it), naming the user's line.
    // A few frames up, nearest first (`(at user_script:1 < user_script:39)`): a wrapper's own line comes before the user's, which the message picks.
    `${name}_f = function(why, level) local at = {} for l = level, level + 3 do local _, w = pcall(error, '', l) if w ~= '' then at[#at + 1] = (string.gsub(w, ': $', '')) end end`,
    `local where = #at > 0 and ' (at ' .. table.concat(at, ' < ') .. ')' or '' stopped = {err = '${GUARD_ERROR_CODE} ' .. why .. where} error(stopped) end`,
    `${name} = function(weight)`,
    'if stopped then error(stopped) end',
    // The Lua heap, at every check: one statement can double a string, so a reading now and then would let it reach gigabytes.
    "local kb = gc('count')",
    `if heapAt == nil then heapAt = kb elseif (kb - heapAt) * 1024 > ${heap} then gc('collect') kb = gc('count')`,
    `if (kb - heapAt) * 1024 > ${heap} then ${name}_f("grew the scripts' Lua heap (used_memory_lua, which maxmemory does not count) by " .. floor((kb - heapAt) * 1024) .. ' bytes in one call, over the ${heap} bytes one call may grow it (an eighth of the budget of ${GUARD_LUA_HEAP_BYTES} bytes, for the RSS of the server)', 4) end end`,
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
    'local string, table, cjson, cmsgpack = string, table, cjson, cmsgpack',
    // One C call the checks cannot interrupt: a pattern match that backtracks (a dozen bytes of pattern can hold a server for hours, with
    // no BUSY answer), or a string or table function that builds gigabytes. Each is weighed before it runs: the steps a match may take
    // (start positions × ways its repetitions can split the subject), and the bytes a result may hold.
    'do',
    `local S, T, type, tostring, tonumber, select, rawget, floor, fail = string, table, type, tostring, tonumber, select, rawget, math.floor, ${name}_f`,
    `local byte, STEPS, BYTES = S.byte, ${steps}, ${built}`,
    'local function classEnd(p, i, lp) local c = byte(p, i) i = i + 1 if c == 37 then return i + 1 end',
    'if c == 91 then if byte(p, i) == 94 then i = i + 1 end repeat if i > lp then return i end local d = byte(p, i) i = i + 1 if d == 37 and i <= lp then i = i + 1 end until byte(p, i) == 93 return i + 1 end return i end',
    "local function steps(s, p, plain) if type(s) == 'number' then s = tostring(s) end if type(p) == 'number' then p = tostring(p) end",
    "if type(s) ~= 'string' or type(p) ~= 'string' then return 0 end",
    'local n, lp = #s, #p if plain then return (n + 1) * (lp + 1) end',
    'local i, q, o, items, starts = 1, 0, 0, 0, n + 1 if byte(p, 1) == 94 then starts, i = 1, 2 end',
    'while i <= lp do local c, d = byte(p, i), byte(p, i + 1)',
    'if c == 40 or c == 41 then i = i + 1 elseif c == 36 and i == lp then i = i + 1',
    'elseif c == 37 and d == 98 then q, items, i = q + 1, items + 1, i + 4 elseif c == 37 and d == 102 then i = classEnd(p, i + 2, lp)',
    'elseif c == 37 and d and d >= 48 and d <= 57 then q, items, i = q + 1, items + 1, i + 2',
    'else local e = classEnd(p, i, lp) local x = byte(p, e) items = items + 1',
    'if x == 42 or x == 43 or x == 45 then q, i = q + 1, e + 1 elseif x == 63 then o, i = o + 1, e + 1 else i = e end end end',
    'local ways = 1 for k = 1, q do ways = ways * (n + k) / k if ways > STEPS then break end end',
    'local single = items - q return starts * ways * 2 ^ o * (single > 1 and single or 1) end',
    "local function size(v) if type(v) == 'string' then return #v elseif type(v) == 'number' then return 24 end return 0 end",
    "local function tally(v, depth, built) local t = type(v) if t == 'string' then return built + #v + 2 end if t ~= 'table' or depth > 1000 then return built + 24 end",
    'for k, x in pairs(v) do built = tally(x, depth + 1, tally(k, depth + 1, built)) if built > BYTES then return built end end return built + 2 end',
    'local function over(fname, n, a, b, c, d, ...)',
    "if fname == 'find' or fname == 'match' or fname == 'gmatch' or fname == 'gsub' then",
    "local cost = steps(a, b, fname == 'find' and d)",
    `if cost > STEPS then return 'string.' .. fname .. ' could take ' .. S.format('%.3g', cost) .. ' pattern-matching steps in one C call, over the ' .. STEPS .. ' that fit its budget of ${budgetMs} ms' end`,
    "if fname == 'gsub' and (type(c) == 'string' or type(c) == 'number') then local m, lim = size(a) + 1, tonumber(d) if lim and lim < m then m = lim end if m < 0 then m = 0 end",
    "local built = size(a) + m * size(c) + select(2, S.gsub(tostring(c), '%%', '')) * size(a)",
    `if built > BYTES then return 'string.gsub could build ' .. S.format('%.0f', built) .. ' ${overHeap}' end end`,
    "elseif fname == 'rep' then local m = tonumber(b) if m and size(a) * m > BYTES then",
    `return 'string.rep would build ' .. S.format('%.0f', size(a) * m) .. ' ${overHeap}' end`,
    "elseif fname == 'format' then local built, args = 0, {a, b, c, d, ...} for k = 1, n do local v = args[k] built = built + (type(v) == 'string' and 2 * #v + 2 or 512) end",
    `if built > BYTES then return 'string.format could build ' .. S.format('%.0f', built) .. ' ${overHeap}' end`,
    "elseif fname == 'concat' and type(a) == 'table' then local gap, built = size(b == nil and '' or b), 0",
    "for k = tonumber(c) or 1, tonumber(d) or #a do local v = rawget(a, k) if type(v) ~= 'string' and type(v) ~= 'number' then break end built = built + size(v) + gap",
    `if built > BYTES then return 'table.concat would build more than the ${built} bytes one call of it may build' end end`,
    // cjson.encode and cmsgpack.pack of a table holding one big string many times would build all of it in one C call.
    "elseif fname == 'encode' or fname == 'pack' then local built = 0 for _, v in pairs({a, b, c, d, ...}) do built = tally(v, 0, built) end",
    `if built > BYTES then return (fname == 'encode' and 'cjson.encode' or 'cmsgpack.pack') .. ' would build more than the ${built} bytes one call of it may build' end`,
    'end return nil end',
    // gsub with a function or a table: each replacement is counted as it is made.
    "local function counted(repl, s) if type(repl) ~= 'function' and type(repl) ~= 'table' then return repl end local built = size(s)",
    "return function(...) local v if type(repl) == 'table' then v = repl[(...)] else v = repl(...) end built = built + size(v)",
    `if built > BYTES then fail('string.gsub built more than the ${built} bytes one call of it may build', 5) end return v end end`,
    // Calls written `string.rep(…)` call the real function at the user's line, their arguments weighed first (errors as without the guard).
    `${name}_c = function(fname, ...) local w = over(fname, select('#', ...), ...) if w then fail(w, 4) end`,
    "if fname == 'gsub' then local a, b, c = ... local r = counted(c, a) if r ~= c then return a, b, r, select(4, ...) end end return ... end",
    // `s:rep(…)` on a name or a literal: the same call at the user's line, its arguments (all but the string) weighed with the string first.
    `${name}_a = function(fname, o, ...) local w = over(fname, select('#', ...) + 1, o, ...) if w then fail(w, 4) end`,
    "if fname == 'gsub' then local b, c = ... local r = counted(c, o) if r ~= c then return b, r, select(3, ...) end end return ... end",
    // `f():rep(…)` on a computed string (the string's own metatable leads to the real functions).
    `${name}_m = function(o, fname, ...) if type(o) ~= 'string' then return o[fname](o, ...) end`,
    "local w = over(fname, select('#', ...) + 1, o, ...) if w then fail(w, 4) end",
    "if fname == 'gsub' then local b, c = ... return S.gsub(o, b, counted(c, o), select(3, ...)) end return S[fname](o, ...) end",
    // The same functions reached any other way (`local rep = string.rep`, `_G.string`, a string's metatable): weighed in a wrapper.
    `local function wrap(fname, lib) return function(...) local w = over(fname, select('#', ...), ...) if w then fail(w, 4) end`,
    "if fname == 'gsub' then local a, b, c = ... return S.gsub(a, b, counted(c, a), select(4, ...)) end return lib[fname](...) end end",
    'local gs, gt = {}, {} for k, v in pairs(S) do gs[k] = v end for k, v in pairs(T) do gt[k] = v end',
    `for _, f in pairs({'find', 'match', 'gmatch', 'gsub', 'rep', 'format'}) do gs[f] = wrap(f, S) end gt.concat = wrap('concat', T)`,
    `string, table = gs, gt`,
    "if type(cjson) == 'table' then local j = {} for k, v in pairs(cjson) do j[k] = v end j.encode = wrap('encode', cjson) cjson = j end",
    "if type(cmsgpack) == 'table' then local m = {} for k, v in pairs(cmsgpack) do m[k] = v end m.pack = wrap('pack', cmsgpack) cmsgpack = m end",
    'end',
    // What one call sends to Redis (arguments, and the offsets SETRANGE, SETBIT and BITFIELD write up to), against what one call may
    // write on this server: a call that behaves in swc's rehearsal and writes megabytes on the user's server would make Redis evict.
    'local redis = redis',
    ...(sentBytes > 0
      ? [
          'do',
          `local R, type, tonumber, select, lower, sub, floor, fail, sent = redis, type, tonumber, select, string.lower, string.sub, math.floor, ${name}_f, 0`,
          'local offsets = {setrange = 1, setbit = 8, bitfield = 8}',
          `${name}_w = function(...) local n, args = select('#', ...), {...} local per = type(args[1]) == 'string' and offsets[lower(args[1])]`,
          "for k = 1, n do local v = args[k] if type(v) == 'string' then sent = sent + #v elseif type(v) == 'number' then sent = sent + 24 end",
          "if per and k > 2 then local x = tonumber(v) if x == nil and type(v) == 'string' and sub(v, 1, 1) == '#' then x = (tonumber(sub(v, 2)) or 0) * 64 end",
          'if x and x > 0 then sent = sent + x / per end end end',
          `if sent > ${sentBytes} then fail('sent ' .. floor(sent) .. ' bytes to Redis in one call (arguments, and the offsets SETRANGE, SETBIT and BITFIELD write up to), over the ${sentBytes} bytes one call may write on this server', 4) end return ... end`,
          `local function weighed(f) return function(...) ${name}_w(...) return f(...) end end`,
          'redis = setmetatable({call = weighed(R.call), pcall = weighed(R.pcall)}, {__index = R})',
          'end',
        ]
      : []),
    ...(shadows.getmetatable || shadows.globals
      ? [
          `local getmetatable = getmetatable do local real, meta = getmetatable, {__index = string} getmetatable = function(...) if type((...)) == 'string' then return meta end return real(...) end end`,
        ]
      : []),
    // Code made at run time would have no checks: loadstring and load are refused, by name and through _G.
    `local loadstring = function() ${CALLER_LINE} error({err = '${refused}' .. where}) end`,
    'local load = loadstring',
    ...(shadows.globals
      ? [
          'local _G = _G',
          'do',
          'local real, copy = _G, {}',
          'for k, v in pairs(real) do copy[k] = v end',
          'copy.loadstring, copy.load, copy._G, copy.string, copy.table, copy.getmetatable, copy.redis, copy.cjson, copy.cmsgpack = loadstring, loadstring, copy, string, table, getmetatable, redis, cjson, cmsgpack',
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

/** One change to the script's text: `text` put in place of `[at, to)` (an insertion where `to` is `at`). */
interface Edit {
  readonly at: number;
  readonly to: number;
  readonly text: string;
  /** At one offset: 0 a closing parenthesis (inner first), 1 a check, 2 an opening call (outer first), 3 a replacement. */
  readonly rank: number;
  readonly seq: number;
}

/** The string functions whose one C call can be slow or huge, as methods of a string; `table.concat` besides. */
const WEIGHED_METHODS = new Set(['find', 'match', 'gmatch', 'gsub', 'rep', 'format']);

/** The offset of the first character at or after `i` that is not white space or a comment (nor a `)` when `parens`). */
function skipTrivia(source: string, i: number, parens = false): number {
  for (;;) {
    const c = source[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f' || c === '\v' || (parens && c === ')')) i += 1;
    else if (source.startsWith('--', i)) {
      const long = /^--\[(=*)\[/.exec(source.slice(i, i + 64));
      if (long) {
        const close = source.indexOf(`]${long[1] ?? ''}]`, i + long[0].length);
        i = close < 0 ? source.length : close + (long[1]?.length ?? 0) + 2;
      } else {
        const eol = source.slice(i).search(/[\r\n]/);
        i = eol < 0 ? source.length : i + eol;
      }
    } else return i;
  }
}

/** Only the line breaks of `text`, the rest as single spaces: the same lines to Lua, whatever it held. */
const linesOnly = (text: string): string => text.replace(/[^\r\n]+/g, ' ');

/** Whether evaluating `node` twice reads the same value and does nothing else: a name, a literal, or fields of those. */
function isPlain(node: LuaNode): boolean {
  if (['Identifier', 'StringLiteral', 'NumericLiteral'].includes(node.type)) return true;
  if (node.type === 'MemberExpression') return node.indexer === '.' && isNode(node.base) && isPlain(node.base);
  if (node.type === 'IndexExpression') return isNode(node.base) && isPlain(node.base) && isNode(node.index) && isPlain(node.index);
  return false;
}

/** Every change the guard makes: a check before each statement and at each loop's turn; string and table functions weighed at their calls. */
function edits(chunk: LuaNode, source: string, name: string, weighsSent: boolean): Edit[] {
  const out: Edit[] = [];
  let seq = 0;
  const add = (at: number, to: number, text: string, rank: number): void => void out.push({ at, to, text, rank, seq: (seq += 1) });
  const weightOf = (node: LuaNode): number => (callsOutsideBlocks(node) ? GUARD_CALL_WEIGHT : 1);
  const weighCall = (node: LuaNode): void => {
    const member = node.base;
    if (!isNode(member) || member.type !== 'MemberExpression' || !isNode(member.identifier) || !isNode(member.base)) return;
    const fname = String(member.identifier.name);
    const object = member.base;
    const args = node.type === 'CallExpression' ? (node.arguments as LuaNode[]) : null;
    const open = args ? skipTrivia(source, member.identifier.range[1]) : -1;
    if (args && source[open] !== '(') return;
    const close = node.range[1] - 1;
    if (member.indexer === '.') {
      // `string.rep(…)`, `table.concat(…)` on the real libraries: the real function, called at the user's line, its arguments weighed first.
      const lib = object.type === 'Identifier' && object.isLocal !== true ? String(object.name) : '';
      const sends = lib === 'redis' && (fname === 'call' || fname === 'pcall');
      const encodes = (lib === 'cjson' && fname === 'encode') || (lib === 'cmsgpack' && fname === 'pack');
      const weighed = (lib === 'string' && WEIGHED_METHODS.has(fname)) || (lib === 'table' && fname === 'concat') || sends || encodes;
      if (!weighed || !args) return;
      add(object.range[0], object.range[1], `${name}_${{ string: 'S', table: 'T', redis: 'R', cjson: 'J', cmsgpack: 'P' }[lib] ?? ''}`, 3);
      if (args.length > 0 && source[close] === ')' && (!sends || weighsSent)) {
        add(open + 1, open + 1, sends ? `${name}_w(` : `${name}_c('${fname}', `, 2);
        add(close, close, ')', 0);
      }
      return;
    }
    // Without an argument (or with one table) none of them can be slow or build much: they fail as they would.
    if (!WEIGHED_METHODS.has(fname) || node.type === 'TableCallExpression' || args?.length === 0) return;
    const objectText = source.slice(object.range[0], object.range[1]);
    if (args && isPlain(object) && !/[\r\n]/.test(objectText) && source[close] === ')') {
      // `s:rep(n)`: the same call, its arguments weighed with the string first.
      add(open + 1, open + 1, `${name}_a('${fname}', ${objectText}, `, 2);
      add(close, close, ')', 0);
      return;
    }
    // `f():rep(n)`, `("x"):rep(n)`, `s:rep"…"`: through the guard's method call, which weighs and then calls the real function.
    const colon = skipTrivia(source, object.range[1], true);
    if (source[colon] !== ':') return;
    const argAt = args ? open + 1 : (node.argument as LuaNode | undefined)?.range[0];
    if (argAt === undefined) return;
    add(node.range[0], node.range[0], `${name}_m(`, 2);
    add(colon, argAt, `, '${fname}',${linesOnly(source.slice(colon, argAt))}`, 3);
    if (!args) add(node.range[1], node.range[1], ')', 0);
  };
  const visit = (node: LuaNode): void => {
    if (node.body) {
      for (const statement of node.body) add(statement.range[0], statement.range[0], check(name, weightOf(statement)), 1);
      const last = node.body[node.body.length - 1];
      // A loop's turn passes a check even with an empty body; after a final break or return there is no next turn (nor may code follow).
      const endsTurn = last?.type === 'BreakStatement' || last?.type === 'ReturnStatement';
      // A generic for calls its iterator on every turn.
      const header = node.type === 'ForGenericStatement' ? GUARD_CALL_WEIGHT : weightOf(node);
      const end = node.range[1] - 'end'.length;
      if (LOOPS_ENDING_IN_END.has(node.type) && !endsTurn) add(end, end, check(name, header), 1);
      const turn = node.range[0] + 'repeat'.length;
      if (node.type === 'RepeatStatement') add(turn, turn, check(name, header), 1);
    }
    if (CALLS.has(node.type)) weighCall(node);
    for (const value of Object.values(node)) {
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child);
    }
  };
  visit(chunk);
  return out.sort((a, b) => a.at - b.at || a.rank - b.rank || (a.rank === 0 ? b.seq - a.seq : a.seq - b.seq));
}

/** The syntax tree of `source` as Lua 5.1 reads it; a script it cannot read is a {@link GuardParseError}. */
function parse(source: string, script?: LuaScript): { chunk: LuaNode; shadows: Shadows } {
  // A shebang (`#!lua flags=…`) is Redis's, not Lua's: blanked to the same length, so offsets stay.
  const text = source.startsWith('#!') ? source.replace(/^[^\r\n]*/, (line) => ' '.repeat(line.length)) : source;
  try {
    const chunk = luaparse.parse(text, { luaVersion: '5.1', ranges: true, scope: true, comments: false }) as unknown as LuaNode & {
      globals?: readonly { name: string }[];
    };
    const named = (global: string): boolean => (chunk.globals ?? []).some((g) => g.name === global);
    return { chunk, shadows: { globals: named('_G'), getmetatable: named('getmetatable') } };
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
export function guardSource(source: string, budgetMs: number, script?: LuaScript, sentBytes = 0): string {
  const name = stepName(source);
  const { chunk, shadows } = parse(source, script);
  let out = '';
  let from = 0;
  for (const edit of edits(chunk, source, name, sentBytes > 0)) {
    out += source.slice(from, edit.at) + edit.text;
    from = edit.to;
  }
  const guarded = out + source.slice(from);
  const head = prologue(budgetMs, name, shadows, sentBytes);
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
const copies = new WeakMap<LuaScript, Map<string, LuaScript>>();
const guardedCopies = new WeakSet<LuaScript>();

/**
 * `script` with the guard in, for a call budget of `budgetMs`: the same id,
 * file and lines, its own source and SHA1 (so it is loaded and called by
 * that SHA1). swc's own scripts, and copies that are guarded already, come
 * back as they are.
 */
export function guardedScript(script: LuaScript, budgetMs: number, sentBytes = 0): LuaScript {
  if (guardedCopies.has(script) || isOwnScript(script)) return script;
  let byBudget = copies.get(script);
  if (!byBudget) copies.set(script, (byBudget = new Map()));
  const key = `${budgetMs}:${sentBytes}`;
  let copy = byBudget.get(key);
  if (!copy) {
    const source = guardSource(script.source, budgetMs, script, sentBytes);
    copy = { ...script, source, sha1: sha1Of(source) };
    guardedCopies.add(copy);
    byBudget.set(key, copy);
  }
  return copy;
}
