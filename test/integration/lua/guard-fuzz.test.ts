/**
 * The time guard against generated scripts (test/lua-fuzz.ts: line ends of
 * every kind, escapes, long strings and comments, loops, nested functions),
 * on a private redis-server: a script that ends answers the same with the
 * guard as without it (reply, error message with its line, the key it
 * writes); one with an endless loop is stopped by the guard; one the guard
 * cannot read is one Lua cannot compile either. A fixed seed and count;
 * `npm run bench:guard-fuzz` runs many more.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { differential, fuzzScript } from '../../lua-fuzz.js';
import { testRedis, uniqueName } from '../../helpers.js';

const SEED = 20_261_207;
const COUNT = 150;
const BUDGET_MS = 50;

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(() => redis.disconnect());

describe('the guarded copy behaves like the original (differential, generated scripts)', () => {
  it(`${COUNT} scripts of seed ${SEED}: the same answers, and every endless one stopped by the guard`, async () => {
    const key = uniqueName('guard-fuzz');
    const wrong: string[] = [];
    let endless = 0;
    for (let i = 0; i < COUNT; i += 1) {
      const script = fuzzScript(SEED, i);
      const result = await differential(redis, script, key, BUDGET_MS);
      if (script.loops) endless += 1;
      if (!result.same)
        wrong.push(`#${i} ${JSON.stringify(script.source)}\n  plain: ${JSON.stringify(result.plain)}\n  guarded: ${JSON.stringify(result.guarded)}`);
    }
    await redis.del(key);
    expect(wrong).toEqual([]);
    // The seed makes both kinds: some scripts loop, most end.
    expect(endless).toBeGreaterThan(10);
    expect(endless).toBeLessThan(COUNT / 2);
  });

  it('the generator mixes in what a hand tokenizer got wrong', () => {
    const sources = Array.from({ length: COUNT }, (_, i) => fuzzScript(SEED, i).source).join('');
    expect(sources).toMatch(/--[^\r\n[]*\r[^\n]/); // a short comment ended by a bare CR
    expect(sources).toMatch(/\\\r\n/); // a backslash before CR LF in a string
    expect(sources).toMatch(/\[==+\[/); // long brackets of a level above 0
    expect(sources).toMatch(/--\[=*\[/); // long comments
    expect(sources).toMatch(/\\0\d\d/); // decimal escapes
  });
});
