/**
 * Generated Lua 5.1 scripts for the time guard's differential test
 * (test/integration/lua/guard-fuzz.test.ts) and its longer run
 * (`npm run bench:guard-fuzz`): the same seed gives the same scripts.
 *
 * Each script mixes what a hand tokenizer gets wrong (line ends of every
 * kind: LF, CR LF, a bare CR, LF CR; short strings with escapes, a
 * backslash before a line end among them; long strings and long comments of
 * several levels holding code-like text, `]]` and line ends; short comments
 * ending at any line end) with what the guard must bound (loops of every
 * form, nested functions, pcall, commands, `_G` and `rawget`). A script
 * either ends, and must answer the same with and without the guard, or
 * (`loops`) has an endless loop at its top level, and must be stopped by
 * the guard.
 */
import type { Redis } from 'ioredis';
import { GUARD_ERROR_CODE, GuardParseError, guardSource } from '../src/lua/guard.js';

/** A small seeded generator (mulberry32): the same seed, the same numbers. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One generated script. */
export interface FuzzScript {
  readonly source: string;
  /** Whether it never ends without the guard. */
  readonly loops: boolean;
}

const LINE_ENDS = ['\n', '\r\n', '\r', '\n\r'];
const CODE_LIKE = ['while true do end', 'repeat', 'until false', 'do', 'end', 'function()', '--', "'", '"', ']]', '[[', 'return'];
const ENDLESS = [
  'while true do end',
  'repeat until false',
  'for i = 1, 1e15 do end',
  'local function z(k) return z(k + 1) end z(0)',
  'while true do pcall(function() while true do end end) end',
  'local k = 0 while k >= 0 do k = k + 1 end',
];

/** Generates script number `index` of `seed`. */
export function fuzzScript(seed: number, index: number): FuzzScript {
  const rnd = seededRandom(seed * 1_000_003 + index);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;
  const int = (n: number): number => Math.floor(rnd() * n);
  const eol = (): string => pick(LINE_ENDS);
  const sep = (): string => (rnd() < 0.6 ? eol() : ' ');

  const shortString = (): string => {
    const quote = rnd() < 0.5 ? "'" : '"';
    let text = '';
    for (let i = int(6); i >= 0; i -= 1) {
      const r = rnd();
      if (r < 0.3) text += pick(CODE_LIKE).replaceAll(quote, `\\${quote}`);
      else if (r < 0.45) text += pick(['\\n', '\\t', '\\\\', "\\'", '\\"', '\\065', '\\000', '\\255', '\\r']);
      // A backslash before a line end is one escaped newline to Lua, whatever the line end.
      else if (r < 0.6) text += `\\${eol()}`;
      else text += pick(['a', ' x ', '42', '-', '=', '[', ']', '[=', ';']);
    }
    return `${quote}${text}${quote}`;
  };

  const longBracket = (): string => {
    const level = '='.repeat(int(4));
    let text = rnd() < 0.3 ? eol() : '';
    for (let i = int(5); i >= 0; i -= 1) {
      const part = rnd() < 0.5 ? pick(CODE_LIKE) : pick([eol(), ']', ']=]', `]${level}=]`, 'x', ' ']);
      text += part;
    }
    // Never its own closing bracket, and (Lua 5.1) never a nested [[ in a level-0 one.
    for (let before = ''; before !== text;) {
      before = text;
      text = text.replaceAll(`]${level}]`, '] ]').replaceAll('[[', '[ [');
    }
    return `[${level}[${text} ]${level}]`;
  };

  const comment = (): string => (rnd() < 0.5 ? `-- ${pick(CODE_LIKE)} ${pick(CODE_LIKE)}${eol()}` : `--${longBracket()}`);

  const literal = (): string => (rnd() < 0.7 ? shortString() : longBracket());

  let names = 0;
  const block = (depth: number, size: number): string => {
    const out: string[] = [];
    for (let i = 0; i < size; i += 1) out.push(statement(depth));
    return out.join(sep());
  };
  const statement = (depth: number): string => {
    const nested = depth < 3;
    const inner = (): string => block(depth + 1, 1 + int(3));
    const r = int(nested ? 16 : 8);
    const v = `v${(names += 1)}`;
    switch (r) {
      case 0:
        return `n = n + ${int(9)}`;
      case 1:
        return `acc = acc .. ${literal()}`;
      case 2:
        return `${comment()}n = n + 1`;
      case 3:
        return `redis.call('INCRBY', KEYS[1], ${int(5)})`;
      case 4:
        return `n = n + (tonumber(redis.call('GET', KEYS[1])) or 0) % 7`;
      case 5:
        return pick([
          "if rawget(_G, 'no_such_global') == nil then n = n + 1 end",
          'n = n + #_G.tostring(n)',
          "acc = acc .. type(_G['string'])",
          'local c = 0 for _ in pairs(_G) do c = c + 1 end n = n + c % 3',
        ]);
      case 6:
        return `acc = acc .. string.sub(${literal()}, 1, ${int(4)})`;
      case 7:
        return `local ${v} = ${literal()} acc = acc .. #${v}`;
      case 8:
        return `for ${v} = 1, ${int(4)} do${sep()}${inner()}${sep()}end`;
      case 9:
        return `local ${v} = 0 while ${v} < ${int(4)} do ${v} = ${v} + 1${sep()}${inner()}${sep()}end`;
      case 10:
        return `local ${v} = 0 repeat ${v} = ${v} + 1${sep()}${inner()}${sep()}until ${v} >= ${1 + int(3)}`;
      case 11:
        return `if n % 2 == 0 then${sep()}${inner()}${sep()}elseif n % 3 == 0 then${sep()}${inner()}${sep()}else${sep()}${inner()}${sep()}end`;
      case 12:
        return `do${sep()}${inner()}${sep()}end`;
      case 13:
        return `local function ${v}(x)${sep()}${inner()}${sep()}return x + 1 end n = ${v}(n)`;
      case 14:
        return `local ok${v} = pcall(function()${sep()}${inner()}${sep()}end) if not ok${v} then n = n + 100 end`;
      default:
        return `for _, ${v} in ipairs({${literal()}, ${literal()}}) do acc = acc .. #${v}${sep()}${inner()}${sep()}end`;
    }
  };

  const loops = rnd() < 0.2;
  const body = [`local acc, n = '', 0`, ...Array.from({ length: 2 + int(6) }, () => statement(0))];
  if (loops) body.splice(1 + int(body.length), 0, pick(ENDLESS));
  // A few end with an error of their own: its message names a line, which must be the same.
  const end = rnd() < 0.15 ? `error('stopped at ' .. n)` : 'return {n, acc}';
  return { source: `${body.join(sep())}${sep()}${end}${rnd() < 0.5 ? eol() : ''}`, loops };
}

/** A reply, or an error's message without the script's SHA1 (the guarded copy has its own). */
export type Outcome = unknown;

const outcomeOf = (reply: Promise<unknown>): Promise<Outcome> =>
  reply.catch((err: unknown) => `error: ${(err as Error).message.replace(/script: [0-9a-f]{40}/, 'script: <sha>')}`);

/** What running `script` plain and guarded showed; `same` compares replies and the key it writes. */
export interface DifferentialResult {
  readonly plain?: Outcome;
  readonly guarded: Outcome;
  readonly same: boolean;
  /** For a looping script: whether the guard stopped it (SWCGUARD, past its budget). */
  readonly stopped: boolean;
}

/**
 * Runs `script` with the guard (budget `budgetMs`) and, when it ends, without
 * it too, on `redis` (a private server: a plain script that loops is never
 * sent). `key` is deleted before each run.
 */
export async function differential(redis: Redis, script: FuzzScript, key: string, budgetMs: number): Promise<DifferentialResult> {
  let text: string;
  try {
    text = guardSource(script.source, budgetMs);
  } catch (err) {
    // Refused by the guard's parser: only right when Lua refuses it too.
    if (!(err instanceof GuardParseError)) throw err;
    const plain = await outcomeOf(redis.script('LOAD', script.source));
    return { plain, guarded: `refused: ${err.message}`, same: typeof plain === 'string' && plain.startsWith('error: '), stopped: false };
  }
  await redis.del(key);
  const guarded = await outcomeOf(redis.eval(text, 1, key));
  const guardedKey = await redis.get(key);
  if (script.loops) {
    const stopped = typeof guarded === 'string' && guarded.startsWith(`error: ${GUARD_ERROR_CODE} ran past its budget of ${budgetMs} ms`);
    return { guarded, same: stopped, stopped };
  }
  await redis.del(key);
  const plain = await outcomeOf(redis.eval(script.source, 1, key));
  const plainKey = await redis.get(key);
  return { plain, guarded, same: JSON.stringify([plain, plainKey]) === JSON.stringify([guarded, guardedKey]), stopped: false };
}
