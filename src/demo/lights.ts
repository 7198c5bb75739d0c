/**
 * The demo lights: a small Stoplight application (a 6.0 `payments` system
 * whose registry names its lights, a 6.0 `search` system without one, and
 * four 5.x lights), written through swc's own 5.x and 6.0 writers with the
 * state fields Stoplight's transitions leave (src/layouts/stoplight/state.ts),
 * so that `swc lights` and `swc inspect` have red, yellow, recovered, locked
 * and default-config lights to show. Pure data and one writer; where the keys
 * go (a private server, or a marked namespace on a user's server) is the
 * caller's choice through {@link DemoNaming}.
 */
import type { Redis } from 'ioredis';
import type { LightKey } from '../layouts/types.js';
import { LayoutClient } from '../layouts/client.js';
import { nameId } from '../layouts/kit/keys.js';
import { StoplightV5 } from '../layouts/stoplight/v5.js';
import { StoplightV6 } from '../layouts/stoplight/v6.js';

/** The window every demo light is configured with (5 min), in seconds. */
export const DEMO_WINDOW_SECONDS = 300;

/** The state each demo light is written to be in, as `swc lights` names it. */
export type DemoState = 'green' | 'yellow' | 'red' | 'locked red' | 'locked green';

/** One demo light: who it is, its traffic over the last minutes, and the state fields its transitions left. */
export interface DemoLight {
  readonly layout: 'stoplight-v5' | 'stoplight-v6';
  /** 6.0 only. */
  readonly system?: string;
  readonly name: string;
  readonly state: DemoState;
  /** What this light shows, in a few words. */
  readonly story: string;
  /** Calls per second over the last {@link TRAFFIC_SECONDS}; 0: no events (Stoplight's default config). */
  readonly rate: number;
  /** Failure share at `offset` seconds before now (negative). */
  readonly failures: (offset: number) => number;
  readonly errorClass: string;
  readonly errorMessage: string;
  /** State fields, each in seconds relative to now (a number) or a literal (a string). */
  readonly fields?: Readonly<Record<string, number | string>>;
  /** 6.0: the light's config in the system's registry (its name then shows in `swc lights`). */
  readonly registered?: boolean;
}

/** How long the demo traffic runs, ending one second before now. */
export const TRAFFIC_SECONDS = 240;

const calm = (share: number) => (): number => share;
/** `share` in `[from, to)` seconds before now, `base` elsewhere. */
const burst =
  (from: number, to: number, share: number, base: number) =>
  (offset: number): number =>
    offset >= from && offset < to ? share : base;

/** The demo application. Times are seconds relative to now. */
export const DEMO_LIGHTS: readonly DemoLight[] = [
  {
    layout: 'stoplight-v6',
    system: 'payments',
    name: 'checkout',
    state: 'green',
    story: 'steady, a few timeouts',
    rate: 5,
    failures: calm(0.02),
    errorClass: 'Net::ReadTimeout',
    errorMessage: 'Net::ReadTimeout with #<TCPSocket:(closed)>',
    registered: true,
  },
  {
    layout: 'stoplight-v6',
    system: 'payments',
    name: 'stripe-api',
    state: 'red',
    story: 'outage 50 s ago, cooling off 5 min',
    rate: 3,
    failures: burst(-50, 0, 0.9, 0.03),
    errorClass: 'Stripe::APIConnectionError',
    errorMessage: 'Could not connect to Stripe (https://api.stripe.com)',
    fields: { breached_at: -45.25, recovery_scheduled_after: 254.75 },
    registered: true,
  },
  {
    layout: 'stoplight-v6',
    system: 'payments',
    name: 'fraud-check',
    state: 'locked red',
    story: 'locked red by an operator',
    rate: 1,
    failures: calm(0),
    errorClass: 'Faraday::ConnectionFailed',
    errorMessage: 'Failed to open TCP connection',
    fields: { locked_state: 'locked_red' },
    registered: true,
  },
  {
    layout: 'stoplight-v6',
    system: 'search',
    name: 'autocomplete',
    state: 'yellow',
    story: 'cool-off over: the next call probes',
    rate: 2,
    failures: burst(-150, -110, 0.8, 0.01),
    errorClass: 'Elastic::Transport::Transport::Errors::ServiceUnavailable',
    errorMessage: '[503] no available connection',
    fields: { breached_at: -118.5, recovery_scheduled_after: -58.5 },
  },
  {
    layout: 'stoplight-v5',
    name: 'legacy-geocoder',
    state: 'green',
    story: 'recovered 60 s ago',
    rate: 2,
    failures: burst(-200, -60, 0.6, 0.02),
    errorClass: 'Timeout::Error',
    errorMessage: 'execution expired',
    fields: { recovered_at: -60 },
  },
  {
    layout: 'stoplight-v5',
    name: 'legacy-mailer',
    state: 'locked green',
    story: 'failing, locked green by an operator',
    rate: 1,
    failures: calm(0.5),
    errorClass: 'Net::SMTPServerBusy',
    errorMessage: '421 4.7.0 Try again later',
    fields: { locked_state: 'locked_green' },
  },
  {
    layout: 'stoplight-v5',
    name: 'legacy-pdf',
    state: 'green',
    story: 'steady',
    rate: 2,
    failures: calm(0.01),
    errorClass: 'Errno::ECONNRESET',
    errorMessage: 'Connection reset by peer',
  },
  {
    layout: 'stoplight-v5',
    name: 'legacy-ldap',
    state: 'red',
    story: 'default config: metadata only',
    rate: 0,
    failures: calm(1),
    errorClass: 'Net::LDAP::Error',
    errorMessage: 'Connection refused - connect(2) for 10.0.0.12:389',
    fields: { breached_at: -30, recovery_scheduled_after: 270, consecutive_errors: '4', consecutive_successes: '0', last_error_at: -30, last_success_at: -95 },
  },
];

/**
 * How the demo names its lights. On a private server the names are the
 * application's own; on a user's server a marker goes in front of every
 * 5.x light name and 6.0 system name, so each key says it is a demo key.
 */
export interface DemoNaming {
  /** Put in front of 5.x light names and 6.0 system names (`swc-demo:<id>:`), or empty. */
  readonly mark: string;
}

/** The name and system under which a demo light is written. */
export function demoLightOf(light: DemoLight, naming: DemoNaming): { name: string; system?: string } {
  if (light.layout === 'stoplight-v6') return { name: light.name, system: `${naming.mark}${light.system ?? 'default'}` };
  return { name: `${naming.mark}${light.name}` };
}

const v5 = new StoplightV5();

/**
 * The prefix of the demo's 6.0 keys: Stoplight's own, `stoplight:v6`, with
 * the demo's mark in front on a user's server (`swc-demo:<id>:stoplight:v6`),
 * as a bench puts its namespace in front of a layout's prefix. A 6.0 key
 * names its system and light by hashes only, so the mark in the system's
 * name alone could not be read off the key; in front of the prefix it can,
 * and swc's inspectors read a key with a namespace in front as the same
 * layout's (`swc lights` lists them, `swc inspect <key>` opens one).
 */
export const demoV6Prefix = (naming: DemoNaming): string => `${naming.mark}stoplight:v6`;

/** The 6.0 layout the demo writes with. */
const v6Of = (naming: DemoNaming): StoplightV6 => new StoplightV6({ prefix: demoV6Prefix(naming) });

/** The 6.0 state hash of a light (`…:{<light id>}:state`), next to its window_metrics hash. */
const v6StateKey = (light: { name: string; system?: string }, naming: DemoNaming): string =>
  v6Of(naming)
    .metricsKey(light)
    .replace(/:window_metrics$/, ':state');
/** The registry of light configs of a 6.0 system. */
const registryKey = (system: string, naming: DemoNaming): string => `${demoV6Prefix(naming)}:${nameId(system)}:lights`;

/** The key `swc inspect` opens a demo 6.0 light by on a user's server (its name alone would look under `stoplight:v6`). */
export function demoInspectKey(light: DemoLight, naming: DemoNaming): string | null {
  return light.layout === 'stoplight-v6' && naming.mark !== '' ? v6Of(naming).metricsKey(demoLightOf(light, naming)) : null;
}

/** Every key the demo writes at `now` (whole seconds), in the order written. */
export function demoKeys(naming: DemoNaming, now: number): string[] {
  const keys: string[] = [];
  for (const light of DEMO_LIGHTS) {
    const who = demoLightOf(light, naming);
    const layout = light.layout === 'stoplight-v5' ? v5 : v6Of(naming);
    if (light.rate === 0) keys.push(v5.metadataKey(who));
    else keys.push(...layout.keysOf(who, now - TRAFFIC_SECONDS, now - 1).map((k: LightKey) => k.key));
    if (light.layout === 'stoplight-v6' && light.fields) keys.push(v6StateKey(who, naming));
  }
  const systems = new Set(DEMO_LIGHTS.filter((l) => l.registered).map((l) => `${naming.mark}${l.system ?? 'default'}`));
  for (const system of systems) keys.push(registryKey(system, naming));
  return [...new Set(keys)];
}

/** A field's stored value: a relative time becomes a Unix time in seconds (6.0 stores floats; 5.x whole seconds). */
function fieldValue(value: number | string, now: number, layout: DemoLight['layout']): string {
  if (typeof value === 'string') return value;
  return layout === 'stoplight-v5' ? String(Math.round(now + value)) : (now + value).toFixed(3);
}

/** Seconds of one light's traffic sent without waiting for replies. */
const CALL_BATCH_SECONDS = 30;

/** A deterministic failure draw: the same traffic on every run. */
const failed = (n: number, share: number): boolean => (n * 7919) % 1000 < share * 1000;

/** Writes one light's traffic and state; returns the calls made. */
async function writeLight(
  redis: Redis,
  clients: Record<DemoLight['layout'], LayoutClient>,
  light: DemoLight,
  naming: DemoNaming,
  now: number,
): Promise<number> {
  const who = demoLightOf(light, naming);
  const errorJson = (at: number): string => JSON.stringify({ error: { class: light.errorClass, message: light.errorMessage }, time: Math.floor(at) });
  let calls = 0;
  // Sent a second's batch at a time without waiting between calls: one connection keeps them in order.
  for (let offset = -TRAFFIC_SECONDS; offset < 0 && light.rate > 0; offset += CALL_BATCH_SECONDS) {
    const sent: Promise<unknown>[] = [];
    for (let second = offset; second < Math.min(0, offset + CALL_BATCH_SECONDS); second++) {
      for (let i = 0; i < light.rate; i++) {
        const at = now + second + (i + 0.5) / light.rate;
        const options = { windowSeconds: DEMO_WINDOW_SECONDS, at };
        if (failed(calls, light.failures(second))) sent.push(clients[light.layout].recordFailure(who, { ...options, errorJson: errorJson(at) }));
        else sent.push(clients[light.layout].recordSuccess(who, options));
        calls += 1;
      }
    }
    await Promise.all(sent);
  }
  const fields = Object.fromEntries(Object.entries(light.fields ?? {}).map(([k, v]) => [k, fieldValue(v, now, light.layout)]));
  if (light.rate === 0) fields.last_error_json = errorJson(now - 30);
  if (Object.keys(fields).length === 0) return calls;
  // 5.x keeps the state in the metadata hash; released 6.0 in a hash of its own. Both live as long as the metadata (7 days).
  const key = light.layout === 'stoplight-v5' ? v5.metadataKey(who) : v6StateKey(who, naming);
  await redis.hset(key, fields);
  await redis.expire(key, 7 * 86400);
  return calls;
}

/** What {@link writeDemoLights} wrote. */
export interface DemoWrite {
  /** The server's clock when the traffic ended (Unix seconds). */
  readonly at: number;
  readonly calls: number;
  readonly keys: readonly string[];
}

/**
 * Writes the demo lights on `redis` at the server's clock: each light's
 * traffic over the last {@link TRAFFIC_SECONDS} through swc's own writers,
 * then its state fields, then the `payments` registry. Keys are exactly
 * {@link demoKeys} (the caller checks they are free first).
 */
export async function writeDemoLights(redis: Redis, naming: DemoNaming, now: number): Promise<DemoWrite> {
  const clients = {
    'stoplight-v5': await LayoutClient.open(redis, v5),
    'stoplight-v6': await LayoutClient.open(redis, v6Of(naming)),
  };
  let calls = 0;
  for (const light of DEMO_LIGHTS) calls += await writeLight(redis, clients, light, naming, now);
  for (const light of DEMO_LIGHTS.filter((l) => l.registered)) {
    const system = `${naming.mark}${light.system ?? 'default'}`;
    const config = { name: light.name, window_size: DEMO_WINDOW_SECONDS, threshold: 0.5, traffic_control: 'error_rate' };
    await redis.hset(registryKey(system, naming), nameId(light.name), JSON.stringify({ meta: { version: 1, registered_at: now - 3600 }, config }));
    await redis.expire(registryKey(system, naming), 7 * 86400);
  }
  return { at: now, calls, keys: demoKeys(naming, now) };
}
