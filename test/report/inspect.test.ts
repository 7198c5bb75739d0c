import { describe, expect, it } from 'vitest';
import { renderInspections, renderListing } from '../../src/report/inspect.js';
import { bucketInspection, driftedWithoutBytes, eventInspection, keysInspection, lightList } from './fixtures.js';

const plain = { color: false, limit: 30, picture: false };

describe('renderInspections (colour off)', () => {
  it('a 6.0-style light: keys table, buckets with the stale one marked, drift ok, metadata, summary', () => {
    expect(renderInspections([bucketInspection], { ...plain, picture: true })).toMatchInlineSnapshot(`
      "stoplight-v6  checkout  (system id 37a8eec1ce19, light id 0e3d1f6d5e0a)
      window 60 s: 2025-11-29T20:59:01Z .. 2025-11-29T21:00:00Z (--at)
      ┌────────────────────────────────────────────────────────────────┬──────┬──────────┬──────────┬───────┬──────────┬──────┬───────────────┬────────────────────────────────────┐
      │ key                                                            │ type │ encoding │ elements │ bytes │ ttl      │ slot │ entries/limit │ longest/limit                      │
      ├────────────────────────────────────────────────────────────────┼──────┼──────────┼──────────┼───────┼──────────┼──────┼───────────────┼────────────────────────────────────┤
      │ stoplight:v6:37a8eec1ce19:{0e3d1f6d5e0a}:window_metrics        │ hash │ listpack │ 9        │ 312 B │ 604800 s │ 1234 │ 9/128         │ 86 B/64 B value of last_error_json │
      │ stoplight:v6:37a8eec1ce19:{0e3d1f6d5e0a}:window_metrics:ts_idx │ zset │ listpack │ 3        │ 120 B │ 604800 s │ 1234 │ 3/128         │ 12 B/64 B member                   │
      └────────────────────────────────────────────────────────────────┴──────┴──────────┴──────────┴───────┴──────────┴──────┴───────────────┴────────────────────────────────────┘
      traffic  │                                                 █         ▆│  events per second, 2025-11-29T20:59:01Z .. 2025-11-29T21:00:00Z
      buckets  3 (1 stale: outside the window, not evicted yet)
      ┌──────────────────────┬──────┬───────────┬──────────┬───────────┐
      │ time                 │ age  │ successes │ failures │ state     │
      ├──────────────────────┼──────┼───────────┼──────────┼───────────┤
      │ 2025-11-29T20:58:50Z │ 70 s │ 1         │ 1        │ stale     │
      │ 2025-11-29T20:59:50Z │ 10 s │ 3         │ 0        │ in window │
      │ 2025-11-29T21:00:00Z │ 0 s  │ 1         │ 1        │ in window │
      └──────────────────────┴──────┴───────────┴──────────┴───────────┘
      totals   successes 5  failures 2  (in the window: 4 / 1)
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
      "stoplight-v6  checkout  (system id 37a8eec1ce19, light id 0e3d1f6d5e0a)
      window 60 s: 2025-11-29T20:59:01Z .. 2025-11-29T21:00:00Z (--at)
      ┌────────────────────────────────────────────────────────────────┬──────┬──────────┬──────────┬───────┬──────────┬──────┬───────────────┬────────────────────────────────────┐
      │ key                                                            │ type │ encoding │ elements │ bytes │ ttl      │ slot │ entries/limit │ longest/limit                      │
      ├────────────────────────────────────────────────────────────────┼──────┼──────────┼──────────┼───────┼──────────┼──────┼───────────────┼────────────────────────────────────┤
      │ stoplight:v6:37a8eec1ce19:{0e3d1f6d5e0a}:window_metrics        │ hash │ listpack │ 9        │ n/a   │ 604800 s │ 1234 │ 9/128         │ 86 B/64 B value of last_error_json │
      │ stoplight:v6:37a8eec1ce19:{0e3d1f6d5e0a}:window_metrics:ts_idx │ zset │ listpack │ 3        │ n/a   │ 604800 s │ 1234 │ 3/128         │ 12 B/64 B member                   │
      └────────────────────────────────────────────────────────────────┴──────┴──────────┴──────────┴───────┴──────────┴──────┴───────────────┴────────────────────────────────────┘
      buckets  3 (1 stale: outside the window, not evicted yet), the last 1 shown (--limit)
      ┌──────────────────────┬─────┬───────────┬──────────┬───────────┐
      │ time                 │ age │ successes │ failures │ state     │
      ├──────────────────────┼─────┼───────────┼──────────┼───────────┤
      │ 2025-11-29T21:00:00Z │ 0 s │ 1         │ 1        │ in window │
      └──────────────────────┴─────┴───────────┴──────────┴───────────┘
      totals   successes 6  failures 2  (in the window: 4 / 1)
      drift    found
        totals 6 / 2 but the buckets sum to 5 / 2 (successes +1, failures 0)
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
      ┌──────────────────────────────────────────────────┬──────┬──────────┬──────────┬───────┬──────────┬──────┬───────────────┬──────────────────┐
      │ key                                              │ type │ encoding │ elements │ bytes │ ttl      │ slot │ entries/limit │ longest/limit    │
      ├──────────────────────────────────────────────────┼──────┼──────────┼──────────┼───────┼──────────┼──────┼───────────────┼──────────────────┤
      │ stoplight:v5:metadata:checkout                   │ hash │ listpack │ 5        │ 480 B │ 604800 s │ 1234 │ 5/128         │ 12 B/64 B member │
      │ stoplight:v5:metrics:checkout:success:1764446400 │ zset │ listpack │ 2        │ 152 B │ 86000 s  │ 1234 │ 2/128         │ 12 B/64 B member │
      └──────────────────────────────────────────────────┴──────┴──────────┴──────────┴───────┴──────────┴──────┴───────────────┴──────────────────┘
      hour keys
      ┌──────────────────────┬─────────┬────────┬──────────────────────┬──────────────────────┐
      │ hour                 │ outcome │ events │ first                │ last                 │
      ├──────────────────────┼─────────┼────────┼──────────────────────┼──────────────────────┤
      │ 2025-11-29T20:00:00Z │ success │ 2      │ 2025-11-29T20:10:00Z │ 2025-11-29T20:59:30Z │
      └──────────────────────┴─────────┴────────┴──────────────────────┴──────────────────────┘
      seconds  1 with events in the window, 1 outside it (still held)
      ┌──────────────────────┬──────┬───────────┬──────────┐
      │ time                 │ age  │ successes │ failures │
      ├──────────────────────┼──────┼───────────┼──────────┤
      │ 2025-11-29T20:59:30Z │ 30 s │ 1         │ 0        │
      └──────────────────────┴──────┴───────────┴──────────┘
      totals   successes 1  failures 0  (events in the window)
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
      ┌─────────────────────────────────────┬────────┬──────────┬──────────┬───────┬───────┬──────┬───────────────┬───────────────┐
      │ key                                 │ type   │ encoding │ elements │ bytes │ ttl   │ slot │ entries/limit │ longest/limit │
      ├─────────────────────────────────────┼────────┼──────────┼──────────┼───────┼───────┼──────┼───────────────┼───────────────┤
      │ rl:{evil\\x1b[2J\\x0dname}:success:60 │ string │ int      │ 1        │ 56 B  │ 120 s │ 1234 │ –             │ –             │
      └─────────────────────────────────────┴────────┴──────────┴──────────┴───────┴───────┴──────┴───────────────┴───────────────┘
      summary  1 key · 56 B · no window
      "
    `);
  });

  it('two layouts of one light are separated by a blank line', () => {
    const text = renderInspections([eventInspection, bucketInspection], plain);
    expect(text).toContain('per event held\n\nstoplight-v6  checkout');
  });
});

describe('renderListing (colour off)', () => {
  it('one row per light with bytes, span and n/a where MEMORY was refused', () => {
    const text = renderListing(lightList, false);
    expect(text).not.toMatch(/[\x1b\r]/);
    expect(text).toMatchInlineSnapshot(`
      "┌──────────────┬─────────────────────┬──────────────┬──────┬─────────┬─────────────┬──────────────────────┬──────────────────────┐
      │ layout       │ light               │ system id    │ keys │ bytes   │ window span │ first                │ last                 │
      ├──────────────┼─────────────────────┼──────────────┼──────┼─────────┼─────────────┼──────────────────────┼──────────────────────┤
      │ stoplight-v5 │ checkout            │ –            │ 3    │ 20.0 KB │ 3001 s      │ 2025-11-29T20:10:00Z │ 2025-11-29T21:00:00Z │
      │ stoplight-v6 │ 0e3d1f6d5e0a        │ 37a8eec1ce19 │ 2    │ 432 B   │ 71 s        │ 2025-11-29T20:58:50Z │ 2025-11-29T21:00:00Z │
      │ my-window    │ evil\\x1b[2J\\x0dname │ –            │ 1    │ n/a     │ –           │ –                    │ –                    │
      └──────────────┴─────────────────────┴──────────────┴──────┴─────────┴─────────────┴──────────────────────┴──────────────────────┘
      3 lights
      "
    `);
  });

  it('an empty server names the patterns it searched', () => {
    expect(renderListing({ lights: [], patterns: ['stoplight:v5:*', 'stoplight:v6:*'], unavailable: [] }, false)).toMatchInlineSnapshot(`
      "no light on this server (no key matching stoplight:v5:*, stoplight:v6:*)
      "
    `);
  });
});
