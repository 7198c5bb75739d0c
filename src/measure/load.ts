import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { RedisUnavailableError, ScriptError, SwcError, UsageError, InterruptedError } from '../core/errors.js';
import { classifyRedisError } from '../redis/errors.js';
import { RequestWriter, RespConnection, type BatchErrors } from '../redis/resp.js';
import { flushedFrom, isNoScript, rerunFlushedTail } from '../redis/scripts.js';
import { callLimitsOf } from '../redis/call-limits.js';
import { type ScriptCall } from '../lua/source.js';

/** When a load run ends: after exactly `ops` operations, or after `seconds` of wall time. */
export type LoadStop = { readonly ops: number } | { readonly seconds: number };

/** Where a load run is, reported while it runs. */
export interface LoadProgress {
  /** Operations completed so far. */
  readonly done: number;
  /** The operations asked for, or null when the run is timed. */
  readonly total: number | null;
  readonly elapsedSeconds: number;
  /** 0..1, by operations or by time, whichever the stop condition counts. */
  readonly fraction: number;
}

/** One group of load connections and the calls they carry (one per cluster shard: every call of a group goes to its node). */
export interface LoadGroup {
  readonly connections: readonly (Redis | RespConnection)[];
  readonly nextCall: () => ScriptCall;
  /** `host:port` of the group's node, named in errors (a cluster run has several nodes). */
  readonly node?: string;
}

/** Options of {@link runLoad}. */
export interface LoadOptions {
  /**
   * One closed loop per connection; the scripts should already be loaded
   * (installScripts) on their server. The load goes over lean RESP
   * connections: one given here is used as it is (and stays open); for an
   * ioredis connection the run opens one next to it (same server,
   * credentials and database) and closes it at the end. They also carry the
   * script reloads after a SCRIPT FLUSH, through the script runner.
   */
  readonly connections: readonly (Redis | RespConnection)[];
  /** Operations per pipelined batch (at least 1). */
  readonly pipeline: number;
  /**
   * Batches in flight per connection (default 1: a closed loop, each batch
   * sent once the one before answered). A writer that only needs the server
   * never to wait for it (the memory fill) sends the next batch before the
   * last one answered; latency then includes the wait behind the batch
   * ahead. Single-call operations only.
   */
  readonly depth?: number;
  readonly stop: LoadStop;
  /**
   * Produces the next call. Called `callsPerOp` times in a row for each
   * operation, in the order the calls go to Redis; returning the same object
   * every time is fine (and cheapest).
   */
  readonly nextCall: () => ScriptCall;
  /**
   * Calls that make one operation, made one after another: call k + 1 is sent
   * once call k has answered, as Stoplight reads before it writes (a request
   * is 2). With pipelining, the k-th calls of a batch's operations go
   * together. Latency is the whole sequence. Default 1.
   */
  readonly callsPerOp?: number;
  /**
   * With `depth` above 1: read replies only every this many ms (default 0:
   * as they arrive). Each reply the server writes wakes a reader, and on a
   * busy machine a woken reader can take the CPU from the server between
   * two scripts; reading at intervals, with enough batches queued to cover
   * one, wakes it a few times per batch instead of every few calls. Replies
   * are still all read: the last batches, with nothing left to send, are
   * read as they arrive.
   */
  readonly readIntervalMs?: number;
  /** Called at most every `progressIntervalMs` and once at the end. */
  readonly onProgress?: (progress: LoadProgress) => void;
  /** Aborting stops every connection before its next batch; the run rejects with an InterruptedError. */
  readonly signal?: AbortSignal;
  /** A load cap: batches wait so that the run sends at most this many operations per second, over every connection. */
  readonly maxOpsPerSecond?: number;
  /**
   * Under a cap, the clock the cap counts from when this run is one of
   * several in a row (the fill runs one per light): calls already sent since
   * `startedMs`. Without it each run's first batch went at once, so a fill of
   * many small lights was not capped at all. The caller adds the run's calls
   * to `sent` after it.
   */
  readonly pace?: Pace;
  /** Default 250 ms. */
  readonly progressIntervalMs?: number;
  /** Whether an error reply says how many operations the run had done (default true); off for a caller that says where itself. */
  readonly placeInErrors?: boolean;
  /** Also report these latency percentiles (0 < p < 100), as `percentilesMs` keyed by `String(p)`. */
  readonly percentiles?: readonly number[];
  /** A batch without a reply for this long means a hung server (RedisUnavailableError); default 10 000 ms. */
  readonly replyTimeoutMs?: number;
}

/** Throughput and round-trip latency of a load run (client side only). */
export interface LoadResult {
  readonly ops: number;
  /** Script calls sent (`ops × callsPerOp`). */
  readonly calls: number;
  /** Wall time from the first batch sent to the last reply. */
  readonly seconds: number;
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly meanMs: number;
  /** The percentiles asked for ({@link LoadOptions.percentiles}), keyed by `String(p)`: `{ "90": 0.31 }`. */
  readonly percentilesMs?: Readonly<Record<string, number>>;
}

const NS_PER_MS = 1e6;

function checkOptions(options: LoadOptions): void {
  const { connections, pipeline, stop } = options;
  const callsPerOp = options.callsPerOp ?? 1;
  if (connections.length === 0) throw new UsageError('load: at least one connection is needed');
  if (!Number.isInteger(pipeline) || pipeline < 1) throw new UsageError(`load: pipeline must be a whole number >= 1, got ${pipeline}`);
  if (!Number.isInteger(callsPerOp) || callsPerOp < 1) throw new UsageError(`load: callsPerOp must be a whole number >= 1, got ${callsPerOp}`);
  const depth = options.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 1) throw new UsageError(`load: depth must be a whole number >= 1, got ${depth}`);
  if (depth > 1 && callsPerOp > 1) throw new UsageError('load: depth above 1 needs single-call operations (a write waits for its read)');
  if ('ops' in stop && (!Number.isInteger(stop.ops) || stop.ops < 1)) {
    throw new UsageError(`load: ops must be a whole number >= 1, got ${stop.ops}`);
  }
  if ('seconds' in stop && !(stop.seconds > 0)) throw new UsageError(`load: seconds must be > 0, got ${stop.seconds}`);
}

/**
 * An error reply is a fact about the workload, so it ends the run instead of
 * being counted. BUSY is not waited out here: figures taken while another
 * script blocks the server would be wrong.
 */
function callFailure(message: string, call: ScriptCall, connection: RespConnection, done: number | null, node?: string): unknown {
  const server = callLimitsOf(connection.channel.server)?.shownServer;
  const err = classifyRedisError(message, {
    script: call.script,
    command: 'EVALSHA',
    keys: call.keys,
    user: connection.channel.user,
    ...(done !== null ? { where: `after ${done} operations of the load` } : {}),
    ...(server !== undefined ? { server } : {}),
  });
  return node !== undefined && err instanceof SwcError ? err.at(`on node ${node}`) : err;
}

/**
 * When the server stopped answering: the scripts of the batch it was running
 * (a script that loops keeps the server from answering anyone), so the line
 * names what to look at, not only the address.
 */
function awaitedScripts(err: unknown, calls: readonly ScriptCall[]): string {
  if (calls.length === 0 || !/no reply within/.test(err instanceof Error ? err.message : String(err))) return '';
  const files = [...new Set(calls.map((c) => c.script.file))];
  const shown = files.slice(0, 3).join(', ') + (files.length > 3 ? ` and ${files.length - 3} more` : '');
  return ` to ${shown} (does the script end? one that loops holds the server)`;
}

/** The load connections: the given ones, and one opened per ioredis connection (all or none); `opened` are the run's to close. */
async function openLoadConnections(
  connections: readonly (Redis | RespConnection)[],
  replyTimeoutMs: number,
): Promise<{ all: RespConnection[]; opened: RespConnection[] }> {
  const all: RespConnection[] = [];
  const opened: RespConnection[] = [];
  try {
    for (const target of connections) {
      if (target instanceof RespConnection) {
        all.push(target);
        continue;
      }
      const connection = await RespConnection.open(target.options, { replyTimeoutMs });
      opened.push(connection);
      all.push(connection);
    }
  } catch (err) {
    for (const connection of opened) connection.close();
    throw err;
  }
  return { all, opened };
}

/**
 * Waits until `batch` is answered, reading replies only every `intervalMs`:
 * reading stops, the wait passes, reading restarts for one turn of the event
 * loop (which reads whatever the socket holds), and so on.
 */
async function quietly(connection: RespConnection, batch: { readonly answered: boolean }, intervalMs: number): Promise<void> {
  try {
    while (!batch.answered) {
      connection.reading(false);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      connection.reading(true);
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    connection.reading(true);
  }
}

/**
 * Calls per batch under a load cap: a tenth of a second's worth (at least
 * one, at most `batch`), so the server never gets a long burst; `batch`
 * itself without a cap.
 */
export function cappedBatch(batch: number, maxOpsPerSecond: number | undefined): number {
  return maxOpsPerSecond === undefined ? batch : Math.max(1, Math.min(batch, Math.floor(maxOpsPerSecond / 10)));
}

/** A load cap's clock shared by several runs in a row: when it started (performance.now()) and the calls sent since. */
export interface Pace {
  readonly startedMs: number;
  sent: number;
}

/** Under a load cap, waits until the `sentBefore` calls sent since `startedMs` (performance.now()) have had their share of time. */
export async function awaitShare(startedMs: number, sentBefore: number, maxOpsPerSecond: number): Promise<void> {
  const dueMs = startedMs + (sentBefore / maxOpsPerSecond) * 1000 - performance.now();
  if (dueMs > 0) await new Promise((resolve) => setTimeout(resolve, dueMs));
}

/**
 * Runs a closed-loop load: each connection repeatedly builds a batch of
 * `pipeline` operations, sends it as one pipeline and waits for every reply
 * before the next batch, so the number of operations in flight is
 * `connections × pipeline`. Each operation of a batch is recorded with the
 * batch's round-trip time, which is the latency a caller pipelining that
 * deep would see.
 *
 * The first error reply stops every connection (after its in-flight batch)
 * and the run throws it typed by the script runner's classifier (a
 * ScriptError, a ServerStateError such as BUSY or OOM), or a
 * RedisUnavailableError when a connection was lost: failed calls are never
 * counted as throughput. A SCRIPT FLUSH is not an error: the flushed tail of
 * a batch is re-run in order (see execPipeline).
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  return runLoadGroups([{ connections: options.connections, nextCall: options.nextCall }], options);
}

/**
 * {@link runLoad} over several groups of connections at once, each with its
 * own calls (a cluster: one group per shard, each call on the node that owns
 * its keys). The stop condition, the latency histogram and the figures are
 * the run's, over every group: ops/s is all operations over the wall time.
 */
export async function runLoadGroups(
  groups: readonly LoadGroup[],
  options: Omit<LoadOptions, 'connections' | 'nextCall'> & Partial<Pick<LoadOptions, 'connections' | 'nextCall'>>,
): Promise<LoadResult> {
  if (groups.length === 0) throw new UsageError('load: at least one group of connections is needed');
  for (const group of groups) checkOptions({ ...options, connections: group.connections, nextCall: group.nextCall });
  const { pipeline, stop, onProgress } = options;
  const callsPerOp = options.callsPerOp ?? 1;
  const depth = options.depth ?? 1;
  const readIntervalMs = depth > 1 ? (options.readIntervalMs ?? 0) : 0;
  const progressIntervalMs = options.progressIntervalMs ?? 250;
  const opsLimit = 'ops' in stop ? stop.ops : Infinity;
  const deadlineMs = 'seconds' in stop ? stop.seconds * 1000 : Infinity;
  const histogram: RecordableHistogram = createHistogram();
  // Opened before the clock starts: connecting is not load.
  const loadConnections: { connection: RespConnection; group: LoadGroup }[] = [];
  const opened: RespConnection[] = [];
  try {
    for (const group of groups) {
      const mine = await openLoadConnections(group.connections, options.replyTimeoutMs ?? 10_000);
      opened.push(...mine.opened);
      for (const connection of mine.all) loadConnections.push({ connection, group });
    }
  } catch (err) {
    for (const connection of opened) connection.close();
    throw err;
  }

  let claimed = 0;
  let done = 0;
  let failure: unknown;
  const started = performance.now();
  let lastProgressMs = started;

  const report = (now: number): void => {
    if (!onProgress) return;
    lastProgressMs = now;
    const elapsedMs = now - started;
    const total = opsLimit === Infinity ? null : opsLimit;
    const fraction = total === null ? Math.min(1, elapsedMs / deadlineMs) : done / total;
    onProgress({ done, total, elapsedSeconds: elapsedMs / 1000, fraction });
  };

  const worker = async (connection: RespConnection, { nextCall, node }: LoadGroup): Promise<void> => {
    const onNode = node !== undefined ? ` on node ${node}` : '';
    // Scripts swc did not write, on a server swc did not start (redis/call-limits.ts): one call at a
    // time on this connection, none queued behind it, each checked (time, memory) once it answered.
    const limits = callLimitsOf(connection.channel.server);
    const checked = async (calls: readonly ScriptCall[], sentAt: number): Promise<void> => {
      if (limits && errorCall === undefined && calls[0]) await limits.afterCall(sentAt, calls[0].script.file);
    };
    /**
     * `depth + 1` batches, each with one call array per step and one
     * request buffer: while `depth` are in flight, the next single-step
     * batch is built and encoded, so the client's work overlaps the server's
     * instead of following it (a buffer being sent must not change until its
     * replies are in). Multi-step operations build each step when the
     * previous one answered, since a write follows its read.
     */
    const slots = Array.from({ length: depth + 1 }, () => ({
      steps: Array.from({ length: callsPerOp }, () => [] as ScriptCall[]),
      writer: new RequestWriter(connection.channel.server),
      ops: 0,
    }));
    type Slot = (typeof slots)[number];
    const prebuild = callsPerOp === 1;
    /** The first error reply of a batch (not NOSCRIPT): its call and message. */
    let errorCall: ScriptCall | undefined;
    let errorMessage = '';
    const noteErrors = (calls: readonly ScriptCall[], errors: readonly (string | null)[], from: number, until: number): void => {
      for (let i = from; i < until && errorCall === undefined; i += 1) {
        const message = errors[i - from];
        if (message != null) {
          errorCall = calls[i];
          errorMessage = message;
        }
      }
    };
    /**
     * Settles a step's replies: after a SCRIPT FLUSH (the rare path) the
     * runner reloads and re-runs the flushed tail, in order, then every
     * batch sent behind it (`behind`), which must not have run at all: one
     * that ran, even in part, went before the tail it followed. BUSY is not
     * waited out: figures taken while the server is blocked would be wrong.
     */
    const settle = async (calls: readonly ScriptCall[], errors: readonly (string | null)[], behind: readonly InFlight[]): Promise<void> => {
      const missing = flushedFrom(errors.length, (i) => isNoScript(errors[i]));
      noteErrors(calls, errors, 0, missing);
      if (missing === calls.length) return;
      const later: { calls: ScriptCall[]; errors: BatchErrors }[] = [];
      for (const next of behind) later.push({ calls: next.calls, errors: await next.replies });
      for (const next of later) {
        if (next.errors === null || flushedFrom(next.errors.length, (i) => isNoScript(next.errors?.[i])) !== 0) {
          throw new ScriptError(
            `a batch sent behind one whose scripts were flushed ran before that one's tail was re-run (another connection reloaded the scripts); ` +
              're-running would reorder calls, so swc stops',
          );
        }
      }
      const tails = [{ calls, from: missing, reason: errors[missing] }, ...later.map((n) => ({ calls: n.calls, from: 0, reason: n.errors?.[0] }))];
      for (const tail of tails) {
        const replies = await rerunFlushedTail(connection.channel, tail.calls, tail.from, tail.reason, { busyWaitMs: 0 });
        noteErrors(
          tail.calls,
          replies.map((reply) => (reply instanceof Error ? reply.message : null)),
          tail.from,
          tail.calls.length,
        );
        if (errorCall !== undefined) return;
      }
      // The batches behind have run now: they settle as answered in full.
      for (const next of behind) next.replies = Promise.resolve(null);
    };
    const encode = (writer: RequestWriter, calls: readonly ScriptCall[]): void => {
      writer.reset();
      for (const call of calls) writer.add(call);
    };
    /** Claims and builds the next batch into `slot`; false when the run has no operation left. */
    const build = (slot: Slot): boolean => {
      const ops = Math.min(limits ? 1 : pipeline, opsLimit - claimed);
      if (ops <= 0) return false;
      claimed += ops;
      slot.ops = ops;
      for (const step of slot.steps) step.length = ops;
      for (let i = 0; i < ops; i += 1) {
        for (let j = 0; j < callsPerOp; j += 1) (slot.steps[j] as ScriptCall[])[i] = nextCall();
      }
      encode(slot.writer, slot.steps[0] as ScriptCall[]);
      return true;
    };
    interface InFlight {
      readonly slot: Slot;
      readonly calls: ScriptCall[];
      readonly sentAt: number;
      replies: Promise<BatchErrors>;
      /** Set once `replies` settled. */
      answered: boolean;
    }
    /** Batches sent and not yet settled, oldest first. */
    const inFlight: InFlight[] = [];
    const free: Slot[] = [...slots];
    /** A batch built ahead, not yet sent. */
    let ready: Slot | undefined;
    // The last reply's time stands in for "now" at the top of the loop: one clock read less per batch.
    let now = started;
    /** Set when time is up, the run aborted or failed, or no operation is left: nothing more is sent. */
    let ending = false;
    /** The calls of the batch whose replies are awaited: named when the server stops answering (a script that runs on). */
    let awaited: readonly ScriptCall[] = [];
    try {
      for (;;) {
        while (!ending && inFlight.length < (limits ? 1 : depth)) {
          if (options.signal?.aborted) {
            failure ??= new InterruptedError();
            ending = true;
          } else if (failure !== undefined || now - started >= deadlineMs) {
            // A batch built ahead and not sent when time is up is dropped: its calls never reach Redis.
            ending = true;
          } else {
            let slot = ready;
            ready = undefined;
            if (slot === undefined) {
              slot = free.pop() as Slot;
              if (!build(slot)) {
                free.push(slot);
                ending = true;
                break;
              }
            }
            // A load cap: this batch's operations are due once the run's earlier ones had their share of time.
            // Guarded here: without a cap the hot loop takes no extra await.
            if (options.maxOpsPerSecond !== undefined && !connection.cap)
              await awaitShare(options.pace?.startedMs ?? started, (options.pace?.sent ?? 0) + claimed - slot.ops, options.maxOpsPerSecond);
            const calls = slot.steps[0] as ScriptCall[];
            // --max-ops: the batch leaves once its commands (each script's, counted) fit under the run's cap.
            if (connection.cap) await connection.cap.take(connection.cap.callsWeight(calls));
            // Building and encoding the first step is the caller's cost, not the round trip's.
            const sentAt = performance.now();
            const entry: InFlight = { slot, calls, sentAt, replies: connection.send(slot.writer.bytes(), calls.length), answered: false };
            if (readIntervalMs > 0)
              entry.replies.then(
                () => (entry.answered = true),
                () => (entry.answered = true),
              );
            inFlight.push(entry);
          }
        }
        if (prebuild && !ending && ready === undefined && failure === undefined) {
          const slot = free.pop() as Slot;
          if (build(slot)) ready = slot;
          else free.push(slot);
        }
        const head = inFlight.shift();
        if (head === undefined) return;
        awaited = head.calls;
        if (readIntervalMs > 0 && !ending && !limits) await quietly(connection, head, readIntervalMs);
        errorCall = undefined;
        // No error reply (the usual case): no further promise to wait on.
        const errors = await head.replies;
        if (errors !== null) await settle(head.calls, errors, inFlight);
        await checked(head.calls, head.sentAt);
        // Each further step waits for the one before, as a client waits for the read before it writes.
        for (let j = 1; j < callsPerOp && errorCall === undefined; j += 1) {
          const calls = head.slot.steps[j] as ScriptCall[];
          encode(head.slot.writer, calls);
          awaited = calls;
          if (connection.cap) await connection.cap.take(connection.cap.callsWeight(calls));
          const stepSentAt = performance.now();
          const stepErrors = await connection.send(head.slot.writer.bytes(), calls.length);
          if (stepErrors !== null) await settle(calls, stepErrors, []);
          await checked(calls, stepSentAt);
        }
        const receivedAt = performance.now();
        now = receivedAt;
        if (errorCall !== undefined) {
          failure ??= callFailure(errorMessage, errorCall, connection, options.placeInErrors === false ? null : done, node);
          return;
        }
        // HDR histograms take integers >= 1; nanoseconds keep sub-microsecond detail.
        const latencyNs = Math.max(1, Math.round((receivedAt - head.sentAt) * NS_PER_MS));
        const ops = head.slot.ops;
        for (let i = 0; i < ops; i += 1) histogram.record(latencyNs);
        done += ops;
        free.push(head.slot);
        if (onProgress && receivedAt - lastProgressMs >= progressIntervalMs) report(receivedAt);
      }
    } catch (err) {
      // A lost connection says how far the run got; a ScriptError from a re-run tail says enough.
      failure ??=
        err instanceof SwcError && !(err instanceof RedisUnavailableError)
          ? err
          : new RedisUnavailableError(
              `load stopped after ${done} operations${onNode}: ${err instanceof Error ? err.message : String(err)}${awaitedScripts(err, awaited)}`,
              {
                cause: err,
              },
            );
    } finally {
      // Batches still in flight when this connection stops (another one failed, or this one did): their replies are not waited for.
      for (const left of inFlight) left.replies.catch(() => undefined);
    }
  };

  const settled = await Promise.allSettled(loadConnections.map(({ connection, group }) => worker(connection, group)));
  const ended = performance.now();
  for (const connection of opened) connection.close();
  // A given connection that saw a failure may hold a batch's late replies: close it too, so nobody reuses it.
  if (failure !== undefined) for (const { connection } of loadConnections) connection.close();
  if (failure !== undefined) throw failure;
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  report(ended);

  const seconds = (ended - started) / 1000;
  const ms = (ns: number): number => (done === 0 ? 0 : ns / NS_PER_MS);
  return {
    ops: done,
    calls: done * callsPerOp,
    seconds,
    opsPerSec: seconds > 0 ? done / seconds : 0,
    p50Ms: ms(histogram.percentile(50)),
    p99Ms: ms(histogram.percentile(99)),
    p999Ms: ms(histogram.percentile(99.9)),
    meanMs: ms(histogram.mean),
    ...(options.percentiles && options.percentiles.length > 0
      ? { percentilesMs: Object.fromEntries(options.percentiles.map((p) => [String(p), ms(histogram.percentile(p))])) }
      : {}),
  };
}
