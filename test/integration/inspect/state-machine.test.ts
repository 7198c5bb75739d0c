/**
 * Stoplight 6.0's whole state machine, written by the test-side application
 * (test/stoplight6-app.ts) on a real redis-server: every light an operator
 * needs, found by `lights --json` and `inspect --json`, with the colour the
 * writer's own statement of Stoplight's rule gives, the key kinds each light
 * keeps, closeness by the light's own strategy, and the registry's config.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { BucketInspection, LightListing } from '../../../src/layouts/inspection.js';
import { shortId } from '../../../src/layouts/stoplight/v6.js';
import type { PrivateServer } from '../../../src/redis/server.js';
import { HOUR_START, ownServer } from '../../helpers.js';
import { colourOf, Stoplight6Light, type AppLightConfig } from '../../stoplight6-app.js';
import { runInProcess } from '../../unit/in-process.js';

let server: PrivateServer;
let redis: Redis;
ownServer((s, r) => {
  server = s;
  redis = r;
});

/** Read time: the middle of an hour, a whole second (the cool-off edge lands on it exactly). */
const NOW = HOUR_START + 3 * 3600 + 1800;
const DEFAULT = shortId('default');

/** A light name that is a 6.0 key of another light (v6-green's window metrics). */
const KEY_NAME = `stoplight:v6:${DEFAULT}:{${shortId('v6-green')}}:window_metrics`;

interface Case {
  readonly config: AppLightConfig;
  /** Registered in its system's registry. */
  readonly registered: boolean;
  /** Calls: [seconds before NOW (fractions allowed), outcome]. */
  readonly calls: readonly [number, 'success' | 'failure'][];
  readonly lock?: 'locked_red' | 'locked_green';
  /** The listing's state (swc's names: a lock is said as such). */
  readonly state: string;
  /** The key kinds the light keeps. */
  readonly kinds: readonly string[];
}

const cfg = (name: string, over: Partial<AppLightConfig> = {}): AppLightConfig => ({
  name,
  windowSeconds: 300,
  threshold: 3,
  strategy: 'consecutive_errors',
  coolOffSeconds: 600,
  ...over,
});
const rate = (name: string, over: Partial<AppLightConfig> = {}): AppLightConfig => cfg(name, { strategy: 'error_rate', threshold: 0.5, ...over });
const times = (from: number, n: number, outcome: 'success' | 'failure'): [number, 'success' | 'failure'][] =>
  Array.from({ length: n }, (_, i) => [from - i * 0.5, outcome]);
const WINDOWED = ['window_metrics', 'window_metrics:ts_idx'];

const CASES: Record<string, Case> = {
  'v6-green': {
    config: rate('v6-green'),
    registered: true,
    calls: [...times(200, 12, 'success'), ...times(100, 2, 'failure')],
    state: 'green',
    kinds: [...WINDOWED, 'registry'],
  },
  'v6-red-consecutive': {
    config: cfg('v6-red-consecutive'),
    registered: true,
    calls: [[120.25, 'success'], ...times(110.5, 3, 'failure')],
    state: 'red',
    kinds: [...WINDOWED, 'state', 'registry'],
  },
  'v6-red-rate': {
    config: rate('v6-red-rate'),
    registered: true,
    calls: [...times(200, 6, 'success'), ...times(150, 6, 'failure')],
    state: 'red',
    kinds: [...WINDOWED, 'state', 'registry'],
  },
  // Breached 100 s ago with a 30 s cool-off: over, no probe yet.
  'v6-yellow': {
    config: cfg('v6-yellow', { coolOffSeconds: 30 }),
    registered: true,
    calls: times(100, 3, 'failure'),
    state: 'yellow',
    kinds: [...WINDOWED, 'state', 'registry'],
  },
  // Cool-off over, one successful probe of three: yellow, the window metrics cleared, the probe's lock and metrics kept.
  'v6-recovering': {
    config: cfg('v6-recovering', { coolOffSeconds: 300, recoveryThreshold: 3 }),
    registered: true,
    calls: [...times(420, 3, 'failure'), [50, 'success']],
    state: 'yellow',
    kinds: ['state', 'recovery_metrics', 'locks:recovery', 'registry'],
  },
  'v6-locked-red-early': {
    config: cfg('v6-locked-red-early'),
    registered: true,
    calls: [],
    lock: 'locked_red',
    state: 'locked red',
    kinds: ['state', 'registry'],
  },
  'v6-locked-green': {
    config: rate('v6-locked-green'),
    registered: true,
    calls: times(60, 12, 'failure'),
    lock: 'locked_green',
    state: 'locked green',
    kinds: [...WINDOWED, 'state', 'registry'],
  },
  'v6-default-red': {
    config: cfg('v6-default-red', { windowSeconds: null }),
    registered: true,
    calls: [[90, 'success'], ...times(30, 3, 'failure')],
    state: 'red',
    kinds: ['state', 'metrics', 'registry'],
  },
  // Not registered: the default config is read from its keys (the unbounded metrics alone).
  'v6-default-green': {
    config: cfg('v6-default-green', { windowSeconds: null }),
    registered: false,
    calls: [
      [90, 'failure'],
      [20, 'success'],
    ],
    state: 'green',
    kinds: ['metrics'],
  },
  // Breached exactly 60 s before NOW with a 60 s cool-off: recovery_scheduled_after == NOW, still red (strict <).
  'v6-cooloff-edge': {
    config: cfg('v6-cooloff-edge', { coolOffSeconds: 60 }),
    registered: true,
    calls: [
      [62, 'failure'],
      [61, 'failure'],
      [60, 'failure'],
    ],
    state: 'red',
    kinds: [...WINDOWED, 'state', 'registry'],
  },
  // 3 consecutive errors, 1 failure in the window: Stoplight counts 1 of 3, not close.
  'v6-clamped': {
    config: cfg('v6-clamped'),
    registered: true,
    calls: [
      [500, 'failure'],
      [499, 'failure'],
      [10, 'failure'],
    ],
    state: 'green',
    kinds: [...WINDOWED, 'registry'],
  },
  // 2 of 3 requests failing under error rate: under the minimum of 10 requests, cannot trip.
  'v6-few': {
    config: rate('v6-few'),
    registered: true,
    calls: [
      [30, 'success'],
      [20, 'failure'],
      [10, 'failure'],
    ],
    state: 'green',
    kinds: [...WINDOWED, 'registry'],
  },
  // A name holding `/` in the default system, beside light `a` of system `svc`.
  'svc/a': { config: cfg('svc/a'), registered: true, calls: times(40, 3, 'failure'), state: 'red', kinds: [...WINDOWED, 'state', 'registry'] },
  'a@svc': { config: cfg('a', { system: 'svc' }), registered: true, calls: [[40, 'success']], state: 'green', kinds: [...WINDOWED, 'registry'] },
  // Locked red before any traffic in another system: only a walk (keys and registries) finds it by name.
  'v6-ops-locked': {
    config: cfg('v6-ops-locked', { system: 'ops' }),
    registered: true,
    calls: [],
    lock: 'locked_red',
    state: 'locked red',
    kinds: ['state', 'registry'],
  },
  // Known only to its registry (registered, never called, never locked): a light with no key at all.
  'v6-registered-only': { config: cfg('v6-registered-only', { system: 'ops' }), registered: true, calls: [], state: 'green', kinds: ['registry'] },
  // A name holding a 6.0 key.
  [KEY_NAME]: { config: cfg(KEY_NAME), registered: true, calls: times(40, 3, 'failure'), state: 'red', kinds: [...WINDOWED, 'state', 'registry'] },
};

const apps = new Map<string, Stoplight6Light>();

async function writeAll(): Promise<void> {
  if (apps.size > 0) return;
  for (const [id, c] of Object.entries(CASES)) {
    const app = await Stoplight6Light.open(redis, c.config);
    apps.set(id, app);
    if (c.registered) await app.register(NOW - 3600);
    if (c.lock === 'locked_red') await app.lock('locked_red');
    if (c.lock === 'locked_green') await app.lock('locked_green');
    for (const [before, outcome] of c.calls) await app.call(outcome, NOW - before);
  }
}

const referenceOf = (c: Case): string => `${shortId(c.config.system ?? 'default')}/${shortId(c.config.name)}`;

interface ListDoc {
  lights: (LightListing & { stateSinceSecond: number | null })[];
  totals: { layout: string; lights: number }[];
}

describe("Stoplight 6.0's state machine, through lights and inspect", () => {
  it('lights --json finds every light, states the colour Stoplight gives, and names the keys each keeps', async () => {
    await writeAll();
    const run = await runInProcess(['lights', '--redis-url', server.url, '--at', String(NOW), '--json']);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as ListDoc;
    const byRef = new Map(doc.lights.map((l) => [l.reference, l]));
    for (const [id, c] of Object.entries(CASES)) {
      const listed = byRef.get(referenceOf(c));
      expect({ id, found: listed !== undefined }).toEqual({ id, found: true });
      // The writer's own rule, on the state hash as written.
      const colour = colourOf(await redis.hgetall(`${(apps.get(id) as Stoplight6Light).base}:state`), NOW);
      expect({ id, state: listed?.state, colour }).toEqual({ id, state: c.state, colour: c.state.replace('locked ', '') });
      expect({ id, kinds: [...(listed?.keyKinds ?? [])].sort() }).toEqual({ id, kinds: [...c.kinds].sort() });
    }
    // Every light counts in the totals.
    expect(doc.totals.find((t) => t.layout === 'stoplight-v6')?.lights).toBe(Object.keys(CASES).length);
  });

  it('inspect --json by reference finds every light with the same colour and shows every key it keeps', async () => {
    await writeAll();
    for (const [id, c] of Object.entries(CASES)) {
      const run = await runInProcess(['inspect', referenceOf(c), '--redis-url', server.url, '--at', String(NOW), '--json']);
      expect({ id, code: run.code, err: run.stderr }).toEqual({ id, code: 0, err: '' });
      const found = (JSON.parse(run.stdout) as { inspections: BucketInspection[] }).inspections[0] as BucketInspection;
      expect({ id, state: found.state?.state }).toEqual({ id, state: c.state });
      expect({ id, kinds: [...(found.keyKinds ?? [])].sort() }).toEqual({ id, kinds: [...c.kinds].sort() });
      // Every key kind but the registry is a key in the keys table.
      expect(found.keys.length).toBe(c.kinds.filter((k) => k !== 'registry').length);
    }
  });

  it('colour edges: the cool-off ends strictly after recovery_scheduled_after; a breach names its strategy', async () => {
    await writeAll();
    const at = async (light: string, when: number): Promise<BucketInspection> => {
      const run = await runInProcess(['inspect', light, '--redis-url', server.url, '--at', String(when), '--json']);
      return (JSON.parse(run.stdout) as { inspections: BucketInspection[] }).inspections[0] as BucketInspection;
    };
    expect(Number(await redis.hget(`${(apps.get('v6-cooloff-edge') as Stoplight6Light).base}:state`, 'recovery_scheduled_after'))).toBe(NOW);
    expect((await at('v6-cooloff-edge', NOW)).state?.state).toBe('red');
    expect((await at('v6-cooloff-edge', NOW + 1)).state?.state).toBe('yellow');
    // Stoplight compares its fractional stamps with the moment itself: v6-red-consecutive's cool-off ends at a fraction of a second.
    const scheduled = Number(await redis.hget(`${(apps.get('v6-red-consecutive') as Stoplight6Light).base}:state`, 'recovery_scheduled_after'));
    expect(scheduled % 1).not.toBe(0);
    expect((await at('v6-red-consecutive', Math.floor(scheduled))).state?.state).toBe('red');
    expect((await at('v6-red-consecutive', scheduled + 0.001)).state?.state).toBe('yellow');
    expect((await at('v6-red-consecutive', Math.floor(scheduled) + 0.999)).state?.state).toBe('yellow');
    expect((await at('v6-red-rate', NOW)).state?.reason).toMatch(/^breached by its error rate/);
    expect((await at('v6-red-consecutive', NOW)).state?.reason).toMatch(/^breached by consecutive errors/);
    // A registered window gives window counts without --window, and says where it came from.
    const green = await at('v6-green', NOW);
    expect(green.window).toMatchObject({ lengthSeconds: 300, source: 'registry' });
    expect(green.windowTotals).toEqual({ successes: 12, failures: 2 });
    expect(green.config).toMatchObject({
      windowSeconds: { value: 300, from: 'registry' },
      threshold: { value: 0.5, from: 'registry' },
      trafficControl: { value: 'error_rate', from: 'registry' },
      coolOffSeconds: { value: 600, from: 'registry' },
    });
    // The default config without a registry entry: consecutive errors, the only strategy without a window.
    const plain = await at(`${DEFAULT}/${shortId('v6-default-green')}`, NOW);
    expect(plain.config?.trafficControl).toEqual({ value: 'consecutive_errors', from: 'default config' });
    expect(plain.windowNotes).toEqual(['no window configured: Stoplight keeps no events for it']);
  });

  it('--state red includes locked red; --state "locked red" only the locked ones', async () => {
    await writeAll();
    const names = async (state: string): Promise<string[]> => {
      const run = await runInProcess(['lights', '--redis-url', server.url, '--at', String(NOW), '--state', state, '--json']);
      return (JSON.parse(run.stdout) as ListDoc).lights.map((l) => l.reference).sort();
    };
    const refs = (pred: (c: Case) => boolean): string[] => Object.values(CASES).filter(pred).map(referenceOf).sort();
    expect(await names('red')).toEqual(refs((c) => c.state === 'red' || c.state === 'locked red'));
    expect(await names('red')).toContain(referenceOf(CASES['v6-locked-red-early'] as Case));
    expect(await names('locked red')).toEqual(refs((c) => c.state === 'locked red'));
    expect(await names('locked red')).not.toContain(referenceOf(CASES['v6-red-consecutive'] as Case));
  });

  it('closeness by the strategy: clamped consecutive errors and the minimum of requests are not close to tripping', async () => {
    await writeAll();
    const run = await runInProcess(['lights', '--redis-url', server.url, '--at', String(NOW), '--threshold', '0.5', '--json']);
    const doc = JSON.parse(run.stdout) as ListDoc;
    const get = (id: string): LightListing => doc.lights.find((l) => l.reference === referenceOf(CASES[id] as Case)) as LightListing;
    expect(get('v6-clamped').tripping).toMatchObject({ trafficControl: 'consecutive_errors', value: 1, threshold: 3, consecutiveErrors: 3, windowFailures: 1 });
    expect(get('v6-clamped').overThreshold).toBe(false);
    expect(get('v6-few').tripping).toMatchObject({ trafficControl: 'error_rate', requests: 3, minRequests: 10 });
    expect(get('v6-few').tripping?.ratio).toBeLessThan(1);
    expect(get('v6-few').overThreshold).toBe(false);
    // A light whose strategy nobody stored says so instead of guessing.
    const lights = await runInProcess(['lights', '--redis-url', server.url, '--at', String(NOW), '--json']);
    const unregistered = (JSON.parse(lights.stdout) as ListDoc).lights.filter((l) => l.layout === 'stoplight-v6' && l.config?.trafficControl.value === null);
    expect(unregistered).toEqual([]);
  });

  it('naming: system/light and a name holding / or a key are both reachable, by one rule', async () => {
    await writeAll();
    const light = async (...args: string[]): Promise<BucketInspection> => {
      const run = await runInProcess(['inspect', ...args, '--redis-url', server.url, '--at', String(NOW), '--json']);
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { inspections: BucketInspection[] }).inspections[0] as BucketInspection;
    };
    // `svc/a` is system svc, light a, where that exists …
    expect(await light('svc/a')).toMatchObject({ systemId: shortId('svc'), lightId: shortId('a') });
    // … and the default system's light named `svc/a` by --system (or its reference).
    expect(await light('svc/a', '--system', 'default')).toMatchObject({ systemId: DEFAULT, lightId: shortId('svc/a'), lightName: 'svc/a' });
    // A text that is a key reads that key's light; the light named by it with --system.
    expect(await light(KEY_NAME)).toMatchObject({ lightId: shortId('v6-green') });
    expect(await light(KEY_NAME, '--system', 'default')).toMatchObject({ lightId: shortId(KEY_NAME), lightName: KEY_NAME });
    // A name in no key of the default system: the walk finds it (its registry, in system ops) and says it walked.
    for (const name of ['v6-ops-locked', 'v6-registered-only']) {
      const walked = await light(name);
      expect(walked).toMatchObject({ systemId: shortId('ops'), lightName: name });
      expect(walked.lookup).toMatch(/^walked the keyspace \(one SCAN pass\)/);
    }
  });
});
