/**
 * Result shapes of `swc bench`. Units are in the field names. These are the
 * JSON contract other tools read: add fields freely, never rename.
 */
import type { AccuracyResult, ServerCost } from './accuracy.js';
import type { CommandsPerCall } from './commandstats.js';
import type { InstructionsResult } from './instructions.js';
import type { SCHEMA_VERSION } from '../core/schema-version.js';
import type { NamedRejection } from '../core/rejection.js';
import type { TtlFinding } from '../clients/ttl.js';

/** One key of a light as measured. */
export interface KeyMemory {
  /** What the key holds (`metadata`, `success events`, `metrics`, `index`, …: the names `swc inspect` gives them). */
  readonly role: string;
  readonly key: string;
  /** `hash`, `zset`, … */
  readonly type: string;
  /** `listpack`, `hashtable`, `skiplist`, … */
  readonly encoding: string;
  /** HLEN / ZCARD. */
  readonly elements: number;
  /** `MEMORY USAGE <key> SAMPLES 0`; with `copies`, the mean over the key and its copies, to a whole byte. */
  readonly bytes: number;
  /**
   * A skiplist of a preset cell: how many server-side copies (COPY, which
   * draws every node's random level anew) `bytes` is averaged over besides
   * the key itself (src/bench/steady-lights.ts). Absent: the key alone.
   */
  readonly copies?: number;
  /**
   * For a hash that is a hashtable or a sorted set that is a skiplist (of the
   * cell's first light, up to 10,000 elements): its longest parts, which
   * decide against `*-max-listpack-value` whether it could be a listpack.
   */
  readonly longest?: LongestParts;
  /**
   * For a hash of at most 10,000 fields (of the cell's first light), whatever
   * its encoding: its longest values, up to 5, longest first. What `swc
   * compare` names when a field grew or a new one appeared.
   */
  readonly largest?: readonly { readonly field: string; readonly bytes: number }[];
}

/**
 * A key that left listpack only because of a length: a shorter value (or a
 * higher `*-max-listpack-value`) would keep it compact. One per layout, key
 * and cause, over the cells where it holds (src/bench/encoding-advice.ts).
 */
export interface EncodingHint {
  readonly layout: string;
  readonly role: string;
  readonly type: string;
  readonly encoding: string;
  /** The setting the part is longer than, its value on the server, and a round value that fits the part. */
  readonly setting: string;
  readonly limit: number;
  readonly fits: number;
  /** What is too long: a hash value (`name` is its field), a field name, or a sorted-set member (`name`: its first characters). */
  readonly kind: 'value' | 'field' | 'member';
  readonly name: string;
  /** Its length: the longest seen over the cells. */
  readonly bytes: number;
  /** Cells (window, rate) where the key was expanded for this reason only. */
  readonly cells: readonly { readonly windowSeconds: number; readonly rate: number }[];
  /** Whether that is every cell of the layout in the run. */
  readonly everyCell: boolean;
}

/** The longest parts of a hash or sorted set, in bytes. */
export interface LongestParts {
  /** The longest field name (hash) or member (sorted set): its first 64 characters and its length. */
  readonly name: { readonly text: string; readonly bytes: number };
  /** Hash only: the longest value's length and the field that holds it. */
  readonly value?: { readonly field: string; readonly bytes: number };
}

/** Memory of one cell, per light. */
export interface MemoryResult {
  /** Sum over the light's keys of `MEMORY USAGE … SAMPLES 0`, averaged over the cell's lights. */
  readonly bytesPerLight: number;
  /** `INFO memory` used_memory after minus before the cell's traffic, divided by the lights. */
  readonly usedMemoryDeltaPerLight: number;
  /** The keys of the cell's first light. */
  readonly keys: readonly KeyMemory[];
  readonly lights: number;
}

/**
 * How a figure varied across a phase's rounds: its median, min and max, and
 * `spreadFraction = (max - min) / median`. A figure is `noisy` when its spread is
 * over {@link NOISY_SPREAD}: a single run of it says little.
 */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly spreadFraction: number;
  readonly noisy: boolean;
}

// Also stated by report/bench.ts: kept in core/ and re-exported here for existing callers.
export { NOISY_SPREAD } from '../core/thresholds.js';

/** Per-round figures of one operation of a layout (`--rounds`). */
export interface RoundStats {
  /** Rounds measured. */
  readonly count: number;
  readonly opsPerSec: Spread;
  readonly p50Ms: Spread;
  readonly p99Ms: Spread;
  readonly p999Ms: Spread;
  /** Null when INFO commandstats is not readable. */
  readonly serverUsecPerCall: Spread | null;
  /** The server's CPU µs per call (INFO cpu); absent in results from before it was measured, null when unreadable. */
  readonly serverCpuUsecPerCall?: Spread | null;
}

/** Throughput and latency of one kind of operation. */
export interface LatencyStats {
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly meanMs: number;
  /** With `--percentiles`: each asked percentile in ms (median of the rounds), keyed by `String(p)`: `{ "90": 0.31, "99.9": 1.2 }`. */
  readonly percentilesMs?: Readonly<Record<string, number>>;
  /** Operations measured. */
  readonly ops: number;
  /** Wall seconds the operations took (with rounds: summed). */
  readonly durationSeconds: number;
  /** Server time per call from `INFO commandstats` (EVALSHA usec / calls, as deltas); null when unreadable. */
  readonly serverUsecPerCall: number | null;
  /**
   * The server's main-thread CPU time per call over the same rounds (`INFO
   * cpu` deltas over script calls): the script plus reading and answering
   * it, without time the server sat descheduled, so a busy machine moves it
   * far less than `serverUsecPerCall`. Absent in older results, null when
   * unreadable.
   */
  readonly serverCpuUsecPerCall?: number | null;
  /**
   * With rounds (swc 0.1 and later): each figure across the rounds. The
   * figures above are then the medians of the rounds (ops and durationSeconds: sums).
   */
  readonly rounds?: RoundStats;
  /** Whether ops/s or server µs/call varied by more than {@link NOISY_SPREAD} across rounds. */
  readonly noisy?: boolean;
}

/** A layout's ops/s over the reference layout's, as the median of per-round ratios. */
export interface ThroughputRatio {
  /** The layout divided by (the first layout of the cell). */
  readonly reference: string;
  readonly write: Spread;
  readonly read: Spread;
  readonly request: Spread;
  /** Server µs per request over the reference's, per round; null when INFO commandstats is not readable. */
  readonly serverUsecPerRequest: Spread | null;
  /**
   * The server's CPU µs per call over the reference's, per round (the two
   * measured back to back, so a busy spell of the machine hits both); null
   * when INFO is not readable, absent in older results.
   */
  readonly serverCpu?: { readonly write: Spread | null; readonly read: Spread | null; readonly request: Spread | null };
}

/**
 * What one application thread sees: one request at a time (a read, then a
 * write once the read answered) through ioredis, timed with tinybench.
 */
export interface AppView {
  /** Mean latency of one request (both round trips), ms. */
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Relative margin of error of the mean, percent (tinybench `rme`). */
  readonly rmePercent: number;
  /** Requests timed. */
  readonly samples: number;
  /** 1000 / meanMs: requests per second of one thread. */
  readonly opsPerSec: number;
  /** Whether `rmePercent` stayed above the bound (5%) after the extra time; absent in older results. */
  readonly noisy?: boolean;
}

/** Steady-state throughput of one layout in one cell. */
export interface ThroughputResult {
  /** A success or failure recorded. */
  readonly write: LatencyStats;
  /** A metrics snapshot. */
  readonly read: LatencyStats;
  /** What Stoplight does per request: a read, then a write. */
  readonly request: LatencyStats;
  readonly connections: number;
  readonly pipeline: number;
  /** Rounds per phase, interleaved with the cell's other layouts. */
  readonly rounds?: number;
  /** For every layout of a cell but the first: its ratios to the first, per round. */
  readonly ratio?: ThroughputRatio;
  /** One application thread's view (`--app-view`). */
  readonly app?: AppView;
  /** The moment (ISO 8601, on the injected clock) of the last event written. */
  readonly clockEndAt?: string;
}

/** Latency of the writes of a realtime run, client side, from send to reply. */
export interface RealtimeLatency {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly meanMs: number;
  readonly maxMs: number;
  /** Writes measured (every event sent, all lights). */
  readonly ops: number;
}

/** Real traffic at a requested rate on the server's clock (`swc bench --realtime`). */
export interface RealtimeResult {
  /** Events per second per light, as asked for. */
  readonly requestedRate: number;
  /** Events per second per light, as sent: `events / durationSeconds`. */
  readonly achievedRate: number;
  /** 0 when on pace; 0.25 when the client sent 25% fewer events per second than asked (it never drops, it runs longer). */
  readonly shortfallFraction: number;
  /** Real seconds from the start to the moment the last event was sent. */
  readonly durationSeconds: number;
  /** Events sent per light. */
  readonly events: number;
  /** Events sent, all lights of the cell. */
  readonly eventsTotal: number;
  readonly lights: number;
  /** How late events left the client compared with their due time (monotonic clock). */
  readonly lateP50Ms: number;
  readonly lateP99Ms: number;
  readonly lateMaxMs: number;
  readonly write: RealtimeLatency;
  /** When the traffic started and ended (ISO 8601, wall clock, to the millisecond). */
  readonly startedAt: string;
  readonly endedAt: string;
}

/** One layout at one window and rate. */
export interface CellResult {
  readonly layout: string;
  readonly windowSeconds: number;
  /** Requests per second per light. */
  readonly rate: number;
  /** Traffic time: simulated, or real seconds asked for with `--realtime`. */
  readonly durationSeconds: number;
  /** rate × min(traffic time, window): what the window holds at the end of the traffic. */
  readonly eventsInWindow: number;
  /** Events actually written per light. */
  readonly events: number;
  readonly memory: MemoryResult;
  readonly throughput?: ThroughputResult;
  /** With `--realtime`: pacing and latency of the real traffic that filled the window. */
  readonly realtime?: RealtimeResult;
  /** With `--preset blog`: the published figure and the difference. */
  readonly published?: { readonly kb: number; readonly bytes: number; readonly diff: number };
  /** The failure ratio's error against the exact window (by default; absent with `--no-accuracy`). */
  readonly accuracy?: AccuracyResult;
  /** The layout's server time per write and read, probed after the accuracy traffic (absent with `--no-accuracy`, or when INFO is refused). */
  readonly serverCost?: ServerCost;
  /**
   * Commands and network bytes per call of each operation, from INFO
   * commandstats/stats deltas over a few calls on one filled light (exact on
   * swc's own standalone server; absent elsewhere, see BenchReport.commandsSkipped).
   */
  readonly commands?: CellCommands;
  /** On Redis Cluster: the cell's lights, keys and MEMORY USAGE bytes on each primary, in slot order. */
  readonly shards?: readonly ShardTotals[];
  /** With `--instructions`: the server's instructions per call of each op, counted under callgrind (src/measure/instructions.ts). */
  readonly instructions?: InstructionsResult;
  /**
   * `bench --client`: keys the package wrote with no TTL, or a TTL past its window plus its stated
   * slack, with the server's maxmemory-policy (src/clients/ttl.ts); any one fails `swc compare`.
   */
  readonly ttlFindings?: readonly TtlFinding[];
}

/** One primary's share of a cell on Redis Cluster. */
export interface ShardTotals {
  /** `host:port`. */
  readonly node: string;
  readonly lights: number;
  readonly keys: number;
  /** MEMORY USAGE … SAMPLES 0 summed over the keys, read on this node. */
  readonly bytes: number;
}

/** A layout that cannot run on Redis Cluster: its scripts take keys in several hash slots. */
export interface ClusterFinding {
  readonly layout: string;
  /** The operations whose calls cross slots (`record_success`, `record_failure`, `get_metrics`). */
  readonly operations: readonly string[];
  /** The slots of one sample call's keys. */
  readonly slots: readonly number[];
  /** What Redis answered one real call (the CROSSSLOT error), or what swc predicted when the call was not made. */
  readonly error: string;
  /** The operation of that call. */
  readonly operation: string;
  /** `host:port` of the node the call went to. */
  readonly node: string;
  /** Cells of the plan left unmeasured. */
  readonly cells: number;
  /** The cluster-safe layout of the same design run in its place, if any. */
  readonly variant?: string;
}

/** The whole `swc bench --json` document. */
export interface BenchReport {
  readonly schemaVersion: typeof SCHEMA_VERSION;
  readonly swcVersion: string;
  readonly redis: {
    readonly version: string;
    readonly memAllocator: string;
    readonly mode: string;
    readonly private: boolean;
    /** The server the run wrote to, as the report's first line names it (a URL without credentials, or swc's private server). */
    readonly where?: string;
    /** The phases not measured there, each with why (the first line says them too). */
    readonly notMeasured?: readonly string[];
    readonly config: Record<string, number | null>;
    /** A server that is not Redis (e.g. `valkey`), and its own version; absent on Redis. */
    readonly server?: string;
    readonly serverVersion?: string;
  };
  readonly options: Record<string, unknown>;
  readonly results: readonly CellResult[];
  readonly startedAt: string;
  readonly elapsedSeconds: number;
  /** Wall seconds from the run's first write (after waiting for its turn) to its last figure. */
  readonly measuringSeconds?: number;
  /**
   * Seconds the run's own server (every primary of a cluster) spent running
   * scripts meanwhile (EVALSHA and EVAL usec from INFO commandstats, as a
   * delta; other clients' scripts count too on a shared server); null when
   * INFO is not readable. Accuracy phases run in line count here (with a
   * lane, those the run's own server took once its cells were filled); those
   * on the accuracy lane do not (see {@link accuracyServerScriptSeconds}).
   */
  readonly serverScriptSeconds?: number | null;
  /**
   * With the accuracy lane (a second private server the accuracy phases ran
   * on, beside the run's own), its script seconds over the run (the phases
   * the run's own server took count in {@link serverScriptSeconds}): they ran
   * at the same time as the run's own server's, so the two are not added;
   * null when INFO is not readable there. Absent without a lane. Script time
   * is wall time inside the scripts, so two servers busy at once on a small
   * machine both read higher, and how the phases split between them depends
   * on timing: with accuracy on, neither figure compares across runs (the
   * fill's own, with --no-accuracy, does: `npm run bench:fill`).
   */
  readonly accuracyServerScriptSeconds?: number | null;
  /** Why no cell has {@link CellResult.commands}: another client's commands on a shared server, or a cluster, would count as the layout's. */
  readonly commandsSkipped?: string;
  /** Keys that left listpack only because a value, field name or member is too long (see {@link EncodingHint}). */
  readonly encodingHints?: readonly EncodingHint[];
  /** On Redis Cluster: the primaries, how lights were spread over them, and the layouts that could not run. */
  readonly cluster?: {
    readonly shards: number;
    /** `host:port` of each primary, in slot order. */
    readonly nodes: readonly string[];
    readonly private: boolean;
    readonly lightSpread: string;
    readonly findings: readonly ClusterFinding[];
  };
  /** With `--instructions`: wall seconds the count took (start-up under valgrind, fills and counted calls), after the run's own. */
  readonly instructionsSeconds?: number;
  /** Labels for layouts whose name alone would mislead (e.g. a variant Stoplight never shipped), by layout name. */
  readonly layoutLabels?: Record<string, string>;
  /**
   * With `--scripts <Stoplight tree>`: the upstream 6.0 generation each layout
   * ran as, by layout name (`name`: `stoplight-v6 (hash-b, 4975eb6)`).
   */
  readonly generations?: Record<string, { readonly id: string; readonly commit: string | null; readonly name: string; readonly what: string }>;
  /** Set when a script error stopped the run after a memory phase: the results hold what was measured until then. */
  readonly incomplete?: IncompleteRun;
}

/** Where and why a run stopped before its last phase, keeping what it had measured (see BenchReport.incomplete). */
export interface IncompleteRun {
  /** The layout whose script failed. */
  readonly layout: string;
  /** The phase it failed in. */
  readonly phase: 'throughput' | 'commands-per-call' | 'accuracy';
  /** The error as the server (or the script runner) gave it. */
  readonly error: string;
  /**
   * The command the server rejected, as it received it: verify's traffic for
   * the layout replayed under MONITOR on the run's private server
   * (src/verify/rejected.ts). Absent on a server swc did not start.
   */
  readonly rejected?: string;
  /** With `rejected`: the error the run itself stopped on (`error` is then the replayed call's, the one `rejected` was sent by). */
  readonly stoppedWith?: string;
  /** Cells whose memory was measured before the stop, of those planned. */
  readonly cells?: { readonly measured: number; readonly planned: number };
  /** The known cause of that rejection (src/core/rejection.ts), e.g. `"-0" rejected`. */
  readonly cause?: NamedRejection;
}

/** Commands per call of a cell's three operations (src/measure/commandstats.ts). */
export interface CellCommands {
  readonly write: CommandsPerCall;
  readonly failure: CommandsPerCall;
  readonly read: CommandsPerCall;
}
