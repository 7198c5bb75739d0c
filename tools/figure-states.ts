/**
 * The state and window figures of docs/operator.md (`lights-states`) and
 * docs/inspect.md (`inspect-states`), run by `npm run docs:figures`.
 *
 * A private server gets lights in every state Stoplight gives, written by
 * swc's own 5.x and 6.0 scripts with the state fields Stoplight's
 * transitions write: red, yellow (recovery due), recovered inside the
 * window, locked red, locked green, a light on Stoplight's default config
 * (metadata only), and a 6.0 light whose registry config trips on
 * consecutive errors (in 6.0's default system, which swc names itself). The read is at a clock hour's first second (hh:00:00),
 * where 5.x leaves that second's events out. Then `swc lights` and
 * `swc inspect` run as a user runs them, and their output fills the blocks.
 *
 * The 6.0 figures (`lights-states-v6`, `inspect-recovery`) come from lights
 * of another system driven through Stoplight 6.0's state machine by the
 * test-side application (test/stoplight6-app.ts): red by error rate and by
 * consecutive errors, a recovery probe under way, locked red before any
 * traffic, the default config, and a cool-off ending at the read.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { createLayout } from '../src/layouts/index.js';
import { LayoutClient } from '../src/layouts/client.js';
import { nameId } from '../src/layouts/stoplight/names.js';
import { StoplightV5 } from '../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../src/layouts/stoplight/v6.js';
import { connect } from '../src/redis/connect.js';
import { startPrivateServer } from '../src/redis/server.js';
import { writeFigure } from './figure-blocks.js';
import { Stoplight6Light, type AppLightConfig } from '../test/stoplight6-app.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WINDOW = 300;
const ERROR = (at: number): string => JSON.stringify({ error: { class: 'Net::ReadTimeout', message: 'Net::ReadTimeout' }, time: at });

type Event = readonly [offset: number, outcome: 's' | 'f'];
const run = (from: number, n: number, outcome: 's' | 'f'): Event[] => Array.from({ length: n }, (_, i) => [from + i * 4, outcome] as const);

interface Spec {
  readonly layout: 'stoplight-v5' | 'stoplight-v6';
  readonly events: readonly Event[];
  /** Offsets from the read, as Stoplight writes them (seconds). */
  readonly fields?: Record<string, number | string>;
}

const LIGHTS: Record<string, Spec> = {
  // Breached 100 s ago, recovery not yet due: red.
  'payments-api': {
    layout: 'stoplight-v5',
    events: [...run(-280, 20, 's'), ...run(-130, 8, 'f')],
    fields: { breached_at: -100, recovery_scheduled_after: 60 },
  },
  // Recovery due 10 s ago: yellow.
  geocoder: { layout: 'stoplight-v5', events: [...run(-250, 10, 's'), ...run(-200, 6, 'f')], fields: { breached_at: -190, recovery_scheduled_after: -10 } },
  // Recovered 100 s ago: the failures before recovered_at leave its window.
  search: { layout: 'stoplight-v5', events: [...run(-280, 20, 'f'), ...run(-90, 20, 's')], fields: { recovered_at: -100 } },
  mailer: { layout: 'stoplight-v5', events: run(-200, 12, 's'), fields: { locked_state: 'locked_red' } },
  // Locked green: Stoplight keeps it green whatever its failures.
  billing: { layout: 'stoplight-v5', events: run(-120, 15, 'f'), fields: { locked_state: 'locked_green' } },
  // Green, with a failure at hh:00:00 that 5.x's read leaves out.
  checkout: { layout: 'stoplight-v5', events: [...run(-290, 60, 's'), [-30, 'f'], [0, 'f']] },
  inventory: { layout: 'stoplight-v6', events: [...run(-250, 10, 's'), ...run(-60, 3, 'f')], fields: { breached_at: -52, recovery_scheduled_after: 8 } },
};

async function seed(redis: Redis, now: number): Promise<void> {
  const v5 = new StoplightV5();
  const v6 = new StoplightV6();
  const clients = {
    'stoplight-v5': await LayoutClient.open(redis, createLayout('stoplight-v5')),
    'stoplight-v6': await LayoutClient.open(redis, createLayout('stoplight-v6')),
  };
  for (const [name, spec] of Object.entries(LIGHTS)) {
    const light = { name };
    for (const [offset, outcome] of spec.events) {
      const at = now + offset;
      if (outcome === 's') await clients[spec.layout].recordSuccess(light, { at, windowSeconds: WINDOW });
      else await clients[spec.layout].recordFailure(light, { at, windowSeconds: WINDOW, errorJson: ERROR(at) });
    }
    if (spec.fields === undefined) continue;
    const fields = Object.fromEntries(Object.entries(spec.fields).map(([k, v]) => [k, typeof v === 'number' ? String(now + v) : v]));
    // 5.x keeps its state in the metadata hash; released 6.0 in `…:{<light id>}:state`.
    const key = spec.layout === 'stoplight-v5' ? v5.metadataKey(light) : v6.metricsKey(light).replace(/:window_metrics$/, ':state');
    await redis.hset(key, fields);
  }
  // Stoplight's default config (no window_size): 5.x writes only the metadata hash.
  await redis.hset(v5.metadataKey({ name: 'legacy-sms' }), {
    last_success_at: String(now - 400),
    last_error_at: String(now - 40),
    consecutive_errors: '4',
    consecutive_successes: '0',
    last_error_json: ERROR(now - 40),
  });
  // 6.0's registry names the light and holds its config: it trips on 3 consecutive errors.
  const config = { name: 'inventory', threshold: 3, window_size: WINDOW, traffic_control: 'consecutive_errors' };
  await redis.hset(
    `stoplight:v6:${nameId('default')}:lights`,
    nameId('inventory'),
    JSON.stringify({ meta: { version: 1, registered_at: now - 3600 }, config }),
  );
}

/** The 6.0 system of the second figure (6.0's default one, which swc names itself): its lights, each driven through Stoplight's states. */
const V6_SYSTEM = 'default';

async function seedV6(redis: Redis, now: number): Promise<void> {
  const base = { system: V6_SYSTEM, windowSeconds: WINDOW, coolOffSeconds: 600 };
  const lights: [AppLightConfig, [number, 'success' | 'failure'][], 'locked_red' | null][] = [
    // 12 calls, half failing: error rate 50% over at least 10 requests, red.
    [{ ...base, name: 'orders-api', strategy: 'error_rate', threshold: 0.5 }, [...calls(-200, 6, 'success'), ...calls(-150, 6, 'failure')], null],
    // 3 consecutive errors, all in the window: red.
    [{ ...base, name: 'stock', strategy: 'consecutive_errors', threshold: 3 }, calls(-80, 3, 'failure'), null],
    // Red 400 s ago, cool-off 300 s: a probe 50 s ago (1 of 3 successes needed) is under way.
    [
      { ...base, name: 'ledger', strategy: 'consecutive_errors', threshold: 3, coolOffSeconds: 300, recoveryThreshold: 3 },
      [...calls(-400, 3, 'failure'), [-50, 'success']],
      null,
    ],
    // Locked red by an operator before any traffic: only its state and its registry entry.
    [{ ...base, name: 'fraud-check', strategy: 'consecutive_errors', threshold: 3 }, [], 'locked_red'],
    // The default config (no window): the unbounded metrics hash, 3 consecutive errors, red.
    [{ ...base, name: 'email', windowSeconds: null, strategy: 'consecutive_errors', threshold: 3 }, calls(-30, 3, 'failure'), null],
    // Breached 60 s before the read with a 60 s cool-off: still red at the read (the cool-off ends strictly after).
    [
      { ...base, name: 'tax', strategy: 'consecutive_errors', threshold: 3, coolOffSeconds: 60 },
      [
        [-62, 'failure'],
        [-61, 'failure'],
        [-60, 'failure'],
      ],
      null,
    ],
    // 2 of 3 calls failing under error rate: fewer than its 10 requests, not close to tripping.
    [
      { ...base, name: 'search', strategy: 'error_rate', threshold: 0.5 },
      [
        [-30, 'success'],
        [-20, 'failure'],
        [-10, 'failure'],
      ],
      null,
    ],
  ];
  for (const [config, events, lock] of lights) {
    const app = await Stoplight6Light.open(redis, config);
    await app.register(now - 3600);
    if (lock !== null) await app.lock(lock);
    for (const [offset, outcome] of events) await app.call(outcome, now + offset);
  }
}

const calls = (from: number, n: number, outcome: 'success' | 'failure'): [number, 'success' | 'failure'][] =>
  Array.from({ length: n }, (_, i) => [from + i * 0.5, outcome]);

async function v6Figures(now: number): Promise<{ lightsV6: string; recovery: string }> {
  const server = await startPrivateServer();
  try {
    const redis = await connect(server.url);
    try {
      await seedV6(redis, now);
    } finally {
      redis.disconnect();
    }
    return {
      lightsV6: swc(server.url, ['lights', '--sort', 'state', '--threshold', '0.5', '--at', String(now)]),
      // By name, without --system: the default system's keys and registry entry, no SCAN.
      recovery: swc(server.url, ['inspect', 'ledger', '--at', String(now)]),
    };
  } finally {
    await server.stop();
  }
}

function swc(url: string, args: readonly string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env, COLUMNS: '80', NO_COLOR: '1', TZ: 'UTC', REDIS_URL: url };
  const child = spawnSync(process.execPath, [join(ROOT, 'bin/swc.js'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`swc ${args.join(' ')}: exit ${child.status}: ${child.stderr}`);
  return `\`\`\`text\n$ swc ${args.join(' ')}\n${child.stdout.trimEnd()}\n\`\`\``;
}

async function main(): Promise<void> {
  const server = await startPrivateServer();
  try {
    const redis = await connect(server.url);
    let now: number;
    try {
      const [seconds] = await redis.time();
      // The read: this clock hour's first second.
      now = Number(seconds) - (Number(seconds) % 3600);
      await seed(redis, now);
    } finally {
      redis.disconnect();
    }
    const lights = swc(server.url, ['lights', '--window', '5m', '--sort', 'state', '--threshold', '0.5', '--at', String(now)]);
    // The 6.0 figures: a server of their own, so the first figure stays as it was.
    const { lightsV6, recovery } = await v6Figures(now);
    const inspect = swc(server.url, ['inspect', 'search', '--window', '300', '--at', String(now), '--limit', '4']);
    const caption = '_Lights in every state on a private server, read at a clock hour’s first second (regenerated by `npm run docs:figures`)._';
    writeFigure(join(ROOT, 'docs/operator.md'), 'lights-states', `${lights}\n\n${caption}`);
    writeFigure(join(ROOT, 'docs/inspect.md'), 'inspect-states', `${inspect}\n\n${caption}`);
    const v6Caption =
      "_Stoplight 6.0 lights driven through its state machine (test/stoplight6-app.ts) on a private server; no --window: each light's registered window_size (regenerated by `npm run docs:figures`)._";
    writeFigure(join(ROOT, 'docs/operator.md'), 'lights-states-v6', `${lightsV6}\n\n${v6Caption}`);
    writeFigure(join(ROOT, 'docs/inspect.md'), 'inspect-recovery', `${recovery}\n\n${v6Caption}`);
  } finally {
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`figure-states: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(3);
  },
);
