import { describe, expect, it } from 'vitest';
import { nodeAddress, redirectionOf, slotRanges, topologyFromSlots } from '../../../src/redis/cluster.js';

describe('cluster topology and redirections', () => {
  it('reads CLUSTER SLOTS replies with several ranges per node', () => {
    const t = topologyFromSlots(
      [
        [100, 199, ['10.0.0.2', 7001, 'b'.repeat(40)]],
        [0, 99, ['10.0.0.1', 7000, 'a'.repeat(40)]],
        [200, 16383, ['10.0.0.1', 7000, 'a'.repeat(40)], ['10.0.0.3', 7002, 'c'.repeat(40)]],
      ],
      'rediss://user:pw@seed:1/0',
    );
    expect(t.nodes.map((n) => [n.url, n.ranges])).toEqual([
      [
        'rediss://user:pw@10.0.0.1:7000',
        [
          [0, 99],
          [200, 16383],
        ],
      ],
      ['rediss://user:pw@10.0.0.2:7001', [[100, 199]]],
    ]);
    expect([t.nodeOfSlot(50), t.nodeOfSlot(150), t.nodeOfSlot(16383)]).toEqual([0, 1, 0]);
  });

  it('names a node and its slots, and reads MOVED/ASK redirections wherever they sit in a message', () => {
    expect(nodeAddress({ host: '10.0.0.1', port: 7000 })).toBe('10.0.0.1:7000');
    expect(
      slotRanges({
        ranges: [
          [0, 99],
          [200, 200],
        ],
      }),
    ).toBe('0-99,200');
    expect(redirectionOf('MOVED 3999 10.0.0.2:6381')).toEqual({ kind: 'MOVED', slot: 3999, node: '10.0.0.2:6381' });
    expect(redirectionOf('load stopped after 5 operations: ASK 12 [::1]:7001')).toEqual({ kind: 'ASK', slot: 12, node: '[::1]:7001' });
    expect(redirectionOf('ERR something else 12 host:1')).toBeUndefined();
  });
});
