import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { RedisUnavailableError, SwcError, UsageError, InterruptedError } from '../errors.js';
import { classifyRedisError } from '../redis/errors.js';
import { RequestWriter, RespConnection } from '../redis/resp.js';
import { flushedFrom, isNoScript, rerunFlushedTail } from '../redis/scripts.js';
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
  /** Called at most every `progressIntervalMs` and once at the end. */
  readonly onProgress?: (progress: LoadProgress) => void;
  /** Aborting stops every connection before its next batch; the run rejects with an InterruptedError. */
  readonly signal?: AbortSignal;
  /** Default 250 ms. */
  readonly progressIntervalMs?: number;
  /** Whether an error reply says how many operations the run had done (default true); off for a caller that says where itself. */
  readonly placeInErrors?: boolean;
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
}

const NS_PER_MS = 1e6;

function checkOptions(options: LoadOptions): void {
  const { connections, pipeline, stop } = options;
  const callsPerOp = options.callsPerOp ?? 1;
  if (connections.length === 0) throw new UsageError('load: at least one connection is needed');
  if (!Number.isInteger(pipeline) || pipeline < 1) throw new UsageError(`load: pipeline must be a whole number >= 1, got ${pipeline}`);
  if (!Number.isInteger(callsPerOp) || callsPerOp < 1) throw new UsageError(`load: callsPerOp must be a whole number >= 1, got ${callsPerOp}`);
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
  const err = classifyRedisError(message, {
    script: call.script,
    command: 'EVALSHA',
    keys: call.keys,
    user: connection.channel.user,
    ...(done !== null ? { where: `after ${done} operations of the load` } : {}),
  });
  return node !== undefined && err instanceof SwcError ? err.at(`on node ${node}`) : err;
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
export async function runLoadGroups(groups: readonly LoadGroup[], options: Omit<LoadOptions, 'connections' | 'nextCall'> & Partial<Pick<LoadOptions, 'connections' | 'nextCall'>>): Promise<LoadResult> {
  if (groups.length === 0) throw new UsageError('load: at least one group of connections is needed');
  for (const group of groups) checkOptions({ ...options, connections: group.connections, nextCall: group.nextCall });
  const { pipeline, stop, onProgress } = options;
  const callsPerOp = options.callsPerOp ?? 1;
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
    /**
     * Two batches, each with one call array per step and one request
     * buffer: while one is in flight, the next single-step batch is built
     * and encoded, so the client's work overlaps the server's instead of
     * following it (a buffer being sent must not change until its replies
     * are in). Multi-step operations build each step when the previous one
     * answered, since a write follows its read.
     */
    const slots = [0, 1].map(() => ({
      steps: Array.from({ length: callsPerOp }, () => [] as ScriptCall[]),
      writer: new RequestWriter(),
      ops: 0,
    }));
    const prebuild = callsPerOp === 1;
    /** The step being sent, to name the call of an error reply. */
    let batch: ScriptCall[] = [];
    /** The first error reply of the current batch (not NOSCRIPT): its call's index and message. */
    let errorIndex = -1;
    let errorMessage = '';
    const noteErrors = (errors: readonly (string | null)[], from: number, until: number): void => {
      for (let i = from; i < until && errorIndex === -1; i += 1) {
        const message = errors[i - from];
        if (message != null) {
          errorIndex = i;
          errorMessage = message;
        }
      }
    };
    /** Sends one step (already encoded in `writer`) and waits for all its replies. */
    const sendStep = async (calls: ScriptCall[], writer: RequestWriter, meanwhile?: () => void): Promise<void> => {
      batch = calls;
      const sent = connection.send(writer.bytes(), calls.length);
      meanwhile?.();
      const errors = await sent;
      if (errors === null) return;
      const missing = flushedFrom(errors.length, (i) => isNoScript(errors[i]));
      noteErrors(errors, 0, missing);
      if (missing === calls.length) return;
      // After a SCRIPT FLUSH (the rare path): the runner reloads and re-runs the tail, in order.
      // It does not wait out BUSY: figures taken while the server is blocked would be wrong.
      const replies = await rerunFlushedTail(connection.channel, calls, missing, errors[missing], { busyWaitMs: 0 });
      noteErrors(
        replies.map((reply) => (reply instanceof Error ? reply.message : null)),
        missing,
        calls.length,
      );
    };
    const encode = (writer: RequestWriter, calls: readonly ScriptCall[]): void => {
      writer.reset();
      for (const call of calls) writer.add(call);
    };
    /** Claims and builds the next batch into `slot`; false when the run has no operation left. */
    const build = (slot: (typeof slots)[number]): boolean => {
      const ops = Math.min(pipeline, opsLimit - claimed);
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
    let current = 0;
    let ready = false;
    // The last reply's time stands in for "now" at the top of the loop: one clock read less per batch.
    let now = started;
    while (failure === undefined) {
      if (options.signal?.aborted) {
        failure ??= new InterruptedError();
        return;
      }
      // A batch built ahead and not sent when time is up is dropped: its calls never reach Redis.
      if (now - started >= deadlineMs) return;
      const slot = slots[current] as (typeof slots)[number];
      if (!ready && !build(slot)) return;
      ready = false;
      const ops = slot.ops;
      const next = slots[1 - current] as (typeof slots)[number];
      // Building and encoding the first step is the caller's cost, not the round trip's.
      const sentAt = performance.now();
      errorIndex = -1;
      try {
        // Each step waits for the one before, as a client waits for the read before it writes.
        for (let j = 0; j < callsPerOp && errorIndex === -1; j += 1) {
          if (j > 0) encode(slot.writer, slot.steps[j] as ScriptCall[]);
          await sendStep(slot.steps[j] as ScriptCall[], slot.writer, prebuild && failure === undefined ? () => (ready = build(next)) : undefined);
        }
      } catch (err) {
        // A lost connection says how far the run got; a ScriptError from a re-run tail says enough.
        failure ??=
          err instanceof SwcError && !(err instanceof RedisUnavailableError)
            ? err
            : new RedisUnavailableError(`load stopped after ${done} operations${onNode}: ${err instanceof Error ? err.message : String(err)}`, {
                cause: err,
              });
        return;
      }
      const receivedAt = performance.now();
      now = receivedAt;
      if (errorIndex !== -1) {
        failure ??= callFailure(errorMessage, batch[errorIndex] as ScriptCall, connection, options.placeInErrors === false ? null : done, node);
        return;
      }
      // HDR histograms take integers >= 1; nanoseconds keep sub-microsecond detail.
      const latencyNs = Math.max(1, Math.round((receivedAt - sentAt) * NS_PER_MS));
      for (let i = 0; i < ops; i += 1) histogram.record(latencyNs);
      done += ops;
      if (onProgress && receivedAt - lastProgressMs >= progressIntervalMs) report(receivedAt);
      if (prebuild) current = 1 - current;
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
  };
}
