import { describe, expect, it } from 'vitest';
import { hourStart, keyDef, KeyTable, nameId } from '../../../../src/layouts/kit/keys.js';
import { createLayout } from '../../../../src/layouts/index.js';
import { V5_KEYS, v5KeyTable } from '../../../../src/layouts/stoplight/v5.js';
import { V6_KEYS } from '../../../../src/layouts/stoplight/v6.js';

const H = hourStart(1_764_450_000);

describe('a key table', () => {
  const table = new KeyTable('ns:app*', {
    meta: keyDef('metadata', '{prefix}:{{name}}:meta', 'hash'),
    events: keyDef('events', '{prefix}:{{name}}:events:{hour}', 'zset', { scoresAreSeconds: true }),
  });

  it('gives the KEYS of a call: every row that is one per light, in table order', () => {
    expect(table.callKeys({ name: 'a' })).toEqual(['ns:app*:{a}:meta']);
    // A light named again gets the same keys (cached), another light its own.
    expect(table.callKeys({ name: 'a' })).toBe(table.callKeys({ name: 'a' }));
    expect(table.callKeys({ name: 'b' })).toEqual(['ns:app*:{b}:meta']);
  });

  it('lists a row with {hour} once per clock hour of the span, each row in turn', () => {
    expect(table.keysOf({ name: 'a' }, H + 10, H + 3600).map((k) => [k.key, k.role, k.type])).toEqual([
      ['ns:app*:{a}:meta', 'metadata', 'hash'],
      [`ns:app*:{a}:events:${H}`, 'events', 'zset'],
      [`ns:app*:{a}:events:${H + 3600}`, 'events', 'zset'],
    ]);
  });

  it('derives SCAN patterns with the prefix escaped and every placeholder a *', () => {
    expect(table.scanPatterns()).toEqual(['ns:app\\*:{*}:meta', 'ns:app\\*:{*}:events:*']);
    expect(table.prefixPattern()).toEqual(['ns:app\\*:*']);
  });

  it('fills {lightId} and {systemId} with 12 hex of SHA-256, the system "default" when a light has none', () => {
    const v6 = new KeyTable('stoplight:v6', V6_KEYS);
    expect(v6.key('metrics', { name: 'payments-api' })).toBe(`stoplight:v6:${nameId('default')}:{${nameId('payments-api')}}:window_metrics`);
    expect(v6.callKeys({ name: 'x', system: 'billing' })).toEqual([
      `stoplight:v6:${nameId('billing')}:{${nameId('x')}}:window_metrics`,
      `stoplight:v6:${nameId('billing')}:{${nameId('x')}}:window_metrics:ts_idx`,
    ]);
  });

  it("lists 5.x's hour keys hour by hour, as 5.x's bench always has", () => {
    expect(
      v5KeyTable('stoplight:v5', V5_KEYS)
        .keysOf({ name: 'a' }, H, H + 3600)
        .map((k) => k.key),
    ).toEqual([
      'stoplight:v5:metadata:a',
      `stoplight:v5:metrics:a:success:${H}`,
      `stoplight:v5:metrics:a:failure:${H}`,
      `stoplight:v5:metrics:a:success:${H + 3600}`,
      `stoplight:v5:metrics:a:failure:${H + 3600}`,
    ]);
  });
});

describe('every built-in layout states its keys once', () => {
  it.each(['ring', 'packed', 'sliding-log', 'two-window', 'coarse', 'stoplight-v6'])('%s: call keys, keysOf and the inspector agree with its table', (name) => {
    const layout = createLayout(name, { prefix: 'swc-bench:0123abcd:p' });
    const light = { name: 'w60-r1-l0', system: 'billing' };
    const keys = layout.keysOf(light, H, H + 60);
    expect(layout.recordSuccess(light, { windowSeconds: 60, at: H }).keys).toEqual(keys.map((k) => k.key));
    expect(layout.getMetrics(light, { windowSeconds: 60, at: H }).keys).toEqual(keys.map((k) => k.key));
    for (const key of keys) expect(layout.inspector.lightOfKey(key.key)).not.toBeNull();
  });
});
