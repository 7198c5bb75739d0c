import { describe, expect, it } from 'vitest';
import { nodeOfUrl } from '../../../src/redis/target.js';

describe('nodeOfUrl', () => {
  it('names a TCP server host:port, 6379 when the URL gives no port, without credentials', () => {
    expect(nodeOfUrl('redis://127.0.0.1:7001')).toBe('127.0.0.1:7001');
    expect(nodeOfUrl('redis://user:secret@cache.local')).toBe('cache.local:6379');
  });

  it("names a unix socket by its URL (a snapshot's private server), not as a port", () => {
    expect(nodeOfUrl('unix:/tmp/swc-rdb-x/redis.sock')).toBe('unix:/tmp/swc-rdb-x/redis.sock');
  });
});
