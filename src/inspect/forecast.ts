import type { Redis } from 'ioredis';
import { NotFoundError, ServerStartError } from '../core/errors.js';
import { FILL_BATCH, writeLightEvents } from '../run/replay.js';
import { createLayout } from '../layouts/index.js';
import type { Inspection, LightForecast, LightListing } from '../layouts/inspection.js';
import type { NameBook } from '../layouts/stoplight/names.js';
import type { Layout, Light } from '../layouts/types.js';
import { measureKeys } from '../measure/memory.js';
import { openTarget, type Target } from '../run/open.js';
import { serverInfo } from '../redis/info.js';
import { RespConnection } from '../redis/resp.js';
import { loadScripts } from '../redis/scripts.js';
import { BENCH_EPOCH, errorJsonFor, eventCount, evenTraffic as benchTraffic, lightSeed, type TrafficEvent, type TrafficSpec } from '../traffic/events.js';
import { eventsOf, newestEvents, recordedEvents, type SecondCounts } from '../traffic/recorded.js';
import { inspectLight } from './inspect.js';
import { ruleFor, type WindowRule } from './forecast-windows.js';

export type { LightForecast } from '../layouts/inspection.js';

/** Lights replayed by default: enough for a fleet's spread, a few seconds of replay each at most. */
export const DEFAULT_FORECAST_SAMPLE = 50;
/** Events replayed per light by default: a day at about 11.6 events a second. */
export const DEFAULT_FORECAST_EVENTS = 1_000_000;
/** The longest window a light is replayed with when none is known: 5.x keeps a day of events. */
const MAX_SPAN_SECONDS = 86_400;
/** swc bench's --seed when none is given: `--forecast-even` draws its traffic as that bench would. */
const BENCH_DEFAULT_SEED = 1;
/** Layouts whose recorded events swc reads (5.x members, 6.0 buckets). */
const READABLE = new Set(['stoplight-v5', 'stoplight-v5-tagged', 'stoplight-v6', 'stoplight-v6-upstream']);

/** What to forecast and how much to replay. */
export interface ForecastRequest {
  /** The layout to replay into: a registered name. */
  readonly layout: string;
  /** Lights replayed at most; the others are extrapolated from them. */
  readonly sample?: number;
  /** Events replayed per light at most (its newest). */
  readonly maxEvents?: number;
  /** The window every light is replayed with; null: a `windows` rule, else the light's registered window, else the span of its events. */
  readonly windowSeconds: number | null;
  /** `--windows <file>`: windows by light name or glob (the first match wins), before the registry's. */
  readonly windows?: readonly WindowRule[];
  /** `--forecast-even`: also measure even traffic at each light's mean rate for one window, beside its replay. */
  readonly even?: boolean;
  /** The moment the listing was judged at (the events are read as of then). */
  readonly at: number;
  readonly names?: NameBook;
  /** After each light replayed: lights done of the sample, events written so far. */
  readonly onProgress?: (p: ForecastProgress) => void;
  /** True once the forecast should stop (Ctrl-C): lights not replayed yet are left out. */
  readonly stopped?: () => boolean;
  /** The private server's binary; default `SWC_REDIS_SERVER`, else redis-server on PATH. */
  readonly binary?: string;
}

/** Progress of a forecast: lights replayed of those sampled. */
export interface ForecastProgress {
  readonly done: number;
  readonly total: number;
  readonly events: number;
  readonly light: string;
}

/** The fleet's forecast: what the lights measured came to, and the total extrapolated to every light. */
export interface FleetForecast {
  readonly layout: string;
  /** Lights the forecast covers (the listing's matched lights). */
  readonly lights: number;
  /** Lights replayed and measured ({@link LightForecast.method} `measured` or `capped`). */
  readonly measured: number;
  /** Lights not replayed because the sample was full; their bytes are extrapolated. */
  readonly sampledOut: number;
  /** Lights with nothing to replay (no events held) or of a layout whose events swc does not read. */
  readonly notReplayed: number;
  /** Bytes of the lights measured, summed. */
  readonly measuredBytes: number;
  /** The fleet: measured bytes plus their mean for each light sampled out; null when nothing was measured. */
  readonly totalBytes: number | null;
  readonly extrapolated: boolean;
  /** The lights' bytes in their own layouts now (the listing's), for comparison; null when MEMORY was refused. */
  readonly currentBytes: number | null;
  readonly events: number;
  readonly sample: number;
  readonly maxEvents: number;
  /** True when Ctrl-C stopped it: lights not reached are `sampled-out`. */
  readonly partial: boolean;
  /** The private server's version and allocator: absolute bytes depend on both. */
  readonly server: { readonly version: string; readonly allocator: string };
  /** How it was measured, in one sentence. */
  readonly method: string;
  /** Lights replayed, by where their window came from; `span`: no window known, the span of its events used (marked per light). */
  readonly windowSources: { readonly window: number; readonly windows: number; readonly registry: number; readonly span: number };
  /** What the forecast is beside `swc bench`, in one sentence. */
  readonly comparison: string;
}

/** A forecast: one entry per light given, in order, and the fleet. */
export interface Forecast {
  readonly lights: readonly LightForecast[];
  readonly fleet: FleetForecast;
}

/**
 * Which lights to replay: at most `sample` of the `eligible` indices,
 * spread evenly over them ordered by their current bytes (smallest to
 * largest, then by reference), so the sample spans the fleet's sizes. The
 * same listing gives the same sample.
 */
export function sampleLights(lights: readonly LightListing[], eligible: readonly number[], sample: number): Set<number> {
  if (eligible.length <= sample) return new Set(eligible);
  const ordered = [...eligible].sort(
    (a, b) =>
      ((lights[a] as LightListing).bytes ?? 0) - ((lights[b] as LightListing).bytes ?? 0) ||
      `${(lights[a] as LightListing).layout}/${(lights[a] as LightListing).reference}`.localeCompare(
        `${(lights[b] as LightListing).layout}/${(lights[b] as LightListing).reference}`,
      ),
  );
  return new Set(Array.from({ length: sample }, (_, i) => ordered[Math.floor(((i + 0.5) * ordered.length) / sample)] as number));
}

/** The seconds a light's keys recorded, and its last error as stored, read as `swc inspect` reads them (read-only). */
async function recordedOf(
  redis: Redis,
  light: LightListing,
  at: number,
  names: NameBook | undefined,
): Promise<{ seconds: SecondCounts[]; errorJson: string | null } | null> {
  let inspections: Inspection[];
  try {
    inspections = await inspectLight(redis, { light: light.reference, at }, undefined, names);
  } catch (err) {
    // Gone since the listing: nothing to replay.
    if (err instanceof NotFoundError) return null;
    throw err;
  }
  const inspection = inspections.find((i) => i.layout === light.layout);
  if (!inspection || inspection.kind === 'keys') return null;
  const seconds = (inspection.kind === 'events' ? inspection.seconds : inspection.buckets)
    .filter((s) => s.successes + s.failures > 0)
    .map((s) => ({ second: s.second, successes: s.successes, failures: s.failures }));
  return { seconds, errorJson: inspection.metadata.fields.last_error_json ?? null };
}

/** The light a replay writes: the name the keys carry where known (6.0 ids otherwise), in its system. */
function replayedLight(light: LightListing): Light {
  return { name: light.lightName ?? light.light, ...(light.systemName !== null ? { system: light.systemName } : {}) };
}

/** A seed per light, from its reference: member ids repeat from run to run. */
function seedOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * Replays one light's recorded seconds into `layout` on the private server
 * (injected clock, bench's writer) and measures its keys as bench does
 * (MEMORY USAGE SAMPLES 0, settled); deletes them afterwards.
 */
async function replayOne(
  redis: Redis,
  layout: Layout,
  light: LightListing,
  recorded: { seconds: SecondCounts[]; errorJson: string | null },
  request: ForecastRequest,
  maxEvents: number,
): Promise<LightForecast> {
  const all = eventsOf(recorded.seconds);
  const seconds = all > maxEvents ? newestEvents(recorded.seconds, maxEvents) : recorded.seconds;
  const total = eventsOf(seconds);
  const first = (seconds[0] as SecondCounts).second;
  const last = (seconds.at(-1) as SecondCounts).second;
  const span = Math.min(MAX_SPAN_SECONDS, last - first + 1);
  // --window for every light, else a --windows rule, else the light's registered config, else (said in the table) the span.
  const rule = request.windowSeconds === null && request.windows ? ruleFor(request.windows, light) : undefined;
  const registered = light.registered?.windowSeconds ?? null;
  const windowSeconds = request.windowSeconds ?? rule?.windowSeconds ?? registered ?? span;
  const windowFrom: LightForecast['windowFrom'] = request.windowSeconds !== null ? 'window' : rule ? 'windows' : registered !== null ? 'registry' : 'span';
  const target = replayedLight(light);
  const seed = seedOf(`${light.layout}/${light.reference}`);
  const bytes = await replayMeasured(redis, layout, target, seconds, windowSeconds, seed, recorded.errorJson);
  const failures = seconds.reduce((sum, s) => sum + s.failures, 0);
  const even = request.even ? await evenTraffic(redis, layout, target, { total, failures, first, last, windowSeconds }) : undefined;
  return {
    layout: layout.name,
    method: all > maxEvents ? 'capped' : 'measured',
    bytes,
    events: total,
    heldEvents: all,
    windowSeconds,
    windowFrom,
    ...(rule ? { windowRule: `${rule.source} ${rule.pattern}` } : {}),
    ...(even ? { even } : {}),
  };
}

/** Writes `seconds` of `target` into `layout` on the private server with bench's writer, measures its keys, and deletes them: their bytes. */
async function replayMeasured(
  redis: Redis,
  layout: Layout,
  target: Light,
  seconds: readonly SecondCounts[],
  windowSeconds: number,
  seed: number,
  errorJson: string | null,
): Promise<number> {
  const first = (seconds[0] as SecondCounts).second;
  const last = (seconds.at(-1) as SecondCounts).second;
  return writeMeasured(
    redis,
    layout,
    target,
    { events: recordedEvents([...seconds], seed), total: eventsOf([...seconds]), first, last },
    windowSeconds,
    errorJson,
  );
}

/** Writes `events` of `target` with bench's writer, measures the keys of seconds `first..last`, and deletes them: their bytes. */
async function writeMeasured(
  redis: Redis,
  layout: Layout,
  target: Light,
  input: { events: Iterator<TrafficEvent>; total: number; first: number; last: number },
  windowSeconds: number,
  errorJson: string | null,
): Promise<number> {
  const writer = await RespConnection.open(redis.options);
  try {
    await loadScripts(writer.channel, layout.scripts);
    await writeLightEvents(
      writer,
      layout,
      {
        light: target,
        events: input.events,
        total: input.total,
        // The light's own last error where it has one (its length decides the hash's encoding), else bench's.
        errorJson: (at, index) => errorJson ?? errorJsonFor(at, index, layout.stampPrecision),
      },
      { batch: FILL_BATCH, windowSeconds, written: () => undefined },
    );
  } finally {
    writer.close();
  }
  const keys = layout.keysOf(target, input.first, input.last + 1);
  const measured = await measureKeys(redis, keys);
  if (keys.length > 0) await redis.del(...keys.map((k) => k.key));
  return measured.reduce((sum, k) => sum + k.bytes, 0);
}

/**
 * `--forecast-even`: one window of swc bench's even traffic (its generator,
 * its default seed and epoch) at the light's mean rate over the seconds
 * replayed and its failure share, written and measured as the light's own
 * events are: what `swc bench` at that rate and window holds.
 */
async function evenTraffic(
  redis: Redis,
  layout: Layout,
  target: Light,
  light: { total: number; failures: number; first: number; last: number; windowSeconds: number },
): Promise<NonNullable<LightForecast['even']>> {
  const rate = light.total / (light.last - light.first + 1);
  const spec: TrafficSpec = {
    rate,
    durationSeconds: light.windowSeconds,
    failureRate: light.total > 0 ? light.failures / light.total : 0,
    // swc bench's own draw (its default --seed 1, first light, its epoch): the figure `swc bench --window W --rate r --failure-rate f` prints.
    seed: lightSeed(BENCH_DEFAULT_SEED, 0),
    startAt: BENCH_EPOCH,
  };
  const total = eventCount(spec);
  if (total === 0) return { rate, failureRate: spec.failureRate, events: 0, bytes: 0 };
  const bytes = await writeMeasured(
    redis,
    layout,
    target,
    { events: benchTraffic(spec)[Symbol.iterator](), total, first: spec.startAt, last: spec.startAt + spec.durationSeconds - 1 },
    light.windowSeconds,
    // bench's own error JSON too: the figure is bench's.
    null,
  );
  return { rate, failureRate: spec.failureRate, events: total, bytes };
}

const notReplayed = (layout: string, method: LightForecast['method'], events: number | null): LightForecast => ({
  layout,
  method,
  bytes: null,
  events: 0,
  heldEvents: events,
  windowSeconds: null,
  windowFrom: null,
});

/**
 * `swc lights --forecast`: replays the recorded events of (a sample of)
 * `lights` into `request.layout` on a private redis-server that swc starts
 * and stops, measures each replayed light's keys as `swc bench` measures
 * them, and extrapolates the fleet from the sample. Only reads `redis`.
 */
export async function forecastLights(redis: Redis, lights: readonly LightListing[], request: ForecastRequest): Promise<Forecast> {
  const sample = request.sample ?? DEFAULT_FORECAST_SAMPLE;
  const maxEvents = request.maxEvents ?? DEFAULT_FORECAST_EVENTS;
  const layout = createLayout(request.layout);
  const eligible = lights.flatMap((l, i) => (READABLE.has(l.layout) && (l.events ?? 0) > 0 ? [i] : []));
  const chosen = sampleLights(lights, eligible, sample);
  const out: LightForecast[] = lights.map((l, i) =>
    !READABLE.has(l.layout)
      ? notReplayed(layout.name, 'unsupported', l.events)
      : eligible.includes(i)
        ? notReplayed(layout.name, 'sampled-out', l.events)
        : notReplayed(layout.name, 'no-events', l.events),
  );
  const run =
    chosen.size > 0
      ? await replayAll(
          redis,
          lights,
          [...chosen].sort((x, y) => x - y),
          out,
          layout,
          request,
          maxEvents,
        )
      : NOTHING_RUN;
  return { lights: out, fleet: fleetOf(lights, out, { layout: layout.name, sample, maxEvents, ...run }) };
}

/** What a forecast with nothing to replay ran: no server. */
const NOTHING_RUN = { partial: false, events: 0, server: { version: 'none started', allocator: 'none' } };

/** A private redis-server to replay on, as bench starts one without --redis-url; a missing binary is named for --forecast. */
async function replayServer(binary: string | undefined): Promise<Target> {
  // Through the one door (src/run/open.ts), as every use case reaches a server.
  return openTarget({ privateServer: binary !== undefined ? { binary } : {} }).catch((err: unknown) => {
    if (!(err instanceof ServerStartError) || !/not found/.test(err.message)) throw err;
    const shown = binary ?? process.env.SWC_REDIS_SERVER ?? 'redis-server';
    throw new ServerStartError(
      `--forecast: replays on a redis-server of swc's own, and "${shown}" was not found: install redis-server (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) or give --redis-server <path>`,
      { cause: err },
    );
  });
}

/**
 * Replays the lights at `chosen` (indices into `lights`, in order) one after
 * another on a private server, writing each one's forecast into `out`. The
 * server is stopped on every way out (and by its watchdog if swc is killed).
 */
async function replayAll(
  redis: Redis,
  lights: readonly LightListing[],
  chosen: readonly number[],
  out: LightForecast[],
  layout: Layout,
  request: ForecastRequest,
  maxEvents: number,
): Promise<{ partial: boolean; events: number; server: FleetForecast['server'] }> {
  const server = await replayServer(request.binary);
  const own = server.redis;
  let events = 0;
  try {
    const info = await serverInfo(own);
    let done = 0;
    request.onProgress?.({ done, total: chosen.length, events, light: '' });
    for (const i of chosen) {
      if (request.stopped?.()) return { partial: true, events, server: { version: info.version, allocator: info.memAllocator } };
      const light = lights[i] as LightListing;
      const recorded = await recordedOf(redis, light, request.at, request.names);
      const forecast =
        recorded && recorded.seconds.length > 0 ? await replayOne(own, layout, light, recorded, request, maxEvents) : notReplayed(layout.name, 'no-events', 0);
      out[i] = forecast;
      events += forecast.events;
      done += 1;
      request.onProgress?.({ done, total: chosen.length, events, light: light.name });
    }
    return { partial: false, events, server: { version: info.version, allocator: info.memAllocator } };
  } finally {
    await server.close();
  }
}

/** The fleet's figures from each light's forecast. */
function fleetOf(
  lights: readonly LightListing[],
  forecasts: readonly LightForecast[],
  run: { layout: string; sample: number; maxEvents: number; partial: boolean; events: number; server: FleetForecast['server'] },
): FleetForecast {
  const measured = forecasts.filter((f) => f.method === 'measured' || f.method === 'capped');
  const sampledOut = forecasts.filter((f) => f.method === 'sampled-out').length;
  const measuredBytes = measured.reduce((sum, f) => sum + (f.bytes ?? 0), 0);
  const mean = measured.length > 0 ? measuredBytes / measured.length : null;
  const current = lights.reduce<number | null>((sum, l) => (sum === null || l.bytes === null ? null : sum + l.bytes), 0);
  const from = (source: NonNullable<LightForecast['windowFrom']>): number => measured.filter((f) => f.windowFrom === source).length;
  return {
    layout: run.layout,
    lights: lights.length,
    measured: measured.length,
    sampledOut,
    notReplayed: lights.length - measured.length - sampledOut,
    measuredBytes,
    totalBytes: mean === null ? null : Math.round(measuredBytes + mean * sampledOut),
    extrapolated: sampledOut > 0,
    currentBytes: current,
    events: run.events,
    sample: run.sample,
    maxEvents: run.maxEvents,
    partial: run.partial,
    server: run.server,
    method:
      `each light's recorded events (5.x members, 6.0 buckets) replayed in time order into ${run.layout} on a private redis-server ` +
      "with bench's writer and injected clock, then MEMORY USAGE SAMPLES 0 of its keys, as swc bench measures" +
      (sampledOut > 0 ? `; ${measured.length} of ${measured.length + sampledOut} lights replayed, the rest extrapolated at their mean` : ''),
    windowSources: { window: from('window'), windows: from('windows'), registry: from('registry'), span: from('span') },
    comparison:
      "a replay of each light's own events, bursts and idle seconds included; swc bench's even traffic at the same rate and window " +
      'fills every second, so a light with traffic in fewer seconds (one that was red, or idle) forecasts less than bench ' +
      '(--forecast-even measures that traffic beside each replay)',
  };
}

/** A listing with its forecast: each matched light carries its own, and the listing the fleet's. */
export function withForecast<T extends { readonly matched: readonly LightListing[]; readonly shown: readonly LightListing[] }>(
  listing: T,
  forecast: Forecast,
): T & { readonly forecast: FleetForecast } {
  const of = new Map(listing.matched.map((l, i) => [l, { ...l, forecast: forecast.lights[i] as LightForecast }]));
  return {
    ...listing,
    matched: [...of.values()],
    shown: listing.shown.map((l) => of.get(l) ?? l),
    forecast: forecast.fleet,
  };
}
