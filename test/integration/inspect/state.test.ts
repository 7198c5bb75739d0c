import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { inspectLight } from '../../../src/inspect/inspect.js';
import { listLights, parseStates, selectLights, totalsOf } from '../../../src/inspect/list.js';
import { renderLights } from '../../../src/report/lights.js';
import type { LightListing } from '../../../src/layouts/inspection.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV5, V5_FIRST_SECOND_OF_HOUR } from '../../../src/layouts/stoplight/v5.js';
import { SlidingWindowModel } from '../../../src/model/sliding-window.js';
import { shortId, StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { addName, newNameBook } from '../../../src/layouts/stoplight/names.js';
import { HOUR_START, withPrivateServer } from '../../helpers.js';

// Stoplight-shaped traffic through swc's own 5.x and 6.0 writers, with the
// state fields written as Stoplight's transitions write them; then what
// `swc lights` and `swc inspect` say, against Stoplight's rules worked out
// here by hand (not by swc's own rule).

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';
const WINDOW = 300;
/** A read at hh:00:00: Stoplight 5.x's read leaves that second's events out. */
const NOW = HOUR_START + 3 * 3600;
const v5 = new StoplightV5();
const v6 = new StoplightV6();

type Event = [offset: number, outcome: 's' | 'f'];

interface Spec {
  readonly layout: 'stoplight-v5' | 'stoplight-v6';
  readonly events: readonly Event[];
  readonly fields?: Record<string, string>;
  readonly state: string;
}

const failures = (from: number, n: number): Event[] => Array.from({ length: n }, (_, i) => [from + i, 'f']);
const successes = (from: number, n: number): Event[] => Array.from({ length: n }, (_, i) => [from + i, 's']);

const LIGHTS: Record<string, Spec> = {
  // 10 successes and 2 failures in the window, one more failure at hh:00:00 itself (not counted by 5.x then), one success stale.
  'v5-green': { layout: 'stoplight-v5', events: [[-400, 's'], ...successes(-100, 10), [-20, 'f'], [-10, 'f'], [0, 'f']], state: 'green' },
  'v5-red': {
    layout: 'stoplight-v5',
    events: [...successes(-200, 2), ...failures(-103, 3)],
    fields: { breached_at: String(NOW - 100), recovery_scheduled_after: String(NOW + 60) },
    state: 'red',
  },
  'v5-yellow': {
    layout: 'stoplight-v5',
    events: failures(-200, 5),
    fields: { breached_at: String(NOW - 190), recovery_scheduled_after: String(NOW - 10) },
    state: 'yellow',
  },
  // Recovered inside its window: the 20 failures before recovered_at do not count.
  'v5-recovered': {
    layout: 'stoplight-v5',
    events: [...failures(-250, 20), ...successes(-50, 5)],
    fields: { recovered_at: String(NOW - 100) },
    state: 'green',
  },
  'v5-locked-green': { layout: 'stoplight-v5', events: failures(-60, 8), fields: { locked_state: 'locked_green' }, state: 'locked green' },
  'v5-locked-red': { layout: 'stoplight-v5', events: successes(-60, 3), fields: { locked_state: 'locked_red' }, state: 'locked red' },
  // The cool-off ends exactly at the read: Stoplight's test is strict (recovery_scheduled_after < now), so still red.
  'v5-cooloff-edge': {
    layout: 'stoplight-v5',
    events: failures(-62, 3),
    fields: { breached_at: String(NOW - 60), recovery_scheduled_after: String(NOW) },
    state: 'red',
  },
  // A name that holds the prefix again: the first `stoplight:v5:` wins.
  'proxy:stoplight:v5:metadata:inner': { layout: 'stoplight-v5', events: [...successes(-30, 3), [-5, 'f']], state: 'green' },
  'v6-red': {
    layout: 'stoplight-v6',
    events: [...successes(-250, 2), ...failures(-120, 3)],
    fields: { breached_at: String(NOW - 118.25), recovery_scheduled_after: String(NOW + 42.5) },
    state: 'red',
  },
  'v6-green': { layout: 'stoplight-v6', events: [[-300, 's'], ...successes(-299, 4), [0, 'f']], state: 'green' },
  'v6-locked-green': { layout: 'stoplight-v6', events: failures(-40, 6), fields: { locked_state: 'LOCKED_GREEN' }, state: 'locked green' },
};

/** Stoplight's window counts, by hand: 5.x `[max(now - W, recovered_at), now]` without now's second at hh:00:00; 6.0 `(now - W, now]`. */
function expectedWindow(spec: Spec, at: number): { successes: number; failures: number } {
  const recovered = spec.fields?.recovered_at === undefined ? -Infinity : Number(spec.fields.recovered_at);
  const inWindow = (second: number): boolean =>
    spec.layout === 'stoplight-v5'
      ? second >= Math.max(at - WINDOW, recovered) && second <= at && !(second === at && at % 3600 === 0)
      : second > at - WINDOW && second <= at;
  const counted = spec.events.filter(([offset]) => inWindow(NOW + offset));
  return { successes: counted.filter(([, o]) => o === 's').length, failures: counted.filter(([, o]) => o === 'f').length };
}

async function write(redis: Redis): Promise<void> {
  const c5 = await LayoutClient.open(redis, v5);
  const c6 = await LayoutClient.open(redis, v6);
  for (const [name, spec] of Object.entries(LIGHTS)) {
    const client = spec.layout === 'stoplight-v5' ? c5 : c6;
    for (const [offset, outcome] of spec.events) {
      const options = { at: NOW + offset, windowSeconds: WINDOW };
      if (outcome === 's') await client.recordSuccess({ name }, options);
      else await client.recordFailure({ name }, { ...options, errorJson: ERROR_JSON });
    }
    if (!spec.fields) continue;
    // 5.x keeps the state in the metadata hash; released 6.0 in `…:{<light id>}:state`.
    const stateKey = spec.layout === 'stoplight-v5' ? v5.metadataKey({ name }) : v6.metricsKey({ name }).replace(/:window_metrics$/, ':state');
    await redis.hset(stateKey, spec.fields);
  }
  // A light on Stoplight's default config (no window_size): 5.x writes only the metadata hash.
  await redis.hset(v5.metadataKey({ name: 'v5-default' }), {
    last_error_at: String(NOW - 30),
    last_success_at: String(NOW - 90),
    consecutive_errors: '5',
    consecutive_successes: '0',
    last_error_json: ERROR_JSON,
    breached_at: String(NOW - 31),
    recovery_scheduled_after: String(NOW + 29),
  });
  // 6.0's registry: v6-red trips on 3 consecutive errors, not on a failure rate.
  const system = shortId('default');
  await redis.hset(`stoplight:v6:${system}:lights`, {
    [shortId('v6-red')]: JSON.stringify({
      meta: { version: 1, registered_at: NOW - 3600 },
      // Stoplight's ConfigSerializer: the traffic control is an object naming its strategy.
      config: {
        id: shortId('v6-red'),
        name: 'v6-red',
        threshold: 3,
        window_size: WINDOW,
        traffic_control: { strategy: 'consecutive_errors' },
        traffic_recovery: { strategy: 'consecutive_successes' },
      },
    }),
  });
}

/** The 6.0 names, as a `--names` file gives them. */
function names(): ReturnType<typeof newNameBook> {
  const book = newNameBook();
  for (const [name, spec] of Object.entries(LIGHTS)) if (spec.layout === 'stoplight-v6') addName(book, name);
  return book;
}

const byName = (lights: readonly LightListing[]): Map<string, LightListing> =>
  new Map(lights.map((l) => [l.systemId === null ? l.light : (l.lightName ?? l.light), l]));

describe("Stoplight's own view: state and the window", () => {
  it('lights and inspect give each light the state and the window counts Stoplight gives', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      await write(redis);
      const list = await listLights(redis, { windowSeconds: WINDOW, at: NOW, names: names() });
      const lights = new Map(list.lights.map((l) => [l.systemId === null ? l.light : (l.lightName as string), l]));
      expect([...lights.keys()].sort()).toEqual([...Object.keys(LIGHTS), 'v5-default'].sort());

      for (const [name, spec] of Object.entries(LIGHTS)) {
        const listed = lights.get(name) as LightListing;
        expect({ name, state: listed.state, layout: listed.layout }).toEqual({ name, state: spec.state, layout: spec.layout });
        const want = expectedWindow(spec, NOW);
        expect({ name, s: listed.windowSuccesses, f: listed.windowFailures }).toEqual({ name, s: want.successes, f: want.failures });
        // The model counts by the same rule.
        const model = new SlidingWindowModel(WINDOW, spec.layout === 'stoplight-v5' ? 'closed' : 'half-open');
        for (const [offset, outcome] of spec.events) model.record(NOW + offset, outcome === 's' ? 'success' : 'failure');
        const recovered = spec.fields?.recovered_at === undefined ? null : Number(spec.fields.recovered_at);
        expect({ name, model: model.countRead(NOW, recovered, spec.layout === 'stoplight-v5' ? [V5_FIRST_SECOND_OF_HOUR] : []) }).toEqual({
          name,
          model: want,
        });
        // inspect by the reference lights prints gives the same state and counts.
        const [inspection] = await inspectLight(redis, { light: listed.reference, windowSeconds: WINDOW, at: NOW });
        expect(inspection?.layout).toBe(spec.layout);
        expect({ name, state: inspection?.state?.state, totals: inspection?.windowTotals }).toEqual({ name, state: spec.state, totals: want });
      }
      // The recovered light's window starts at recovered_at, and both say so.
      expect(lights.get('v5-recovered')?.notes?.some((n) => n.startsWith('starts at recovered_at'))).toBe(true);
      // At hh:00:00 both say that 5.x's read leaves that second out; a second later the failure at hh:00:00 counts.
      expect(lights.get('v5-green')?.notes?.some((n) => /first second of a clock hour/.test(n))).toBe(true);
      const later = byName((await listLights(redis, { windowSeconds: WINDOW, at: NOW + 1, names: names() })).lights);
      expect(later.get('v5-green')?.windowFailures).toBe(expectedWindow(LIGHTS['v5-green'] as Spec, NOW + 1).failures);
      expect(later.get('v5-green')?.windowFailures).toBe(3);
      const [atHour] = await inspectLight(redis, { light: 'v5-green', windowSeconds: WINDOW, at: NOW });
      expect(atHour?.windowNotes?.some((n) => /first second of a clock hour/.test(n))).toBe(true);

      // Why: red since the breach, with the last error's class; 5.x keeps no config, so the strategy is not guessed.
      const [red] = await inspectLight(redis, { light: 'v5-red', windowSeconds: WINDOW, at: NOW });
      expect(red?.state).toEqual({ state: 'red', since: NOW - 100, reason: 'breached (strategy unknown): Timeout::Error' });

      // The default-config light: state and idle time from the metadata's stamps, and the note.
      const plain = lights.get('v5-default') as LightListing;
      expect(plain).toMatchObject({ state: 'red', idleSeconds: 30, events: 0, windowSuccesses: 0, windowFailures: 0 });
      expect(plain.notes).toEqual(['no window configured: Stoplight keeps no events for it']);
      expect(plain.keyKinds).toEqual(['metadata']);
      expect(plain.trippingUnknown).toBe('strategy unknown (5.x keeps no config)');
      const [plainInspection] = await inspectLight(redis, { light: plain.reference, at: NOW });
      expect(plainInspection?.state?.state).toBe('red');
      expect(plainInspection?.windowNotes).toEqual(['no window configured: Stoplight keeps no events for it']);

      // The greedy-name light is listed under its own name, with all its events.
      expect(lights.get('proxy:stoplight:v5:metadata:inner')).toMatchObject({ reference: 'proxy:stoplight:v5:metadata:inner', events: 4 });
      expect(lights.has('inner')).toBe(false);

      // --state red lists exactly the red lights, locked red ones too (Stoplight's colour of a locked-red light is red).
      const red5 = selectLights(list, { states: parseStates('red') }).matched.map((l) => (l.systemId === null ? l.light : (l.lightName ?? l.light)));
      const wantRed = [
        ...Object.entries(LIGHTS)
          .filter(([, s]) => s.state === 'red' || s.state === 'locked red')
          .map(([n]) => n),
        'v5-default',
      ];
      expect(red5.sort()).toEqual(wantRed.sort());
      expect(selectLights(list, { states: parseStates('red,yellow') }).matched).toHaveLength(wantRed.length + 1);

      // The incident view: no locked-green light is marked, however it fails; v6-red is judged on its own 3 consecutive errors.
      const incident = selectLights(list, { sort: 'rate', threshold: 0.5 }).matched;
      const marked = incident.filter((l) => l.overThreshold === true).map((l) => (l.systemId === null ? l.light : (l.lightName ?? l.light)));
      expect(marked).not.toContain('v5-locked-green');
      expect(marked).not.toContain('v6-locked-green');
      expect(byName(incident).get('v5-locked-green')?.failureRate).toBe(1);
      expect(byName(incident).get('v6-red')?.tripping).toEqual({
        trafficControl: 'consecutive_errors',
        value: 3,
        threshold: 3,
        ratio: 1,
        consecutiveErrors: 3,
        windowFailures: 3,
      });
      expect(marked.sort()).toEqual(['v5-yellow', 'v6-red', 'v5-red', 'v5-cooloff-edge'].sort());
      // The table says so, and shows the state first.
      const table = renderLights({ list, matched: incident, shown: incident, totals: totalsOf(incident), wide: false, threshold: 0.5 }, 'table', false);
      const lockedRow = table.split('\n').find((l) => l.includes('v5-locked-green')) ?? '';
      expect(lockedRow).toMatch(/^│ locked green │ stoplight-v5/);
      expect(lockedRow).toContain('100.0%');
      expect(lockedRow).not.toContain('≥');
      expect(table).toContain('locked green lights are never marked: Stoplight keeps them green whatever they fail');
      expect(table).toContain('1 light: no window configured: Stoplight keeps no events for it');
      // --sort state: worst first.
      const order = selectLights(list, { sort: 'state' }).matched.map((l) => l.state);
      expect(order.indexOf('green')).toBeGreaterThan(order.lastIndexOf('red'));
    });
  });

  it('--state names the flag and the accepted values on a bad value', () => {
    expect(() => parseStates('red,purple')).toThrow('--state: expected a comma-separated list of red, yellow, locked red, locked green, green; got "purple"');
    expect(parseStates('locked-green, red')).toEqual(['locked green', 'red']);
  });
});
