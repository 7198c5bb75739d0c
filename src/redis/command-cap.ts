/**
 * `--max-ops`: a hard cap on the commands swc makes a server run, counted as
 * the server counts them (INFO commandstats): a script call is its EVALSHA
 * plus every command the script runs, and swc's own INFO, MEMORY USAGE, SCAN,
 * DEL, SCRIPT LOAD and PING count one each. Every connection of a capped run
 * takes its turn from one {@link CommandCap}: the ioredis connections through
 * a wrapped `sendCommand`, the lean RESP connections by awaiting
 * {@link CommandCap.take} before each send.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';

/**
 * Commands a script call is charged before its own count is known: above
 * the most any built-in layout's call runs (6.0's failure write, 1 + 18),
 * so the first calls of a run err on the slow side.
 */
export const UNKNOWN_SCRIPT_COMMANDS = 20;

/** How long a batch of calls may be under a cap: a twentieth of a second's commands, so no 0.5 s span sees more than about 1.1 × its share. */
const BATCH_SECONDS = 1 / 20;

interface Waiting {
  readonly weight: number;
  readonly go: () => void;
}

/**
 * One cap over every connection of a run: commands leave in the order they
 * were offered, each once the ones before had their share of time at
 * `perSecond` (a leaky bucket with no burst), so any span of T seconds sees
 * at most `perSecond × T` commands plus the largest single send.
 */
export class CommandCap {
  /** When (performance.now()) the next send may leave. */
  private next = 0;
  private readonly queue: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Commands per call of each script (by SHA1), as learned; EVALSHA included. */
  private readonly perScript = new Map<string, number>();
  /** Commands charged so far. */
  private charged = 0;

  constructor(readonly perSecond: number) {
    if (!(perSecond > 0)) throw new RangeError(`perSecond must be > 0, got ${perSecond}`);
  }

  /** Commands charged so far (every send through this cap). */
  get commands(): number {
    return this.charged;
  }

  /** Records that a call of the script `sha1` runs at most `commands` commands (its EVALSHA included); the count only grows. */
  learn(sha1: string, commands: number): void {
    this.perScript.set(sha1, Math.max(this.perScript.get(sha1) ?? 0, Math.ceil(commands)));
  }

  /** Whether a count was learned for `sha1`. */
  knows(sha1: string): boolean {
    return this.perScript.has(sha1);
  }

  /** Commands one call of the script `sha1` is charged. */
  scriptWeight(sha1: string): number {
    return this.perScript.get(sha1) ?? UNKNOWN_SCRIPT_COMMANDS;
  }

  /** Commands a list of script calls is charged. */
  callsWeight(calls: readonly { readonly script: { readonly sha1: string } }[]): number {
    let weight = 0;
    for (const call of calls) weight += this.scriptWeight(call.script.sha1);
    return weight;
  }

  /** Commands one command (name and arguments, as sent) is charged. */
  commandWeight(name: string, args: readonly unknown[]): number {
    const lower = name.toLowerCase();
    if (lower === 'evalsha' || lower === 'evalsha_ro') return this.scriptWeight(String(args[0]));
    if (lower === 'eval' || lower === 'eval_ro') return this.scriptWeight(createHash('sha1').update(String(args[0])).digest('hex'));
    if (lower === 'fcall' || lower === 'fcall_ro') return UNKNOWN_SCRIPT_COMMANDS;
    return 1;
  }

  /** Calls per pipelined batch under this cap: at most `batch`, and at most a twentieth of a second's commands at the heaviest known call. */
  batch(batch: number): number {
    const heaviest = this.perScript.size > 0 ? Math.max(...this.perScript.values()) : UNKNOWN_SCRIPT_COMMANDS;
    return Math.max(1, Math.min(batch, Math.floor((this.perSecond * BATCH_SECONDS) / heaviest)));
  }

  /** Runs `go` once `weight` commands may leave, after every send offered before. */
  schedule(weight: number, go: () => void): void {
    this.queue.push({ weight, go });
    this.pump();
  }

  /** Resolves once `weight` commands may leave (after every send offered before). */
  take(weight: number): Promise<void> {
    return new Promise((resolve) => this.schedule(weight, resolve));
  }

  private pump(): void {
    if (this.timer !== undefined) return;
    for (;;) {
      const head = this.queue[0];
      if (head === undefined) return;
      const now = performance.now();
      if (this.next > now) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, this.next - now);
        return;
      }
      this.queue.shift();
      this.next = Math.max(this.next, now) + (head.weight / this.perSecond) * 1000;
      this.charged += head.weight;
      head.go();
    }
  }
}

/** The cap of each capped connection, by its ioredis options object (lean RESP connections are opened from it). */
const caps = new WeakMap<object, CommandCap>();

/** The cap a connection (an ioredis client or its options) runs under, if any. */
export function capOf(connection: object): CommandCap | undefined {
  const options = (connection as { options?: unknown }).options;
  return caps.get(connection) ?? (typeof options === 'object' && options !== null ? caps.get(options) : undefined);
}

type SendCommand = Redis['sendCommand'];

/**
 * Puts an ioredis client under `cap`: every command it sends (its handshake,
 * pipelines and transactions included) waits its turn. Lean RESP connections
 * opened from its options find the cap with {@link capOf}.
 */
export function capConnection(redis: Redis, cap: CommandCap): void {
  if (caps.get(redis) === cap) return;
  caps.set(redis, cap);
  caps.set(redis.options, cap);
  const original = redis.sendCommand.bind(redis) as (...args: Parameters<SendCommand>) => ReturnType<SendCommand>;
  redis.sendCommand = ((command: Parameters<SendCommand>[0], ...rest: unknown[]) => {
    const args = (command as { args?: unknown[] }).args ?? [];
    cap.schedule(cap.commandWeight(command.name, args), () => void (original as (...a: unknown[]) => unknown)(command, ...rest));
    return (command as { promise: ReturnType<SendCommand> }).promise;
  }) as SendCommand;
}
