import { describe, expect, it } from 'vitest';
import { namedRejection } from '../../../src/core/rejection.js';

describe('namedRejection', () => {
  const error = 'ERR value is not an integer or out of range';
  it('names a "-0" that HINCRBY refused', () => {
    expect(namedRejection(error, 'HINCRBY "k" "total_failures" "-0"')).toMatchObject({ id: 'negative-zero', name: '"-0" rejected' });
  });
  it("names Lua's unpack() limit, which sends no command", () => {
    expect(namedRejection('ERR /t/window_metrics/_evict.lua:15: too many results to unpack script: abc', undefined)).toMatchObject({
      id: 'unpack-limit',
      name: 'unpack() limit',
    });
  });
  it('names nothing for "0", another error, or no rejected command', () => {
    expect(namedRejection(error, 'HINCRBY "k" "total_failures" "0"')).toBeNull();
    expect(namedRejection('ERR planted', 'HINCRBY "k" "total_failures" "-0"')).toBeNull();
    expect(namedRejection(error, 'HSET "k" "f" "-0"')).toBeNull();
    expect(namedRejection(error, undefined)).toBeNull();
  });
});
