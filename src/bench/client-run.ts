/**
 * `swc bench --client` as a guarded run (src/bench/guarded-run.ts): the
 * registered designs measured at the same window and rate (src/bench/run.ts,
 * for the comparison and `--suggest`), then each package through
 * {@link benchClient}, every key under the run's namespace, removed at the end
 * on a server swc did not start. A package with an injected clock has it
 * installed only while it runs; the process's clock is back when this returns
 * or throws.
 */
import type { ClientAdapter } from '../clients/types.js';
import { EnvironmentError } from '../core/errors.js';
import type { BenchReport } from '../measure/types.js';
import type { Session } from '../redis/connect.js';
import type { Target } from '../redis/target.js';
import { benchClient, realTimeSeconds, type ClientPlan, type ClientResult } from './client-bench.js';
import { guardedRun, type Guard, type Say } from '../run/guarded-run.js';
import { purgeNamespace, type Namespace } from '../run/namespace.js';
import type { BenchPlan } from './plan.js';
import { estimatePeakBytes } from './footprint.js';
import { runBench } from './run.js';

/** Inputs of {@link runClientBench}. */
export interface ClientRun {
  readonly adapters: readonly ClientAdapter[];
  readonly plan: ClientPlan;
  /** The designs' plan at the same window and rate (memory, and accuracy for a ranking); absent = no designs measured. */
  readonly designs?: BenchPlan;
  /** Where packages are loaded from (the user's project). */
  readonly requireFrom: string;
  readonly open: () => Promise<Target>;
  readonly usersUrl?: string;
  readonly namespace?: Namespace;
  readonly allowEviction?: boolean;
  readonly signal?: AbortSignal;
  readonly say?: Say;
  readonly onSignal?: Guard['onSignal'];
  readonly onSecondSignal?: Guard['onSecondSignal'];
  /** A package that cannot be loaded here (not installed, not driven yet) is named in `clientsSkipped` and the others run (`--client all`); else it ends the run. */
  readonly skipUnavailable?: boolean;
  /** Called before each package runs (its real-time duration is said there). */
  readonly starting?: (adapter: ClientAdapter) => void;
}

/** A client run's report: the designs' bench report (empty results without designs) and each package's figures. */
export type ClientReport = BenchReport & {
  readonly clients: readonly ClientResult[];
  /** Packages asked for (with `--client all`) that could not be loaded here, each with why. */
  readonly clientsSkipped?: readonly { readonly client: string; readonly reason: string }[];
};

/** Bytes the run may hold at its peak: a few keys per client, generously, and the designs' cells. */
const PEAK_BYTES_PER_DECISION = 256;

/** Runs every package (and the designs) under every guard; the namespace is gone when this returns or throws. */
export async function runClientBench(input: ClientRun): Promise<ClientReport> {
  const { plan } = input;
  const decisions = plan.clients * (plan.rate * plan.windowSeconds + plan.multiple * plan.limit) + plan.limit * 10;
  const guard: Guard = {
    command: 'swc bench',
    layouts: [],
    layoutOptions: {},
    ...(input.usersUrl !== undefined ? { usersUrl: input.usersUrl } : {}),
    open: input.open,
    // The designs run first and their keys go before the packages': the larger of the two.
    peakBytes: () => Math.max(decisions * PEAK_BYTES_PER_DECISION, input.designs ? estimatePeakBytes(input.designs).bytes : 0),
    allowEviction: input.allowEviction === true,
    ...(input.namespace ? { namespace: input.namespace } : {}),
    ...(input.say ? { say: input.say } : {}),
    ...(input.onSignal ? { onSignal: input.onSignal } : {}),
    ...(input.onSecondSignal ? { onSecondSignal: input.onSecondSignal } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  };
  return guardedRun(guard, async ({ target, namespace, signal }) => {
    const session = target.shards[0]?.session as Session;
    const started = new Date();
    const designs = input.designs ? await runBench({ session, plan: input.designs, namespace, signal }) : undefined;
    if (input.designs) await purgeNamespace(session.redis, namespace);
    const clients: ClientResult[] = [];
    const skipped: { client: string; reason: string }[] = [];
    for (const adapter of input.adapters) {
      input.starting?.(adapter);
      try {
        clients.push(
          await benchClient(
            adapter,
            { redis: session.redis, connect: () => session.connectAnother(), requireFrom: input.requireFrom, prefix: namespace.prefix, signal },
            { ...plan, commands: plan.commands && target.private },
          ),
        );
      } catch (err) {
        // Not installed, or not driven by swc yet: named, and the others still run.
        if (!(input.skipUnavailable && err instanceof EnvironmentError)) throw err;
        skipped.push({ client: adapter.name, reason: err.message });
        input.say?.(`swc bench: ${adapter.packageName} skipped: ${err.message}`);
      }
      // Each package starts on an empty namespace, so one's keys never count as another's.
      await purgeNamespace(session.redis, namespace);
    }
    const ran: BenchReport = designs ?? (await emptyReport(session, started));
    // What the designs' part left out, said as this run's (its flags are not the user's).
    const left = input.designs
      ? [
          ...(input.designs.throughput ? [] : ["the designs' throughput (not run beside packages)"]),
          ...(input.designs.accuracy ? [] : ["the designs' accuracy (--suggest measures it)"]),
        ]
      : [];
    const { notMeasured: _designs, ...redis } = ran.redis;
    const base: BenchReport = { ...ran, redis: { ...redis, ...(left.length > 0 ? { notMeasured: left } : {}) } };
    return { ...base, clients, ...(skipped.length > 0 ? { clientsSkipped: skipped } : {}) };
  });
}

/** A report with no design measured: the server's identity only. */
async function emptyReport(session: Session, started: Date): Promise<BenchReport> {
  const { serverInfo } = await import('../redis/info.js');
  const { SCHEMA_VERSION } = await import('../core/schema-version.js');
  const { SWC_VERSION } = await import('../core/version.js');
  const info = await serverInfo(session.redis);
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    redis: { version: info.version, memAllocator: info.memAllocator, mode: 'standalone', private: session.server !== undefined, config: {} },
    options: {},
    results: [],
    startedAt: started.toISOString(),
    elapsedSeconds: (Date.now() - started.getTime()) / 1000,
  };
}

export { realTimeSeconds };
