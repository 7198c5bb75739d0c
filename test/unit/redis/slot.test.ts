import { describe, expect, it } from 'vitest';
import { hashTag, keySlot } from '../../../src/redis/slot.js';

describe('keySlot', () => {
  it('matches the slots Redis Cluster documents', () => {
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('123456789')).toBe(0x31c3 % 16384);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
  });

  it('uses the first non-empty tag only', () => {
    expect(hashTag('a{}b{c}')).toBe('a{}b{c}');
    expect(hashTag('x{tag}y{other}')).toBe('tag');
    expect(hashTag('no-tag')).toBe('no-tag');
  });
});
