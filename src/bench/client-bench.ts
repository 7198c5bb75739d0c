/**
 * `swc bench --client`: a rate-limiter package driven through its own calls
 * (src/clients/), measured as swc measures a layout: memory per client at the
 * offered rate and at several times the limit, commands and reply bytes per
 * decision, throughput with its spread, and accuracy against an exact sliding
 * window (steady below the limit, steady at twice it, a burst straddling a
 * window boundary). The caller runs this inside a guarded run: every key goes
 * under the run's namespace, which the run removes.
 */
import type { Redis } from 'ioredis';
import { INJECTED_EPOCH_MS, installClock, realNowMs, type RunClock } from '../clients/clock.js';
import { drive, type Decided, type Timing } from '../clients/drive.js';
import { boundaryBurst, clientId, steadyTraffic, together } from '../clients/traffic.js';
import { readMaxmemoryPolicy } from '../clients/read-keys.js';
import { ttlBoundMs, ttlFindingOf, type TtlFinding } from '../clients/ttl.js';
import type { ClientAdapter, ClientClock, ClientLimiter, ClientSettings } from '../clients/types.js';
import { InterruptedError } from '../core/errors.js';
import { clientAccuracy, type ClientAccuracy } from '../measure/client-accuracy.js';
import { measureClientMemory, type ClientMemory } from '../measure/client-memory.js';
import { measureCommandsPerCall } from '../measure/commandstats.js';
import { spreadOf } from '../measure/throughput.js';
import type { Spread } from '../measure/types.js';

/** What a client run is asked. */
export interface ClientPlan {
  readonly windowSeconds: number;
  /** Offered decisions per second per client. */
  readonly rate: number;
  /** Decisions each package allows per window. */
  readonly limit: number;
  /** Clients per memory phase. */
  readonly clients: number;
  /** The memory phase's traffic over the limit: this many times it per window. */
  readonly multiple: number;
  /** Throughput rounds and seconds per round; absent = not measured. */
  readonly throughput?: { readonly rounds: number; readonly seconds: number };
  /** Commands per decision are exact only where nobody else sends commands (swc's private server). */
  readonly commands: boolean;
}

/** The traffic ran through a package over each accuracy case, and what it did. */
export interface ClientAccuracies {
  /** Half the limit per window, for three windows. */
  readonly steady: ClientAccuracy;
  /** Twice the limit per window, for three windows. */
  readonly overload: ClientAccuracy;
  /** One decision, `limit` in the last tenth of the window, `limit` just after its end. */
  readonly burst: ClientAccuracy;
}

/** One package's figures. */
export interface ClientResult {
  readonly client: string;
  readonly packageName: string;
  readonly version: string;
  readonly algorithm: ClientAdapter['algorithm'];
  readonly clock: ClientClock;
  readonly windowSeconds: number;
  readonly rate: number;
  readonly limit: number;
  readonly memory: {
    /** At the offered rate (rate × window decisions per client in a window). */
    readonly atRate: ClientMemory;
    /** At `multiple` × limit decisions per client in a window. */
    readonly atMultiple: ClientMemory & { readonly multiple: number };
    /** Whether bytes per client grew from the offered rate to several times the limit (more than 10%). */
    readonly growsWithTraffic: boolean;
  };
  /** Keys the package left without a TTL, or with one longer than its window and stated slack. */
  /** Keys without a TTL; the longest TTL left; whether it was over the package's bound (ttlBoundMs). */
  readonly ttl: { readonly withoutTtl: number; readonly maxTtlMs: number | null; readonly overWindow: boolean };
  /** Each key left without a TTL, and the longest-lived key when past the package's bound, with the server's maxmemory-policy: any one fails `swc compare`. */
  readonly ttlFindings?: readonly TtlFinding[];
  /** Per decision: commands (those a script runs included), script calls, bytes the server sent and received; null when not measured (why). */
  readonly commands:
    | {
        readonly perDecision: number;
        readonly inScripts: number;
        readonly scriptCalls: number;
        readonly replyBytes: number;
        readonly requestBytes: number;
        readonly breakdown: readonly { readonly command: string; readonly mean: number }[];
      }
    | { readonly skipped: string };
  readonly throughput: { readonly decisionsPerSec: Spread; readonly rounds: number; readonly seconds: number } | null;
  readonly accuracy: ClientAccuracies;
  /** Real seconds this package's run took. */
  readonly elapsedSeconds: number;
  /** What the adapter found about how the package ran on this server (a script the server refused as sent, …), one line each. */
  readonly findings: readonly string[];
}

/** What the run gives each package. */
export interface ClientBenchContext {
  readonly redis: Redis;
  readonly connect: () => Promise<Redis>;
  readonly requireFrom: string;
  /** The run's namespace prefix (`swc-bench:<8 hex>`): the package's keys go under `<prefix>:`. */
  readonly prefix: string;
  readonly signal?: AbortSignal;
}

/** Ids of accuracy cases and phases: each client group has its own tag. */
const TAG = { rate: 'm', multiple: 'x', steady: 's', overload: 'o', burst: 'b', commands: 'k', throughput: 't' } as const;

/** Real seconds a real-time package's run takes, about (said before it starts). */
export function realTimeSeconds(plan: ClientPlan): number {
  const window = plan.windowSeconds;
  return window * 0.5 + window * 3 + (plan.throughput ? plan.throughput.rounds * plan.throughput.seconds : 0);
}

/** Decisions with the ids of group `tag`. */
const ofGroup = (decided: readonly Decided[], tag: string): Decided[] => decided.filter((d) => d.id.startsWith(`${tag}-`));

/** Throughput: `rounds` rounds of `seconds`, four decisions in flight over a thousand clients; decisions per second per round. */
async function throughputOf(limiter: ClientLimiter, rounds: number, seconds: number, clock: RunClock | null, signal?: AbortSignal): Promise<Spread> {
  const perRound: number[] = [];
  const base = clock?.nowMs ?? 0;
  const began = realNowMs();
  let next = 0;
  for (let r = 0; r < rounds; r += 1) {
    if (signal?.aborted) throw new InterruptedError();
    const start = realNowMs();
    const end = start + seconds * 1000;
    let done = 0;
    const loop = async (): Promise<void> => {
      while (realNowMs() < end) {
        // An injected clock follows real time here, so windows pass as they would.
        if (clock) clock.nowMs = Math.max(clock.nowMs, base + (realNowMs() - began));
        await limiter.decide(clientId(TAG.throughput, next++ % 1000));
        done += 1;
      }
    };
    await Promise.all([loop(), loop(), loop(), loop()]);
    perRound.push(done / ((realNowMs() - start) / 1000));
  }
  return spreadOf(perRound);
}

/** Runs one package through every phase; its keys stay under the run's namespace. */
export async function benchClient(adapter: ClientAdapter, context: ClientBenchContext, plan: ClientPlan): Promise<ClientResult> {
  const began = realNowMs();
  const windowMs = plan.windowSeconds * 1000;
  const settings: ClientSettings = { prefix: `${context.prefix}:`, limit: plan.limit, windowMs };
  const clock: RunClock | null = adapter.clock.kind === 'injected' ? { nowMs: INJECTED_EPOCH_MS } : null;
  const restore = clock ? installClock(clock) : () => undefined;
  const opened: Redis[] = [];
  const env = {
    redis: context.redis,
    connect: async () => {
      const redis = await context.connect();
      opened.push(redis);
      return redis;
    },
    requireFrom: context.requireFrom,
  };
  let limiter: ClientLimiter | undefined;
  try {
    const { version, limiter: made } = await adapter.open(env, settings);
    limiter = made;
    const timing: Timing = clock ? { kind: 'injected', clock } : { kind: 'real-time' };
    // A window timed by a key's TTL ends while the phase runs: its decisions go in the first half, so every key is alive when measured.
    const span = clock ? 1 : 0.5;
    const memoryTraffic = together(
      steadyTraffic(TAG.rate, plan.clients, plan.rate * plan.windowSeconds, windowMs * span, 1),
      steadyTraffic(TAG.multiple, plan.clients, plan.multiple * plan.limit, windowMs * span, 1),
    );
    await drive(limiter, memoryTraffic, timing, context.signal);
    const ids = (tag: string) => Array.from({ length: plan.clients }, (_, i) => clientId(tag, i));
    const clientOfKey = (key: string, prefix: string) => adapter.clientOfKey(key, prefix);
    const atRate = await measureClientMemory(context.redis, settings.prefix, ids(TAG.rate), clientOfKey);
    const atMultiple = await measureClientMemory(context.redis, settings.prefix, ids(TAG.multiple), clientOfKey);
    const withoutTtl = atRate.withoutTtl.length + atMultiple.withoutTtl.length;
    const maxTtlMs = Math.max(atRate.maxTtlMs ?? -1, atMultiple.maxTtlMs ?? -1);
    const ttlFindings = await ttlFindingsOf(context.redis, adapter, windowMs, [atRate, atMultiple]);
    const accuracyTraffic = together(
      steadyTraffic(TAG.steady, 1, plan.limit / 2, windowMs, 3),
      steadyTraffic(TAG.overload, 1, plan.limit * 2, windowMs, 3),
      boundaryBurst(TAG.burst, plan.limit, windowMs),
    );
    const decided = await drive(limiter, accuracyTraffic, timing, context.signal);
    const judged = (tag: string) => clientAccuracy(ofGroup(decided, tag), plan.limit, windowMs);
    const commands = plan.commands ? await measureCommandsPerCall(context.redis, () => (limiter as ClientLimiter).decide(clientId(TAG.commands, 0)), 20) : null;
    const throughput = plan.throughput ? await throughputOf(limiter, plan.throughput.rounds, plan.throughput.seconds, clock, context.signal) : null;
    return {
      client: adapter.name,
      packageName: adapter.packageName,
      version,
      algorithm: adapter.algorithm,
      clock: adapter.clock,
      windowSeconds: plan.windowSeconds,
      rate: plan.rate,
      limit: plan.limit,
      memory: { atRate, atMultiple: { ...atMultiple, multiple: plan.multiple }, growsWithTraffic: atMultiple.bytesPerClient > atRate.bytesPerClient * 1.1 },
      ttl: { withoutTtl, maxTtlMs: maxTtlMs < 0 ? null : maxTtlMs, overWindow: maxTtlMs > ttlBoundMs(adapter, windowMs) },
      ...(ttlFindings.length > 0 ? { ttlFindings } : {}),
      commands: commands
        ? {
            perDecision: commands.commands.mean + commands.scriptCalls,
            inScripts: commands.commands.mean,
            scriptCalls: commands.scriptCalls,
            replyBytes: commands.replyBytes,
            requestBytes: commands.requestBytes,
            breakdown: commands.breakdown.map((b) => ({ command: b.command, mean: b.mean })),
          }
        : {
            skipped: plan.commands
              ? 'INFO commandstats was not readable'
              : "on a server swc did not start, other clients' commands would count as the package's",
          },
      throughput: throughput && plan.throughput ? { decisionsPerSec: throughput, ...plan.throughput } : null,
      accuracy: { steady: judged(TAG.steady), overload: judged(TAG.overload), burst: judged(TAG.burst) },
      elapsedSeconds: (realNowMs() - began) / 1000,
      findings: [...(limiter.findings?.() ?? [])],
    };
  } finally {
    restore();
    await limiter?.close().catch(() => undefined);
    for (const redis of opened) redis.disconnect();
  }
}

/** The TTL findings of a package's keys (none, or past its bound), with the server's maxmemory-policy read only when there is one. */
async function ttlFindingsOf(redis: Redis, adapter: ClientAdapter, windowMs: number, phases: readonly ClientMemory[]): Promise<TtlFinding[]> {
  // The TTLs the memory phases read (PTTL -1: none; each phase's longest), judged by the rule lights and inspect use (ttlFindingOf).
  const reads = phases.flatMap((p) => [
    ...p.withoutTtl.map((key) => ({ key, pttl: -1 })),
    ...(p.longestTtlKey !== null && p.maxTtlMs !== null ? [{ key: p.longestTtlKey, pttl: p.maxTtlMs }] : []),
  ]);
  const judge = (policy: string | null): TtlFinding[] =>
    reads.flatMap((r) => ttlFindingOf({ ...r, windowMs, longestMs: ttlBoundMs(adapter, windowMs), policy, package: adapter.packageName }) ?? []);
  // The policy is read only when there is a finding to show it with.
  return judge(null).length === 0 ? [] : judge((await readMaxmemoryPolicy(redis)).policy);
}
