import { describe, expect, it } from 'vitest';
import { closestNames, editDistance, orList } from '../../../src/core/suggest.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and a swap of neighbours as one edit each', () => {
    expect(editDistance('checkout', 'checkout')).toBe(0);
    expect(editDistance('chekout', 'checkout')).toBe(1);
    expect(editDistance('checkuot', 'checkout')).toBe(1);
    expect(editDistance('checkoot', 'checkout')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    // Code points, not UTF-16 units.
    expect(editDistance('café', 'cafe')).toBe(1);
    expect(editDistance('a😀b', 'ab')).toBe(1);
  });

  it('stops past the limit', () => {
    expect(editDistance('aaaaaaaa', 'bbbbbbbb', 2)).toBe(3);
    expect(editDistance('a', 'abcdef', 2)).toBe(3);
  });
});

describe('closestNames', () => {
  it('suggests the nearest names, closest first, never the typed one nor far ones', () => {
    expect(closestNames('chekout', ['checkout', 'checkouts', 'inventory', 'chekout'])).toEqual(['checkout', 'checkouts']);
    expect(closestNames('Checkout', ['checkout'])).toEqual(['checkout']);
    expect(closestNames('ab', ['xy', 'abc'])).toEqual(['abc']);
    expect(closestNames('payments-api', ['inventory', 'checkout'])).toEqual([]);
    expect(closestNames('abcd', ['abce', 'abcf', 'abcg', 'abch'])).toHaveLength(3);
  });

  it('joins them for a sentence', () => {
    expect(orList(['a'])).toBe('"a"');
    expect(orList(['a', 'b', 'c'])).toBe('"a", "b" or "c"');
  });
});
