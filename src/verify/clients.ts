/**
 * `swc verify --client`: seeded traffic through a package's own calls and
 * through the model of its algorithm (src/clients/models/), decision by
 * decision; the first decision where they differ is a finding, replayed on a
 * fresh prefix and shrunk (src/verify/shrink.ts) to the fewest decisions that
 * still differ. A package whose window is timed by the server (real time) is
 * sent no decision close to a window's edge as the model places it: the
 * server's clock and swc's differ by up to a round trip there.
 */
import type { Redis } from 'ioredis';
import { INJECTED_EPOCH_MS, installClock, realNowMs, type RunClock } from '../clients/clock.js';
import { modelOf } from '../clients/models/index.js';
import { clientId, type ClientEvent } from '../clients/traffic.js';
import type { ClientAdapter, ClientClock, ClientDeviation, ClientLimiter, ClientModel, ClientSettings } from '../clients/types.js';
import { ttlBoundMs } from '../clients/ttl.js';
import { InterruptedError } from '../core/errors.js';
import { keysUnder } from '../measure/client-memory.js';
import { createRng } from '../traffic/random.js';
import { shrink, type ShrinkBudget } from './shrink.js';
import type { ReproCall } from './types.js';

/** What a client verification is asked. */
export interface ClientVerifyPlan {
  readonly calls: number;
  readonly clients: number;
  readonly seed: number;
  readonly windowMs: number;
  readonly limit: number;
  /** Shrinking stops after this many real milliseconds, or this many replays. */
  readonly shrinkMs: number;
  readonly shrinkReplays: number;
}

/** One decision of a reproduction: when (ms from its first), what the model decided and what the package did. */
export interface ReproDecision {
  readonly atMs: number;
  readonly expected: boolean;
  readonly got: boolean;
}

/** The package deciding otherwise than its model. */
export interface ClientFinding {
  readonly id: string;
  /** The decision (0-based, of the whole traffic) where they first differed. */
  readonly atCall: number;
  readonly expected: boolean;
  readonly got: boolean;
  /** The shortest sequence found that still differs at its last decision (one client, fresh keys). */
  readonly reproduction: readonly ReproDecision[];
  /** False when the shrink's budget ran out first. */
  readonly shrunk: boolean;
}

/** The TTLs of the keys the package wrote in the main run, read when its traffic ended. */
export interface ClientTtlCheck {
  readonly keys: number;
  /** Keys with no TTL (a finding: under a volatile-* policy they are never evicted, and others are in their place). */
  readonly withoutTtl: readonly string[];
  /** Keys whose TTL was over the package's bound (window and stated slack), with it. */
  readonly overBound: readonly string[];
  readonly boundMs: number;
  /** The server's maxmemory-policy, which decides what a key without a TTL costs; null when CONFIG GET is refused. */
  readonly maxmemoryPolicy: string | null;
}

/** One package's verification. */
export interface ClientVerifyResult {
  readonly client: string;
  readonly packageName: string;
  readonly version: string;
  readonly algorithm: ClientAdapter['algorithm'];
  readonly clock: ClientClock;
  readonly deviation: ClientDeviation | null;
  readonly calls: number;
  /** Decisions moved away from a window's edge (real time only). */
  readonly moved: number;
  readonly finding: ClientFinding | null;
  readonly ttl: ClientTtlCheck;
  readonly elapsedSeconds: number;
}

/** What the run gives each package. */
export interface ClientVerifyContext {
  readonly connect: () => Promise<Redis>;
  readonly requireFrom: string;
  /** The run's namespace prefix; every replay writes under `<prefix>:`. */
  readonly prefix: string;
  readonly signal?: AbortSignal;
}

/**
 * Seeded traffic for `clients` ids: gaps mostly short (bursts past the limit),
 * some near the window's length (either side of its end) and some idle ones
 * longer than the window.
 */
export function verifyTraffic(seed: number, clients: number, calls: number, windowMs: number): ClientEvent[] {
  const rng = createRng(seed);
  const at = new Array<number>(clients).fill(0);
  const events: ClientEvent[] = [];
  for (let i = 0; i < calls; i += 1) {
    const c = rng.int(clients);
    const roll = rng.next();
    const gap =
      roll < 0.55
        ? rng.next() * windowMs * 0.02
        : roll < 0.8
          ? windowMs * (0.05 + rng.next() * 0.25)
          : roll < 0.95
            ? windowMs * (0.85 + rng.next() * 0.3)
            : windowMs * (1.2 + rng.next() * 0.8);
    at[c] = (at[c] as number) + Math.round(gap);
    events.push({ id: clientId('v', c), atMs: at[c] as number });
  }
  return events.sort((a, b) => a.atMs - b.atMs);
}

interface Judged {
  readonly id: string;
  readonly atMs: number;
  readonly expected: boolean;
  readonly got: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Extra room on either side of an edge in real time, besides the slowest round trip seen. */
const EDGE_MARGIN_MS = 25;

/** Sends `events` through a fresh limiter and the model at once; stops at the first difference. */
async function lockstep(
  adapter: ClientAdapter,
  context: ClientVerifyContext,
  settings: ClientSettings,
  events: readonly ClientEvent[],
  checkTtls = false,
): Promise<{ version: string; judged: Judged[]; moved: number; differs: number | null; ttl?: ClientTtlCheck }> {
  const model: ClientModel = modelOf(adapter)(settings);
  const clock: RunClock | null = adapter.clock.kind === 'injected' ? { nowMs: INJECTED_EPOCH_MS } : null;
  const restore = clock ? installClock(clock) : () => undefined;
  const opened: Redis[] = [];
  let limiter: ClientLimiter | undefined;
  try {
    // Every replay on connections of its own, closed with it.
    const lent = await context.connect();
    opened.push(lent);
    const made = await adapter.open(
      {
        redis: lent,
        connect: async () => {
          const redis = await context.connect();
          opened.push(redis);
          return redis;
        },
        requireFrom: context.requireFrom,
      },
      settings,
    );
    limiter = made.limiter;
    const judged: Judged[] = [];
    let moved = 0;
    let slowest = 0;
    const margin = Math.max(EDGE_MARGIN_MS, adapter.deviation?.marginMs ?? 0);
    const start = clock ? clock.nowMs : realNowMs();
    for (const event of events) {
      if (context.signal?.aborted) throw new InterruptedError();
      let atMs: number;
      if (clock) {
        clock.nowMs = start + event.atMs;
        atMs = event.atMs;
      } else {
        const wait = start + event.atMs - realNowMs();
        if (wait >= 1) await sleep(wait);
        atMs = realNowMs() - start;
        const edge = model.edges?.(event.id).find((e) => atMs >= e - margin && atMs <= e + margin + slowest);
        if (edge !== undefined) {
          moved += 1;
          await sleep(edge + margin + slowest - atMs + 1);
          atMs = realNowMs() - start;
        }
      }
      // The model reads the run's clock as the package does: from the epoch on the injected clock (windows numbered from it).
      const expected = model.decide(event.id, clock ? clock.nowMs : atMs);
      const sent = realNowMs();
      const got = await limiter.decide(event.id);
      slowest = Math.max(slowest, realNowMs() - sent);
      judged.push({ id: event.id, atMs, expected, got });
      if (expected !== got) break;
    }
    const last = judged.at(-1);
    const differs = last && last.expected !== last.got ? judged.length - 1 : null;
    const ttl = checkTtls ? await ttlCheck(lent, settings.prefix, ttlBoundMs(adapter, settings.windowMs)) : undefined;
    return { version: made.version, judged, moved, differs, ...(ttl ? { ttl } : {}) };
  } finally {
    restore();
    await limiter?.close().catch(() => undefined);
    for (const redis of opened) redis.disconnect();
  }
}

/** Every key under `prefix`: which have no TTL, which one over `boundMs`. */
async function ttlCheck(redis: Redis, prefix: string, boundMs: number): Promise<ClientTtlCheck> {
  const keys = await keysUnder(redis, prefix);
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.pttl(key);
  const ttls = ((await pipeline.exec()) ?? []).map(([, value]) => Number(value));
  const policy = await redis.call('CONFIG', 'GET', 'maxmemory-policy').then(
    (reply) => (Array.isArray(reply) ? String(reply[1]) : null),
    () => null,
  );
  return {
    keys: keys.length,
    withoutTtl: keys.filter((_, i) => ttls[i] === -1),
    overBound: keys.filter((_, i) => (ttls[i] ?? 0) > boundMs),
    boundMs,
    maxmemoryPolicy: policy,
  };
}

/** Holds `adapter` to the model of its algorithm over seeded traffic; a difference is shrunk to a reproduction. */
export async function verifyClient(adapter: ClientAdapter, context: ClientVerifyContext, plan: ClientVerifyPlan): Promise<ClientVerifyResult> {
  const began = realNowMs();
  let replay = 0;
  const settingsFor = (sub: string): ClientSettings => ({ prefix: `${context.prefix}:${sub}:`, limit: plan.limit, windowMs: plan.windowMs });
  const events = verifyTraffic(plan.seed, plan.clients, plan.calls, plan.windowMs);
  const run = await lockstep(adapter, context, settingsFor('main'), events, true);
  let finding: ClientFinding | null = null;
  if (run.differs !== null) {
    const first = run.judged[run.differs] as Judged;
    // One client's decisions up to the difference, as a reproduction from time 0 (seconds, as shrink takes them).
    const own = run.judged.filter((j, i) => j.id === first.id && i <= (run.differs as number));
    const origin = (own[0] as Judged).atMs;
    const calls: ReproCall[] = own.map((j) => ({ op: 'success', at: (j.atMs - origin) / 1000 }));
    const answers = new Map<string, ReproDecision[]>();
    const keyOf = (c: readonly ReproCall[]): string => c.map((x) => x.at).join(',');
    answers.set(
      keyOf(calls),
      own.map((j) => ({ atMs: j.atMs - origin, expected: j.expected, got: j.got })),
    );
    const budget: ShrinkBudget = { deadline: Date.now() + plan.shrinkMs, replays: 0, maxReplays: plan.shrinkReplays, exhausted: false };
    const shrunk = await shrink(
      calls,
      async (candidate) => {
        replay += 1;
        const id = clientId('v', 0);
        const again = await lockstep(
          adapter,
          context,
          settingsFor(`r${replay}`),
          candidate.map((c) => ({ id, atMs: Math.round(c.at * 1000) })),
        );
        if (again.differs === null) return null;
        answers.set(
          keyOf(candidate.slice(0, again.differs + 1)),
          again.judged.map((j) => ({ atMs: j.atMs, expected: j.expected, got: j.got })),
        );
        return again.differs;
      },
      budget,
    );
    finding = {
      id: first.id,
      atCall: run.differs,
      expected: first.expected,
      got: first.got,
      reproduction: answers.get(keyOf(shrunk)) ?? shrunk.map((c) => ({ atMs: c.at * 1000, expected: first.expected, got: first.got })),
      shrunk: !budget.exhausted,
    };
  }
  return {
    client: adapter.name,
    packageName: adapter.packageName,
    version: run.version,
    algorithm: adapter.algorithm,
    clock: adapter.clock,
    deviation: adapter.deviation ?? null,
    calls: run.judged.length,
    moved: run.moved,
    finding,
    ttl: run.ttl as ClientTtlCheck,
    elapsedSeconds: (realNowMs() - began) / 1000,
  };
}
