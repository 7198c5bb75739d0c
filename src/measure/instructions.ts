import type { Layout, Light } from '../layouts/types.js';
import type { ScriptCall } from '../lua/source.js';
import type { RespConnection } from '../redis/resp.js';
import { loadScripts } from '../redis/scripts.js';
import { EventClock } from '../traffic/event-clock.js';
import { createRng } from '../traffic/random.js';
import { COUNTED_FUNCTION, type CallgrindControl, type CallgrindDump } from './callgrind.js';
import { EnvironmentError } from '../core/errors.js';
import { runLoad } from './load.js';
import { defaultErrorJson, readWorkload, requestWorkload, writeWorkload, type ErrorJson, type WorkloadContext } from './workload.js';

import { INSTRUCTIONS_SPREAD } from '../core/thresholds.js';
export { INSTRUCTIONS_SPREAD };

/** The counted operations, as the throughput phase runs them. */
export type CountedOp = 'write' | 'read' | 'request';
export const COUNTED_OPS: readonly CountedOp[] = ['write', 'read', 'request'];

/** One function's share of an operation's instructions. */
export interface ProfileEntry {
  /** The server function (callgrind's name; `call'2` is a command run by redis.call inside the script). */
  readonly function: string;
  /** Its instructions with everything it called, over the op's count. */
  readonly inclusiveShare: number;
  /** The same per operation. */
  readonly inclusivePerCall: number;
  /** Instructions in the function alone, over the op's count. */
  readonly selfShare: number;
}

/** The instructions of one operation of one layout, over its repeats. */
export interface OpInstructions {
  /** The mean of the repeats (every counted call): instructions the server executed per operation (a request: its read and its write). */
  readonly instructionsPerCall: number;
  /** Each repeat's instructions per operation. */
  readonly repeats: readonly number[];
  readonly min: number;
  readonly max: number;
  /** (max − min) / the mean. */
  readonly spreadFraction: number;
  /** Whether the spread is above {@link INSTRUCTIONS_SPREAD}. */
  readonly noisy: boolean;
  /** Operations per repeat. */
  readonly calls: number;
  /** Script calls per operation (a request is 2). */
  readonly callsPerOp: number;
}

/** A layout's counts in one cell (`swc bench --instructions`). */
export interface InstructionsResult {
  /** What was counted, in words. */
  readonly counted: string;
  readonly write: OpInstructions;
  readonly read: OpInstructions;
  readonly request: OpInstructions;
  /** Lights the counted server held (filled with one window of the cell's traffic first). */
  readonly lights: number;
  /** For every layout of a cell but the first: its instructions per call over the first layout's (medians). */
  readonly ratio?: { readonly reference: string; readonly write: number; readonly read: number; readonly request: number };
  /** With `--profile`: the functions taking most of the write's and the read's instructions. */
  readonly profile?: { readonly write: readonly ProfileEntry[]; readonly read: readonly ProfileEntry[] };
}

/** One layout's share of a count: lights already filled on the counted server, and the traffic after the fill. */
export interface InstructionTarget {
  readonly layout: Layout;
  readonly lights: readonly Light[];
  readonly windowSeconds: number;
  readonly rate: number;
  /** Unix seconds at which the fill ended; the first counted event lands `1 / rate` later. */
  readonly startAt: number;
  readonly failureRate?: number;
  readonly seed?: number;
  readonly errorJson?: ErrorJson;
}

/** Options of {@link countInstructions}. */
export interface CountOptions {
  /** A connection to the counted server (the one under callgrind). */
  readonly connection: RespConnection;
  readonly control: CallgrindControl;
  readonly targets: readonly InstructionTarget[];
  /** Operations per repeat. */
  readonly calls: number;
  readonly repeats: number;
  /** Also keep the top functions of the write and the read. */
  readonly profile?: boolean;
  /** Functions per profile; default 10. */
  readonly profileTop?: number;
  /** Calls per pipelined batch; default 50 (it does not change the count, only the wall time). */
  readonly pipeline?: number;
  readonly signal?: AbortSignal;
  /** After each counted repeat. */
  readonly onRepeat?: (op: CountedOp, repeat: number, target: number) => void;
}

/** What the count covers, said in the result. */
export const COUNTED_TEXT =
  "instructions the server executed inside call() (each command's execution, redis.call commands included), under valgrind callgrind; not reading requests, writing replies to sockets, the event loop or serverCron";

/**
 * The frames every EVALSHA passes through on its way into the script: they
 * hold nearly the whole count of every layout, so they say nothing about
 * where one layout's cost goes (the count itself says how large it is).
 */
const SCRIPT_FRAME = new Set([
  'evalShaCommand',
  'evalGenericCommand',
  'luaCallFunction',
  'lua_pcall',
  'luaD_call',
  'luaD_rawrunprotected',
  'lua_call',
  'luaD_pcall',
]);

/**
 * glibc's inner frames of one snprintf: `__snprintf_chk` (all of it) and
 * `__printf_fp` (its floating-point part) are kept, the frames between them
 * would repeat the same share.
 */
const INNER_FRAME = new Set(['__vsnprintf_internal', '__vfprintf_internal', '__printf_fp_l']);

/** Functions summed over dumps. */
type Summed = Map<string, { self: number; inclusive: number }>;

function addDump(into: Summed, dump: CallgrindDump): void {
  for (const [name, cost] of dump.functions) {
    const had = into.get(name) ?? { self: 0, inclusive: 0 };
    into.set(name, { self: had.self + cost.self, inclusive: had.inclusive + cost.inclusive });
  }
}

/**
 * The functions with the largest inclusive share, below `call()` (which,
 * with everything above it, holds the whole count) and named (a stripped
 * binary names only its exported functions; static ones are addresses).
 */
export function topFunctions(summed: Summed, total: number, ops: number, top: number): ProfileEntry[] {
  if (!(total > 0)) return [];
  return [...summed.entries()]
    .filter(
      ([name, cost]) =>
        cost.inclusive < total * 0.999 && !/^0x[0-9a-f]+('\d+)?$/i.test(name) && !name.startsWith('(') && !SCRIPT_FRAME.has(name) && !INNER_FRAME.has(name),
    )
    .sort((a, b) => b[1].inclusive - a[1].inclusive)
    .slice(0, top)
    .map(([name, cost]) => ({
      function: name,
      inclusiveShare: cost.inclusive / total,
      inclusivePerCall: cost.inclusive / ops,
      selfShare: cost.self / total,
    }));
}

/**
 * The figure is the mean over every repeat's calls (all of them counted,
 * nothing dropped): a repeat's own count moves with its share of failures
 * (a seeded draw per event, so a run repeats it exactly), and the mean
 * over all the calls moves least from one run to the next.
 */
function opFigures(perOp: readonly number[], calls: number, callsPerOp: number): OpInstructions {
  const mid = perOp.reduce((sum, x) => sum + x, 0) / perOp.length;
  const min = Math.min(...perOp);
  const max = Math.max(...perOp);
  const spread = mid > 0 ? (max - min) / mid : 0;
  return { instructionsPerCall: mid, repeats: perOp, min, max, spreadFraction: spread, noisy: spread > INSTRUCTIONS_SPREAD, calls, callsPerOp };
}

/**
 * Callgrind counted nothing over calls the server answered (exit 3): the
 * process valgrind runs is not the redis-server that answered, as when
 * `--redis-server` names a wrapper that starts the server as a child.
 */
export class UncountedServerError extends EnvironmentError {
  constructor(calls: number) {
    super(
      `--instructions: callgrind counted 0 instructions in redis-server's ${COUNTED_FUNCTION}() over ${calls} calls the server answered: the process valgrind runs is not that server (a wrapper that starts it?); give --redis-server (or SWC_REDIS_SERVER) the redis-server binary itself`,
    );
  }
}

/**
 * Counts the server's instructions per operation for each target, on a
 * server running under callgrind whose targets' lights hold their fill:
 * the same three phases as the throughput phase (write, read, request,
 * with the same workloads and injected clock, continuing from the fill),
 * each `repeats` times `calls` operations, the targets alternating within
 * each repeat (A B A B …). The counters are zeroed before and dumped after
 * each target's share of a repeat; instrumentation is on only meanwhile.
 */
export async function countInstructions(options: CountOptions): Promise<InstructionsResult[]> {
  const { connection, control, targets, calls, repeats } = options;
  const top = options.profileTop ?? 10;
  const contexts: WorkloadContext[] = targets.map((t) => ({
    layout: t.layout,
    clock: new EventClock(t.lights, t.rate, t.startAt),
    windowSeconds: t.windowSeconds,
    failureRate: t.failureRate ?? 0,
    errorJson: t.errorJson ?? defaultErrorJson,
    rng: createRng(t.seed ?? 1),
  }));
  await loadScripts(connection.channel, [...new Set(targets.flatMap((t) => t.layout.scripts))]);
  const perOp = new Map<CountedOp, number[][]>(COUNTED_OPS.map((op) => [op, targets.map(() => [])]));
  const profiles = new Map<CountedOp, { summed: Summed; total: number }[]>(COUNTED_OPS.map((op) => [op, targets.map(() => ({ summed: new Map(), total: 0 }))]));
  const workloads: Record<CountedOp, { make: (c: WorkloadContext) => () => ScriptCall; callsPerOp: number }> = {
    write: { make: writeWorkload, callsPerOp: 1 },
    read: { make: readWorkload, callsPerOp: 1 },
    request: { make: requestWorkload, callsPerOp: 2 },
  };
  await control.instrument(true);
  try {
    for (const op of COUNTED_OPS) {
      const { make, callsPerOp } = workloads[op];
      const next = contexts.map((c) => make(c));
      // A dump starts the next part from zero: one zero per phase, then a dump after each share.
      await control.zero();
      for (let repeat = 0; repeat < repeats; repeat += 1) {
        for (const [i, nextCall] of next.entries()) {
          await runLoad({
            connections: [connection],
            pipeline: Math.max(1, Math.min(options.pipeline ?? 50, calls)),
            stop: { ops: calls },
            callsPerOp,
            nextCall,
            ...(options.signal ? { signal: options.signal } : {}),
          });
          const dump = await control.dump();
          // Every call enters the server's call(): a count of 0 means the process under valgrind is not the server that answered.
          if (!(dump.total > 0)) throw new UncountedServerError(calls);
          (perOp.get(op) as number[][])[i]?.push(dump.total / calls);
          if (options.profile && op !== 'request') {
            const p = (profiles.get(op) as { summed: Summed; total: number }[])[i] as { summed: Summed; total: number };
            addDump(p.summed, dump);
            p.total += dump.total;
          }
          options.onRepeat?.(op, repeat, i);
        }
      }
    }
  } finally {
    await control.instrument(false).catch(() => undefined);
  }
  const figures = targets.map((_, i) => {
    const of = (op: CountedOp): OpInstructions => opFigures((perOp.get(op) as number[][])[i] as number[], calls, workloads[op].callsPerOp);
    return { write: of('write'), read: of('read'), request: of('request') };
  });
  const first = figures[0];
  return figures.map((f, i): InstructionsResult => {
    const profileOf = (op: CountedOp): ProfileEntry[] => {
      const p = (profiles.get(op) as { summed: Summed; total: number }[])[i] as { summed: Summed; total: number };
      return topFunctions(p.summed, p.total, calls * repeats, top);
    };
    return {
      counted: COUNTED_TEXT,
      ...f,
      lights: (targets[i] as InstructionTarget).lights.length,
      ...(i > 0 && first
        ? {
            ratio: {
              reference: (targets[0] as InstructionTarget).layout.name,
              write: f.write.instructionsPerCall / first.write.instructionsPerCall,
              read: f.read.instructionsPerCall / first.read.instructionsPerCall,
              request: f.request.instructionsPerCall / first.request.instructionsPerCall,
            },
          }
        : {}),
      ...(options.profile ? { profile: { write: profileOf('write'), read: profileOf('read') } } : {}),
    };
  });
}
