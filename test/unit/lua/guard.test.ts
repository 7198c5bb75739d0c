import { describe, expect, it } from 'vitest';
import { guardSource, sha1Of } from '../../../src/lua/guard.js';

/** The check's name in a guarded `source`: from the script's own SHA1. */
const stepOf = (source: string): string => `swc_guard_${sha1Of(source).slice(0, 12)}`;

const checks = (source: string): number => guardSource(source, 250).split(/swc_guard_[0-9a-f]{12}\(\);/).length - 1;

describe('guardSource: where the time guard goes', () => {
  it('keeps every line where it was: the guard is one line in front of line 1', () => {
    const source = 'local a = 1\nfor i = 1, 3 do\n  a = a + i\nend\nreturn a\n';
    const guarded = guardSource(source, 250);
    expect(guarded.split('\n')).toHaveLength(source.split('\n').length);
    expect(guarded.split('\n').slice(1)).toEqual(
      source
        .split('\n')
        .slice(1)
        .map((l) => l.replace(/\bdo$/, `do ${stepOf(source)}(); `)),
    );
  });

  it('puts a check after every do and repeat, and at the start of every function body', () => {
    expect(checks('while x do end')).toBe(1);
    expect(checks('for i = 1, 2 do end for k, v in pairs(t) do end')).toBe(2);
    expect(checks('repeat x = x + 1 until x > 3')).toBe(1);
    expect(checks('local function f(a, b) return a end')).toBe(1);
    expect(checks('local t = { f = function(...) end } function t:m(x) end')).toBe(2);
    expect(guardSource('local function f(a) return a end', 250)).toMatch(/local function f\(a\) swc_guard_[0-9a-f]{12}\(\); {2}return a end$/);
  });

  it('leaves strings and comments alone, short and long', () => {
    const source = [
      "local s = 'do repeat function() end'",
      'local d = "while true do \\" do end"',
      'local l = [==[ for i = 1, 2 do ]] end ]==]',
      '-- for i = 1, 2 do end',
      '--[[ function() end',
      'repeat ]]',
      'return s .. d .. l',
    ].join('\n');
    expect(checks(source)).toBe(0);
    expect(guardSource(source, 250).endsWith(source)).toBe(true);
  });

  it('does not read a keyword inside a name or a number', () => {
    expect(checks('local undo, dofile, repeated, functional = 1, 2, 3, 4 local x = 1e+5 local y = 0x1d')).toBe(0);
  });

  it('states its budget in microseconds', () => {
    expect(guardSource('return 1', 50)).toContain('deadline = now + 50000');
  });
});
