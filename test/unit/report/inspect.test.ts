import { describe, expect, it } from 'vitest';
import { renderInspections } from '../../../src/report/inspect.js';
import { bucketInspection, driftedWithoutBytes, eventInspection, keysInspection } from './fixtures.js';

const plain = { color: false, limit: 30, picture: false };

describe('renderInspections (colour off)', () => {
  it('a 6.0-style light: keys table, buckets with the stale one marked, drift ok, metadata, summary', () => {
    expect(renderInspections([bucketInspection], { ...plain, picture: true })).toMatchInlineSnapshot(`
      "stoplight-v6  default/checkout  (system id 37a8eec1ce19, light id 0e3d1f6d5e0a)
      window 60 s: 2025-11-29T20:59:01Z .. 2025-11-29T21:00:00Z (--at)
      keys
        1  stoplight:v6:37a8eec1ce19:{0e3d1f6d5e0a}:window_metrics  (slot 1234)
        2  stoplight:v6:37a8eec1ce19:{0e3d1f6d5e0a}:window_metrics:ts_idx  (slot 1234)
      ┌───┬─────────┬──────┬──────────┬──────────┬───────┬─────────┬───────────────┬────────────────────────────────┐
      │ # │ role    │ type │ encoding │ elements │ bytes │   ttl s │ entries/limit │ longest B/limit                │
      ├───┼─────────┼──────┼──────────┼──────────┼───────┼─────────┼───────────────┼────────────────────────────────┤
      │ 1 │ metrics │ hash │ listpack │        9 │   312 │ 604,800 │         9/128 │ 86/64 value of last_error_json │
      │ 2 │ index   │ zset │ listpack │        3 │   120 │ 604,800 │         3/128 │ 12/64 member                   │
      └───┴─────────┴──────┴──────────┴──────────┴───────┴─────────┴───────────────┴────────────────────────────────┘
      successes │                                                 █         ▃│ max 3 per second
      failures  │                                                           █│ max 1 per second
      fail rate │                                                 ▁         ▅│ 0–100%, peak 50%
                 2025-11-29T20:59:01Z .. 2025-11-29T21:00:00Z
      buckets  3 (1 stale: outside the window, not evicted yet)
      ┌──────────────────────┬───────┬───────────┬──────────┬───────────┐
      │ time                 │ age s │ successes │ failures │ state     │
      ├──────────────────────┼───────┼───────────┼──────────┼───────────┤
      │ 2025-11-29T20:58:50Z │    70 │         1 │        1 │ stale     │
      │ 2025-11-29T20:59:50Z │    10 │         3 │        0 │ in window │
      │ 2025-11-29T21:00:00Z │     0 │         1 │        1 │ in window │
      └──────────────────────┴───────┴───────────┴──────────┴───────────┘
      totals   successes 5  failures 2  (held in the buckets; in the window: 4 / 1; stored running totals 5 / 2)
      drift    ok: totals equal the sum of the buckets, index and buckets agree
      metadata
        consecutive_errors  1
        last_error_at       1764450000  (2025-11-29T21:00:00Z)
        last_error_json     {"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}
        last error          Timeout::Error: execution expired
      summary  error rate 20.0% in the window · 432 B · 7 B per second of window
      "
    `);
  });

  it('drift found and bytes refused: each drift line, n/a bytes, escaped field names, --limit', () => {
    expect(renderInspections([driftedWithoutBytes], { ...plain, limit: 1 })).toMatchInlineSnapshot(`
      "stoplight-v6  default/checkout  (system id 37a8eec1ce19, light id 0e3d1f6d5e0a)
      window 60 s: 2025-11-29T20:59:01Z .. 2025-11-29T21:00:00Z (--at)
      keys
        1  stoplight:v6:37a8eec1ce19:{0e3d1f6d5e0a}:window_metrics  (slot 1234)
        2  stoplight:v6:37a8eec1ce19:{0e3d1f6d5e0a}:window_metrics:ts_idx  (slot 1234)
      ┌───┬─────────┬──────┬──────────┬──────────┬───────┬─────────┬───────────────┬────────────────────────────────┐
      │ # │ role    │ type │ encoding │ elements │ bytes │   ttl s │ entries/limit │ longest B/limit                │
      ├───┼─────────┼──────┼──────────┼──────────┼───────┼─────────┼───────────────┼────────────────────────────────┤
      │ 1 │ metrics │ hash │ listpack │        9 │   n/a │ 604,800 │         9/128 │ 86/64 value of last_error_json │
      │ 2 │ index   │ zset │ listpack │        3 │   n/a │ 604,800 │         3/128 │ 12/64 member                   │
      └───┴─────────┴──────┴──────────┴──────────┴───────┴─────────┴───────────────┴────────────────────────────────┘
      buckets  3 (1 stale: outside the window, not evicted yet), the last 1 shown (--limit)
      ┌──────────────────────┬───────┬───────────┬──────────┬───────────┐
      │ time                 │ age s │ successes │ failures │ state     │
      ├──────────────────────┼───────┼───────────┼──────────┼───────────┤
      │ 2025-11-29T21:00:00Z │     0 │         1 │        1 │ in window │
      └──────────────────────┴───────┴───────────┴──────────┴───────────┘
      totals   successes 5  failures 2  (held in the buckets; in the window: 4 / 1; stored running totals 6 / 2)
      drift    found
        stored totals 6 / 2 (total_successes / total_failures) but the buckets sum to 5 / 2 (successes +1, failures 0)
        indexed, no counters: 2025-11-29T20:59:55Z
        malformed index members: bucket:x (score 1)
        unknown hash fields: odd\\x1bfield
      metadata
        consecutive_errors  1
        last_error_at       1764450000  (2025-11-29T21:00:00Z)
        last_error_json     {"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}
        last error          Timeout::Error: execution expired
      summary  error rate 20.0% in the window · n/a · bytes unavailable
      "
    `);
  });

  it('a 5.x-style light: hour keys, seconds in the window, bytes per event held', () => {
    expect(renderInspections([eventInspection], plain)).toMatchInlineSnapshot(`
      "stoplight-v5  checkout
      window 60 s: 2025-11-29T20:59:00Z .. 2025-11-29T21:00:00Z (server clock)
      keys
        1  stoplight:v5:metadata:checkout  (slot 1234)
        2  stoplight:v5:metrics:checkout:success:1764446400  (slot 1234)
      ┌───┬────────────────┬──────┬──────────┬──────────┬───────┬─────────┬───────────────┬─────────────────┐
      │ # │ role           │ type │ encoding │ elements │ bytes │   ttl s │ entries/limit │ longest B/limit │
      ├───┼────────────────┼──────┼──────────┼──────────┼───────┼─────────┼───────────────┼─────────────────┤
      │ 1 │ metadata       │ hash │ listpack │        5 │   480 │ 604,800 │         5/128 │ 12/64 member    │
      │ 2 │ success events │ zset │ listpack │        2 │   152 │  86,000 │         2/128 │ 12/64 member    │
      └───┴────────────────┴──────┴──────────┴──────────┴───────┴─────────┴───────────────┴─────────────────┘
      hour keys
      ┌──────────────────────┬─────────┬────────┬──────────────────────┬──────────────────────┐
      │ hour                 │ outcome │ events │ first                │ last                 │
      ├──────────────────────┼─────────┼────────┼──────────────────────┼──────────────────────┤
      │ 2025-11-29T20:00:00Z │ success │      2 │ 2025-11-29T20:10:00Z │ 2025-11-29T20:59:30Z │
      └──────────────────────┴─────────┴────────┴──────────────────────┴──────────────────────┘
      seconds  1 with events in the window, 1 outside it (still held)
      ┌──────────────────────┬───────┬───────────┬──────────┐
      │ time                 │ age s │ successes │ failures │
      ├──────────────────────┼───────┼───────────┼──────────┤
      │ 2025-11-29T20:59:30Z │    30 │         1 │        0 │
      └──────────────────────┴───────┴───────────┴──────────┘
      totals   successes 2  failures 0  (held in the hour keys; in the window: 1 / 0)
      metadata
        last_success_at  1764449970  (2025-11-29T20:59:30Z)
      summary  error rate 0.0% in the window · 632 B · 316 B per event held
      "
    `);
  });

  it('a layout read from key templates: keys only, control characters shown as \\xHH', () => {
    const text = renderInspections([keysInspection], plain);
    expect(text).not.toMatch(/[\x1b\r]/);
    expect(text).toMatchInlineSnapshot(`
      "my-window  evil\\x1b[2J\\x0dname
      now 2025-11-29T21:00:00Z (server clock)
      keys
        1  rl:{evil\\x1b[2J\\x0dname}:success:60  (slot 1234)
      ┌───┬────────────────┬────────┬──────────┬──────────┬───────┬───────┬───────────────┬─────────────────┐
      │ # │ role           │ type   │ encoding │ elements │ bytes │ ttl s │ entries/limit │ longest B/limit │
      ├───┼────────────────┼────────┼──────────┼──────────┼───────┼───────┼───────────────┼─────────────────┤
      │ 1 │ success counts │ string │ int      │        1 │    56 │   120 │             – │ –               │
      └───┴────────────────┴────────┴──────────┴──────────┴───────┴───────┴───────────────┴─────────────────┘
      summary  1 key · 56 B · per second of window: give --window
      "
    `);
  });

  it('two layouts of one light are separated by a blank line', () => {
    const text = renderInspections([eventInspection, bucketInspection], plain);
    expect(text).toContain('per event held\n\nstoplight-v6  default/checkout');
  });
});

describe('renderInspections without a window', () => {
  it('a 6.0 light with no --window claims no error rate and says why', () => {
    const noWindow = {
      ...bucketInspection,
      window: { ...bucketInspection.window, lengthSeconds: null, fromSecond: null, source: 'none' as const },
      windowTotals: null,
      buckets: bucketInspection.buckets.map((b) => ({ ...b, stale: false })),
      summary: { ...bucketInspection.summary, errorRate: null, bytesPerWindowSecond: null },
    };
    const text = renderInspections([noWindow], plain);
    expect(text).toContain('no window given (--window): no bucket judged stale, no error rate;');
    expect(text).toContain('totals   successes 5  failures 2  (held in the buckets; in the window: no window given (--window); stored running totals 5 / 2)');
    expect(text).toMatch(/summary {2}error rate: no window given \(--window\) · 432 B · per second of window: give --window$/m);
    expect(text).not.toMatch(/· no window$/m);
    expect(text).not.toMatch(/error rate [\d.]+%/);
  });

  it("a 5.x light without --window says the day it uses is the layout's longest", () => {
    const text = renderInspections([{ ...eventInspection, window: { ...eventInspection.window, lengthSeconds: 86_400, source: 'layout' } }], plain);
    expect(text.split('\n')[1]).toMatch(/^window 86400 s \(no --window: the longest this layout honours\): /);
  });
});

describe('inspect output fits 120 columns', () => {
  it('every table line and the traffic line of each kind of light, by default; --wide puts key names in the table', () => {
    for (const inspection of [bucketInspection, driftedWithoutBytes, eventInspection, keysInspection]) {
      const text = renderInspections([inspection], { ...plain, picture: true });
      const drawn = text.split('\n').filter((l) => /^[┌│├└]|^traffic/.test(l));
      expect(drawn.length).toBeGreaterThan(0);
      for (const line of drawn) expect([...line].length, line).toBeLessThanOrEqual(120);
    }
    const wide = renderInspections([bucketInspection], { ...plain, wide: true });
    expect(wide).toMatch(/│ stoplight:v6:37a8eec1ce19:\{0e3d1f6d5e0a\}:window_metrics +│ hash +│ listpack +│ +9 │ +312 │ 604,800 │ 1234 │/);
  });
});
