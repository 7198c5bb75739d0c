import { describe, expect, it } from 'vitest';
import { GUARD_CALL_WEIGHT, GuardParseError, guardSource } from '../../../src/lua/guard.js';
import { locate, type LuaScript } from '../../../src/lua/source.js';

/** The weights of the checks in a guarded `source`, in order (the prologue's own code has none). */
const checks = (source: string): number[] => [...guardSource(source, 250).matchAll(/swc_guard_[0-9a-f]{12}\((\d+)\);/g)].map((m) => Number(m[1]));

/** `source` guarded, without its one-line prologue and with each check written `@` (plain) or `@C` (a call). */
function marked(source: string): string {
  const guarded = guardSource(source, 250);
  const end = 'local load = loadstring ';
  return guarded
    .slice(guarded.indexOf(end) + end.length)
    .replace(/ ?swc_guard_[0-9a-f]{12}\((\d+)\); ?/g, (_, w: string) => (Number(w) === GUARD_CALL_WEIGHT ? '@C ' : '@ '));
}

describe('guardSource: where the time guard goes (read from the syntax tree)', () => {
  it('keeps every line where it was: the guard is one line in front of line 1, and nothing it puts in breaks a line', () => {
    const source = 'local a = 1\nfor i = 1, 3 do\n  a = a + i\nend\r\nreturn a\r';
    const guarded = guardSource(source, 250);
    expect(guarded.split(/\r\n|\n\r|\r|\n/)).toHaveLength(source.split(/\r\n|\n\r|\r|\n/).length);
    expect(guarded.replace(/ ?swc_guard_[0-9a-f]{12}\(\d+\); ?/g, '').endsWith(source)).toBe(true);
  });

  it('checks before every statement of every block, straight-line code included, and weighs statements that call', () => {
    expect(marked('local a = 1\nlocal b = f(a)\nreturn b')).toBe('@ local a = 1\n@C local b = f(a)\n@ return b');
    expect(marked('if g() then x = 1 elseif y then h() else z = 2 end')).toBe('@C if g() then @ x = 1 elseif y then @C h() else @ z = 2 end');
    expect(marked('local function f(a) return a end')).toBe('@ local function f(a) @ return a end');
    expect(marked('do local a = 1 end')).toBe('@ do @ local a = 1 end');
  });

  it('every turn of a loop passes a check, an empty body or a slow condition too', () => {
    expect(marked('while true do end')).toBe('@ while true do @ end');
    expect(marked('while f() do end')).toBe('@C while f() do @C end');
    expect(marked('for i = 1, 2 do x = i end')).toBe('@ for i = 1, 2 do @ x = i @ end');
    // A generic for calls its iterator on each turn.
    expect(marked('for k in pairs(t) do end')).toBe('@C for k in pairs(t) do @C end');
    expect(marked('repeat until f()')).toBe('@C repeat@C  until f()');
    // After a final break or return no code may follow, and no turn does.
    expect(marked('while true do break end')).toBe('@ while true do @ break end');
  });

  it('reads strings and comments as Lua 5.1 does: a bare CR ends a comment, backslash CR LF is one escaped newline', () => {
    // The round-5 repro: a loop after a comment that ends with a bare CR ran unguarded.
    expect(checks("redis.call('SET', KEYS[1], 1) -- written\rwhile true do end")).toEqual([GUARD_CALL_WEIGHT, 1, 1]);
    expect(checks("local s = 'one\\\r\nwhile true do end' while true do end")).toEqual([1, 1, 1]);
    const inert = [
      "local s = 'do repeat function() end'",
      'local d = "while true do \\" do end"',
      'local l = [==[ for i = 1, 2 do ]] end ]==]',
      '-- for i = 1, 2 do end',
      '--[[ function() end',
      'repeat ]]',
      'return s .. d .. l',
    ].join('\n');
    expect(checks(inert)).toEqual([1, 1, 1, 1]);
  });

  it('does not read a keyword inside a name or a number', () => {
    expect(checks('local undo, dofile, repeated, functional = 1, 2, 3, 4 local x = 1e+5 local y = 0x1d')).toEqual([1, 1, 1]);
  });

  it('copies the globals only for a script that names _G', () => {
    expect(guardSource('return 1', 250)).not.toContain('copy._G');
    expect(guardSource('return _G.tonumber("1")', 250)).toContain('copy._G');
    expect(guardSource('local _G = {} return _G', 250)).not.toContain('copy._G');
  });

  it('refuses a script it cannot read as Lua 5.1, naming the line (nothing is sent)', () => {
    expect(() => guardSource('local a = 1\nwhile true do', 250)).toThrow(GuardParseError);
    expect(() => guardSource('local a = 1\nlocal b = = 2', 250)).toThrow(
      /a script: refused: swc cannot read this script as Lua 5\.1 \(.*\), so it cannot put its time guard in/,
    );
    // Lua 5.2 syntax is not Lua 5.1.
    expect(() => guardSource('goto done ::done::', 250)).toThrow(GuardParseError);
  });

  it('states its budget in microseconds', () => {
    expect(guardSource('return 1', 50)).toContain('deadline = now + 50000');
  });
});

describe("locate: Lua's line numbers, where a bare CR ends a line too", () => {
  const script = (source: string): LuaScript => ({
    id: 'x',
    file: 'x.lua',
    source,
    sha1: '',
    command: 'x',
    lineMap: source.split('\n').map((_, i) => ({ file: 'x.lua', line: i + 1 })),
  });

  it("maps Lua's line N to the file's line, counting CR, LF, CR LF and LF CR as one end each", () => {
    // Lua's lines: 1 `a`, 2 `b` (after a bare CR), 3 `c` (after CR LF), 4 `d` (after LF CR), 5 `e`.
    const s = script('a\rb\r\nc\n\rd\ne');
    expect(['1', '2', '3', '4', '5'].map((n) => locate(s, `user_script:${n}`))).toEqual(['x.lua:1', 'x.lua:1', 'x.lua:2', 'x.lua:3', 'x.lua:4']);
    expect(locate(script('a\nb'), 'user_script:2: boom')).toBe('x.lua:2: boom');
  });
});

describe('the interval between readings', () => {
  it('never grows past the most weight between two readings, after it shrank to a number that does not double onto it', () => {
    expect(guardSource('return 1', 250)).toMatch(/every = every \* 2 if every > 1024 then every = 1024 end/);
  });
});
