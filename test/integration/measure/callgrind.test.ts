import { describe, expect, it } from 'vitest';
import { findValgrind, parseCallgrind, ValgrindMissingError } from '../../../src/measure/callgrind.js';
import { topFunctions } from '../../../src/measure/instructions.js';

// The shape of a real dump of callgrind 3.19 (names given once, then by id; a call's cost on the line after calls=).
const DUMP = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 19796
part: 1
positions: line
events: Ir
summary: 1000

ob=(1) /usr/bin/redis-check-rdb
fl=(1) ???
fn=(1) call
0 10
cfn=(2) evalShaCommand
calls=2 0
0 990

fn=(2)
0 40
cfn=(3) lookupKey
calls=4 0
0 200
cfn=(1)
calls=1 0
+2 300
fn=(3)
* 200
fn=(4) call'2
0 450
totals: 1000
`;

describe('parseCallgrind', () => {
  it('reads the totals, self costs and inclusive costs through compressed names', () => {
    const dump = parseCallgrind(DUMP);
    expect(dump.total).toBe(1000);
    expect(dump.functions.get('call')).toEqual({ self: 10, inclusive: 1000 });
    expect(dump.functions.get('evalShaCommand')).toEqual({ self: 40, inclusive: 540 });
    expect(dump.functions.get('lookupKey')).toEqual({ self: 200, inclusive: 200 });
  });

  it('refuses a dump without totals', () => {
    expect(() => parseCallgrind('events: Ir\nfn=(1) x\n0 5\n')).toThrow(/no totals or summary/);
  });

  it('top functions leave out call() and above, unnamed and script frames', () => {
    const summed = new Map([
      ['call', { self: 10, inclusive: 1000 }],
      ['evalShaCommand', { self: 40, inclusive: 990 }],
      ['0x00000000001583e0', { self: 300, inclusive: 600 }],
      ['lookupKey', { self: 200, inclusive: 200 }],
      ["call'2", { self: 20, inclusive: 450 }],
    ]);
    const top = topFunctions(summed, 1000, 10, 5);
    expect(top.map((e) => e.function)).toEqual(["call'2", 'lookupKey']);
    expect(top[0]).toEqual({ function: "call'2", inclusiveShare: 0.45, inclusivePerCall: 45, selfShare: 0.02 });
  });
});

describe('findValgrind', () => {
  it('names the Debian package when valgrind is not on PATH (exit 3)', () => {
    expect(() => findValgrind('/nonexistent')).toThrow(/valgrind not found on PATH; install Debian's valgrind package/);
    const err = ((): unknown => {
      try {
        return findValgrind('/nonexistent');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ValgrindMissingError);
    expect((err as ValgrindMissingError).exitCode).toBe(3);
  });
});
