import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { EnvironmentError, ServerStartError, UsageError } from '../core/errors.js';
import { namespacedLayout } from '../layouts/index.js';
import type { Light } from '../layouts/types.js';
import { CallgrindControl, callgrindWrapper, findValgrind, type ValgrindTools } from '../measure/callgrind.js';
import { countInstructions, type CountedOp, type InstructionsResult } from '../measure/instructions.js';
import type { BenchReport, CellResult } from '../measure/types.js';
import type { PrivateServer } from '../redis/server.js';
import type { Target } from '../redis/target.js';
import { RespConnection } from '../redis/resp.js';
import { BENCH_EPOCH, errorJsonFor, lightSeed } from '../traffic/events.js';
import { cellsOf, type BenchPlan, type Cell } from './plan.js';
import { fill } from './run.js';

// Kept apart so the command's definition reads them without loading the counting code.
export { DEFAULT_INSTRUCTION_CALLS, DEFAULT_INSTRUCTION_REPEATS } from './instruction-defaults.js';
/**
 * Lights on the counted server. A light's count per call does not depend on
 * how many lights there are (each has keys of its own), and the fill under
 * valgrind is the slow part: one light, filled with light 0's traffic.
 */
const COUNTED_LIGHTS = 1;
/** The counted server's keys take a fixed namespace of a real run's length: the counts must not depend on a random id. */
const COUNTED_PREFIX = 'swc-bench:00000000';
/** Start-up under valgrind takes seconds, more on a busy machine. */
const VALGRIND_READY_MS = 120_000;

/** Settings of the instruction count (`--instructions`, `--profile`). */
export interface InstructionsPlan {
  readonly calls: number;
  readonly repeats: number;
  readonly profile: boolean;
}

/**
 * Why a run cannot count: a server swc did not start cannot be put under
 * valgrind (exit 2), and without valgrind nothing counts (exit 3). Checked
 * before the run starts, so a refused run costs nothing.
 */
export function checkInstructions(
  flags: { redisUrl?: string; redisUrls?: readonly string[]; cluster?: boolean; clusterShards?: number; realtime?: boolean },
  flag: string,
): ValgrindTools {
  if (flags.redisUrl !== undefined || (flags.redisUrls?.length ?? 0) > 0) {
    throw new UsageError(
      `${flag}: not with --redis-url: valgrind must start and own the server process it counts, so it needs swc's private server (drop --redis-url)`,
    );
  }
  if (flags.cluster || flags.clusterShards !== undefined) throw new UsageError(`${flag}: counts one private server; drop --cluster / --cluster-shards`);
  if (flags.realtime) throw new UsageError(`${flag}: counts the injected-clock phases; --realtime has none`);
  const tools = findValgrind();
  checkCountable(process.env.SWC_REDIS_SERVER ?? 'redis-server', flag);
  return tools;
}

/** `name` as the private server would start it: a path as given, a bare name found on PATH (undefined when it is not there). */
function onPath(name: string): string | undefined {
  if (name.includes('/')) return name;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    try {
      closeSync(openSync(path.join(dir, name), 'r'));
      return path.join(dir, name);
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/**
 * Refuses (exit 2) a server binary callgrind cannot count through: a script
 * (`#!`) runs its interpreter under valgrind, and the redis-server it starts
 * runs outside it, so every count would be 0. A binary wrapper that starts
 * the server as a child is caught at the first count instead (see
 * {@link countInstructions}).
 */
function checkCountable(binary: string, flag: string): void {
  const file = onPath(binary);
  if (file === undefined) return; // not found: the private server's start says so, naming the package
  const head = Buffer.alloc(2);
  try {
    const fd = openSync(file, 'r');
    try {
      readSync(fd, head, 0, 2, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return; // unreadable: the start says what is wrong
  }
  if (head.toString('latin1') === '#!')
    throw new UsageError(
      `${flag}: the server binary ${file} is a script (#!), not redis-server itself: valgrind would count its interpreter while the server it starts runs outside the count; give --redis-server (or SWC_REDIS_SERVER) the redis-server binary`,
    );
}

/** The server under callgrind, its control and a connection to it. */
export interface CountedServer {
  readonly server: PrivateServer;
  readonly control: CallgrindControl;
  readonly connection: RespConnection;
  close(): Promise<void>;
}

/** Starts a sibling of the run's private server (same binary and settings) under callgrind. */
export async function openCountedServer(base: PrivateServer, tools: ValgrindTools): Promise<CountedServer> {
  let server: PrivateServer;
  try {
    server = await base.startSibling({ wrapper: callgrindWrapper(tools), readyTimeoutMs: VALGRIND_READY_MS });
  } catch (err) {
    if (err instanceof ServerStartError)
      throw new EnvironmentError(`--instructions: redis-server did not start under valgrind: ${err.message}`, { cause: err });
    throw err;
  }
  try {
    if (!server.dir) throw new EnvironmentError('--instructions: the counted server has no folder for its dumps');
    const connection = await RespConnection.open({ host: '127.0.0.1', port: server.port }, { replyTimeoutMs: 120_000 });
    // The slow log's cost depends on wall time (a call over 10 ms, easy under valgrind on a busy
    // machine, adds an entry): off, so the count does not. It changes no command's work.
    await connection.call([['CONFIG', 'SET', 'slowlog-log-slower-than', '-1']]);
    const control = new CallgrindControl(tools, server.pid, server.dir);
    return {
      server,
      control,
      connection,
      close: async () => {
        connection.close();
        await server.stop();
      },
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** Cells of one window and rate, as the run groups them (their layouts alternate). */
function groupsOf(plan: BenchPlan): Cell[][] {
  const groups: Cell[][] = [];
  for (const cell of cellsOf(plan)) {
    const last = groups.at(-1);
    const head = last?.[0];
    if (last && head && head.windowSeconds === cell.windowSeconds && head.rate === cell.rate) last.push(cell);
    else groups.push([cell]);
  }
  return groups;
}

/**
 * Counts the instructions per call of every cell of the plan on the counted
 * server: for each window and rate, each layout's light is filled with the
 * cell's traffic (instrumentation off, not counted), then the three phases
 * are counted from where the fill's clock stopped, as in the throughput
 * phase. The server is emptied after each group (it is swc's own).
 */
export async function runInstructionPhase(
  counted: CountedServer,
  plan: BenchPlan,
  settings: InstructionsPlan,
  onProgress?: (text: string) => void,
  signal?: AbortSignal,
): Promise<Map<string, InstructionsResult>> {
  const out = new Map<string, InstructionsResult>();
  for (const group of groupsOf(plan)) {
    const first = group[0] as Cell;
    const targets = [];
    for (const cell of group) {
      const layout = namespacedLayout(cell.layout, COUNTED_PREFIX, plan.scriptsDir !== undefined ? { scriptsDir: plan.scriptsDir } : {});
      const lights: Light[] = Array.from({ length: COUNTED_LIGHTS }, (_, i) => ({ name: `w${cell.windowSeconds}-r${cell.rate}-l${i}` }));
      onProgress?.(`${cell.layout}: filling the counted server`);
      await fill(
        counted.connection,
        layout,
        lights,
        lights.map((_, i) => ({
          rate: cell.rate,
          durationSeconds: cell.durationSeconds,
          failureRate: plan.failureRate,
          seed: lightSeed(plan.seed, i),
          startAt: BENCH_EPOCH,
        })),
        cell.windowSeconds,
        () => undefined,
        signal,
      );
      let failures = 0;
      targets.push({
        layout,
        lights,
        windowSeconds: cell.windowSeconds,
        rate: cell.rate,
        startAt: BENCH_EPOCH + cell.durationSeconds,
        failureRate: plan.failureRate,
        seed: plan.seed,
        errorJson: (at: number) => errorJsonFor(at, failures++, layout.stampPrecision),
      });
    }
    const results = await countInstructions({
      connection: counted.connection,
      control: counted.control,
      targets,
      calls: settings.calls,
      repeats: settings.repeats,
      profile: settings.profile,
      ...(signal ? { signal } : {}),
      onRepeat: (op: CountedOp, repeat: number, target: number) =>
        onProgress?.(
          `${group[target]?.layout ?? '?'} window ${first.windowSeconds} s at ${first.rate}/s: ${op} repeat ${repeat + 1}/${settings.repeats} counted`,
        ),
    });
    for (const [i, cell] of group.entries()) {
      const result = results[i];
      if (result) out.set(cellKey(cell), result);
    }
    await counted.connection.call([['FLUSHALL', 'SYNC']]);
  }
  return out;
}

const cellKey = (cell: Pick<Cell, 'layout' | 'windowSeconds' | 'rate'>): string => `${cell.layout}|${cell.windowSeconds}|${cell.rate}`;

/** The report with each cell's counts beside its other figures. */
export function withInstructions(report: BenchReport, counts: ReadonlyMap<string, InstructionsResult>): BenchReport {
  const results = report.results.map((r: CellResult): CellResult => {
    const found = counts.get(cellKey(r));
    return found ? { ...r, instructions: found } : r;
  });
  return { ...report, results };
}

/**
 * The instruction count after a bench's guarded run: the plan's cells on a
 * server under callgrind beside the run's private one, the counts added to
 * the report. `say` hears each step (`starting redis-server under valgrind callgrind`, …).
 */
export async function countAfterRun(
  counting: { plan: InstructionsPlan; tools: ValgrindTools },
  target: Target,
  plan: BenchPlan,
  report: BenchReport,
  options: { say?: (text: string) => void; signal?: AbortSignal },
): Promise<BenchReport> {
  const server = target.shards[0]?.session.server;
  if (!server) throw new UsageError("--instructions: needs swc's private server");
  const started = performance.now();
  options.say?.('starting redis-server under valgrind callgrind');
  const counted = await openCountedServer(server, counting.tools);
  try {
    const counts = await runInstructionPhase(counted, plan, counting.plan, options.say, options.signal);
    const out = withInstructions(report, counts);
    return { ...out, instructionsSeconds: (performance.now() - started) / 1000 };
  } finally {
    await counted.close();
  }
}
