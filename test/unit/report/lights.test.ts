import { describe, expect, it } from 'vitest';
import { selectLights, totalsOf } from '../../../src/inspect/list.js';
import { renderLights } from '../../../src/report/lights.js';
import { lightList } from './fixtures.js';
import type { FleetForecast } from '../../../src/inspect/forecast.js';

const forecast: FleetForecast = {
  layout: 'stoplight-v6',
  lights: 3,
  measured: 1,
  sampledOut: 1,
  notReplayed: 1,
  measuredBytes: 167_000,
  totalBytes: 334_000,
  extrapolated: true,
  currentBytes: null,
  events: 4000,
  sample: 1,
  maxEvents: 1_000_000,
  partial: false,
  server: { version: '7.0.15', allocator: 'jemalloc-5.3.0' },
  method: 'replayed',
  windowSources: { window: 1, windows: 0, registry: 0, span: 0 },
  comparison: "a replay of each light's own events",
};
const view = (wide = false) => ({ list: lightList, matched: lightList.lights, shown: lightList.lights, totals: totalsOf(lightList.lights), wide, forecast });
const widest = (text: string): number => Math.max(...text.split('\n').map((l) => [...l].length));

describe('renderLights (colour off)', () => {
  it('one row per light: reference, KB in one unit right-aligned, events, stale, idle, drift, the 6.0 forecast; totals per layout and the fleet forecast', () => {
    const text = renderLights(view(), 'table', false);
    expect(text).not.toMatch(/[\x1b\r]/);
    expect(text).toMatchInlineSnapshot(`
      "┌──────────────┬───────────────────────────┬───────┬────────┬───────┬────────┬───────┬──────────────┬─────────────────┐
      │ layout       │ light                     │    KB │ events │ stale │ idle s │ drift │     forecast │ forecast window │
      │              │                           │       │        │       │        │       │ stoplight-v6 │                 │
      │              │                           │       │        │       │        │       │           KB │                 │
      ├──────────────┼───────────────────────────┼───────┼────────┼───────┼────────┼───────┼──────────────┼─────────────────┤
      │ stoplight-v5 │ checkout                  │ 458.8 │  4,000 │   120 │      0 │ –     │        163.1 │ 10 min          │
      │ stoplight-v6 │ 37a8eec1ce19/0e3d1f6d5e0a │   9.3 │      7 │     2 │     96 │ DRIFT │  not sampled │ –               │
      │ my-window    │ evil\\x1b[2J\\x0dname       │   n/a │      – │     – │      – │ –     │            – │ –               │
      └──────────────┴───────────────────────────┴───────┴────────┴───────┴────────┴───────┴──────────────┴─────────────────┘
      total stoplight-v5: 1 light, 3 keys, 458.8 KB, 4,000 events (120 stale), 0 with drift
      total stoplight-v6: 1 light, 2 keys, 9.3 KB, 7 events (2 stale), 1 with drift
      total my-window: 1 light, 1 key, n/a, 0 with drift
      total: 3 lights, 6 keys, n/a, 1 with drift
      idle and stale at 2025-11-29T21:00:00Z (--at); window 600 s
      1 6.0 light(s) shown with ids where no name is known: give --names <file> ("light" or "system/light" per line)
      forecast in stoplight-v6: fleet ≈ 326.2 KB, EXTRAPOLATED from 1 of 3 lights
        1 light replayed (4,000 events) on a private redis-server 7.0.15 (jemalloc-5.3.0)
        with bench's writer and injected clock, then MEMORY USAGE of their keys;
        window: 600 s (--window)
        what it is: a replay of each light's own events
        not sampled: 1 light (--forecast-sample 1), counted at the measured lights' mean
        not replayed: 1 light (no events held, or a layout whose events swc does not read)
      "
    `);
    expect(widest(text)).toBeLessThanOrEqual(120);
  });

  it('a narrow terminal never cuts a name: columns go first (a line names them), then each name stands above its row', () => {
    const long = {
      ...lightList.lights[0],
      name: `app:${'x'.repeat(60)}:checkout`,
      reference: `app:${'x'.repeat(60)}:checkout`,
    } as (typeof lightList.lights)[0];
    const lights = [long, ...lightList.lights.slice(1)];
    const narrow = (columns: number) =>
      renderLights({ ...view(), matched: lights, shown: lights, totals: totalsOf(lights), columns, forecast: undefined as never }, 'table', false);
    for (const columns of [120, 80, 60]) {
      const text = narrow(columns);
      expect(text).not.toContain('…');
      expect(text).toMatch(new RegExp(`^│ app:x{60}:checkout( +│.*)?$`, 'm'));
      // A column left out is named, with how to see it (at 80 the stacked names leave room for every column).
      if (columns === 60 || text.includes('not shown'))
        expect(text.replace(/\n {2}/g, ' ')).toMatch(new RegExp(`^not shown at ${columns} columns: .* \\(--wide shows every column\\)`, 'm'));
      // Below 120 columns the name stands on its own line, past the box's border where it is longer than the box.
      if (columns < 120) expect(text).toMatch(new RegExp(`^│ app:x{60}:checkout( +│)?$`, 'm'));
      // Only the name's own line may pass the width (a name longer than the terminal).
      const table = text.split('\n').filter((l) => l.startsWith('│') && !l.includes('app:x'));
      expect(Math.max(...table.map((l) => [...l].length))).toBeLessThanOrEqual(columns);
    }
    // Names that fit stay in their column: the row is one line.
    expect(renderLights({ ...view(), columns: 80, forecast: undefined as never }, 'table', false)).toMatch(/^│ 37a8eec1ce19\/0e3d1f6d5e0a │ +9.3 │/m);
  });

  it('before a name leaves its row, a state of two words breaks between them', () => {
    const [first, ...others] = lightList.lights;
    const lights = [
      { ...first, name: 'n'.repeat(46), reference: 'n'.repeat(46), state: 'locked green', forecast: undefined },
      ...others.map((l) => ({ ...l, state: 'green', forecast: undefined })),
    ] as typeof lightList.lights;
    const text = renderLights({ ...view(), matched: lights, shown: lights, totals: totalsOf(lights), columns: 80 }, 'table', false);
    expect(text).toMatch(/^│ locked │ n{46} │/m);
    expect(text).toMatch(/^│ green {2}│ +│/m);
    expect(
      Math.max(
        ...text
          .split('\n')
          .filter((l) => l.startsWith('│'))
          .map((l) => [...l].length),
      ),
    ).toBeLessThanOrEqual(80);
  });

  it('--wide adds keys, stale buckets, first and last event', () => {
    const text = renderLights(view(true), 'table', false);
    const head = text.split('\n').slice(1, 3).join('\n');
    for (const word of ['keys', 'buckets', 'first event', 'last event']) expect(head).toContain(word);
  });

  it('markdown: a table then one list item per total line (no lines run together)', () => {
    expect(renderLights(view(), 'markdown', false)).toMatchInlineSnapshot(`
      "| layout | light | KB | events | stale | idle s | drift | forecast stoplight-v6 KB | forecast window |
      | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- |
      | stoplight-v5 | checkout | 458.8 | 4,000 | 120 | 0 | – | 163.1 | 10 min |
      | stoplight-v6 | 37a8eec1ce19/0e3d1f6d5e0a | 9.3 | 7 | 2 | 96 | DRIFT | not sampled | – |
      | my-window | evil\\x1b[2J\\x0dname | n/a | – | – | – | – | – | – |

      - total stoplight-v5: 1 light, 3 keys, 458.8 KB, 4,000 events (120 stale), 0 with drift
      - total stoplight-v6: 1 light, 2 keys, 9.3 KB, 7 events (2 stale), 1 with drift
      - total my-window: 1 light, 1 key, n/a, 0 with drift
      - total: 3 lights, 6 keys, n/a, 1 with drift
      - idle and stale at 2025-11-29T21:00:00Z (--at); window 600 s
      - 1 6.0 light(s) shown with ids where no name is known: give --names <file> ("light" or "system/light" per line)
      - forecast in stoplight-v6: fleet ≈ 326.2 KB, EXTRAPOLATED from 1 of 3 lights
      -   1 light replayed (4,000 events) on a private redis-server 7.0.15 (jemalloc-5.3.0)
      -   with bench's writer and injected clock, then MEMORY USAGE of their keys;
      -   window: 600 s (--window)
      -   what it is: a replay of each light's own events
      -   not sampled: 1 light (--forecast-sample 1), counted at the measured lights' mean
      -   not replayed: 1 light (no events held, or a layout whose events swc does not read)
      "
    `);
  });

  it('csv: every field in machine units, no totals', () => {
    const csv = renderLights(view(), 'csv', false).trim().split('\n');
    expect(csv[0]).toBe(
      'layout,reference,light,systemId,keys,bytes,bytesExact,events,staleEvents,staleBuckets,idleSeconds,drift,firstSecond,lastSecond,spanSeconds,forecastLayout,forecastMethod,forecastBytes,forecastEvents,forecastWindowSeconds,forecastWindowFrom,forecastEvenBytes,name,systemName,lightName,windowSuccesses,windowFailures,failureRate,overThreshold,state,stateSinceSecond,partial,keyKinds,windowFrom',
    );
    expect(csv[2]).toBe(
      'stoplight-v6,37a8eec1ce19/0e3d1f6d5e0a,0e3d1f6d5e0a,37a8eec1ce19,2,9503,true,7,2,1,96,true,1764449834,1764449904,71,stoplight-v6,sampled-out,,0,,,,37a8eec1ce19/0e3d1f6d5e0a,,,,,,,,,false,,',
    );
    expect(csv).toHaveLength(4);
  });

  it('an empty server says which patterns were searched', () => {
    const empty = { ...lightList, lights: [], patterns: ['stoplight:v5:*', 'stoplight:v6:*'] };
    expect(renderLights({ list: empty, matched: [], shown: [], totals: [], wide: false }, 'table', false)).toBe(
      'no light on this server (no key matching stoplight:v5:*, stoplight:v6:*)\n',
    );
  });

  it('lights left out by a filter: the line names the filter as typed (--state red), not a fixed pair of flags', () => {
    const [first, ...rest] = lightList.lights;
    const view = {
      list: lightList,
      matched: [first as (typeof lightList.lights)[number]],
      shown: [first as (typeof lightList.lights)[number]],
      totals: [],
      wide: false,
    };
    expect(rest.length).toBeGreaterThan(0);
    const lines = renderLights({ ...view, filters: ['--state red'] }, 'table', false).split('\n');
    expect(lines).toContain(`${rest.length} other light(s) filtered out (--state red)`);
    const none = renderLights({ ...view, matched: [], shown: [], filters: ['--state red', '--match x*'] }, 'table', false);
    expect(none).toMatch(new RegExp(`^no light matched --state red --match x\\* \\(${lightList.lights.length} light\\(s\\) on this server\\)`));
  });

  it('names the server it read, first: on an empty server in its one line, above the table, and in markdown', () => {
    const empty = { ...lightList, lights: [], patterns: ['stoplight:v5:*'] };
    const server = 'redis://127.0.0.1:6379/0';
    expect(renderLights({ list: empty, matched: [], shown: [], totals: [], wide: false, server }, 'table', false)).toBe(
      'no light on redis://127.0.0.1:6379/0 (no key matching stoplight:v5:*)\n',
    );
    const view = { list: lightList, matched: lightList.lights, shown: lightList.lights, totals: [], wide: false, server };
    expect(renderLights(view, 'table', false).split('\n')[0]).toBe('Server: redis://127.0.0.1:6379/0');
    expect(renderLights(view, 'markdown', false).split('\n')[0]).toBe('_Server: redis://127.0.0.1:6379/0_');
  });
});

describe('selectLights', () => {
  it('sorts by bytes, idle, events or name, unknown figures last; --top cuts after the sort', () => {
    const refs = (sort: 'bytes' | 'idle' | 'events' | 'name', top?: number) =>
      selectLights(lightList, { sort, ...(top !== undefined ? { top } : {}) }).shown.map((l) => l.reference);
    expect(refs('bytes')).toEqual(['checkout', '37a8eec1ce19/0e3d1f6d5e0a', 'evil\x1b[2J\rname']);
    expect(refs('idle')).toEqual(['37a8eec1ce19/0e3d1f6d5e0a', 'checkout', 'evil\x1b[2J\rname']);
    expect(refs('events', 1)).toEqual(['checkout']);
    expect(refs('name')).toEqual(['evil\x1b[2J\rname', 'checkout', '37a8eec1ce19/0e3d1f6d5e0a']);
  });

  it('--system takes the name (hashed) or the id; --match is a glob on the name or the reference', () => {
    // shortId('default') is 37a8eec1ce19.
    expect(selectLights(lightList, { system: 'default' }).matched.map((l) => l.light)).toEqual(['0e3d1f6d5e0a']);
    expect(selectLights(lightList, { system: '37a8eec1ce19' }).matched).toHaveLength(1);
    expect(selectLights(lightList, { system: 'payments' }).matched).toHaveLength(0);
    expect(selectLights(lightList, { match: 'check*' }).matched.map((l) => l.light)).toEqual(['checkout']);
    expect(selectLights(lightList, { match: '37a8eec1ce19/*' }).matched).toHaveLength(1);
    expect(selectLights(lightList, { match: 'c?eckou[st]' }).matched).toHaveLength(1);
  });

  it('totals add up per layout; an unknown figure makes the total unknown', () => {
    expect(totalsOf(lightList.lights)).toEqual([
      { layout: 'stoplight-v5', lights: 1, keys: 3, bytes: 469_811, events: 4000, staleEvents: 120, drifted: 0, unfinished: 0 },
      { layout: 'stoplight-v6', lights: 1, keys: 2, bytes: 9503, events: 7, staleEvents: 2, drifted: 1, unfinished: 0 },
      { layout: 'my-window', lights: 1, keys: 1, bytes: null, events: null, staleEvents: null, drifted: 0, unfinished: 0 },
    ]);
  });
});

describe('renderLights with a window: the heads say what counts the window and what every event held', () => {
  it('events held, in window, failures in window, fail rate in window', () => {
    const windowed = lightList.lights.map((l) => ({ ...l, windowSuccesses: 9, windowFailures: 1, failureRate: 0.1 }));
    const text = renderLights({ list: lightList, matched: windowed, shown: windowed, totals: totalsOf(windowed), wide: false }, 'markdown', false);
    const head = text.split('\n')[0] ?? '';
    expect(head).toContain('| events held | in window | failures in window | fail rate in window |');
    const plain = renderLights(
      { list: lightList, matched: lightList.lights, shown: lightList.lights, totals: totalsOf(lightList.lights), wide: false },
      'markdown',
      false,
    );
    expect(plain.split('\n')[0]).toMatch(/\| events \|/);
  });
});
