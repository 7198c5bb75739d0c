/**
 * A test-side Stoplight 6.0 application: drives a light through Stoplight's
 * state machine on a real redis-server, as Stoplight 6.0 does (its facts in
 * docs/layouts.md, "Stoplight 6.0's state machine"), so the read commands'
 * tests meet every key kind and every colour:
 *
 * - a light with a window records through swc's 6.0 scripts (the window
 *   metrics hash and its index); a light on the default config (no window)
 *   keeps the unbounded `:metrics` hash (consecutive counters, last stamps);
 * - after each failure on a light that is not red, its strategy judges the
 *   metrics (consecutive errors clamped to the window's failures; error rate
 *   with its minimum of requests) and may turn it red: `breached_at` set once,
 *   `recovery_scheduled_after` = now + cool-off, recovery fields cleared;
 * - once the cool-off is over, a probe takes the recovery lock (a string set
 *   NX with the cool-off as TTL), turns the light yellow (`recovery_started_at`),
 *   clears the window metrics, and records into `:recovery_metrics`; enough
 *   consecutive successful probes turn it green (`recovered_at`), a failed
 *   probe red again;
 * - an operator lock writes `locked_state`; registering writes the registry
 *   entry (`stoplight:v6:<system id>:lights`, field the light id).
 *
 * The colour this writer acts on is its own statement of Stoplight's rule,
 * written here, not swc's: the tests compare swc against it.
 */
import type { Redis } from 'ioredis';
import { LayoutClient } from '../src/layouts/client.js';
import { shortId, StoplightV6 } from '../src/layouts/stoplight/v6.js';

export interface AppLightConfig {
  readonly name: string;
  /** Default `default`. */
  readonly system?: string;
  /** Seconds; null: Stoplight's default config (no window). */
  readonly windowSeconds: number | null;
  readonly threshold: number;
  readonly strategy: 'error_rate' | 'consecutive_errors';
  readonly coolOffSeconds: number;
  /** Consecutive successful probes that turn the light green; default 1. */
  readonly recoveryThreshold?: number;
}

export type Colour = 'green' | 'yellow' | 'red';

const METRICS_TTL = 604_800;
const ERROR_JSON = (at: number): string => JSON.stringify({ error: { class: 'Timeout::Error', message: 'execution expired' }, time: at });

/** Stoplight's colour rule, as this file states it (locks, strict cool-off end, recovery under way, breach). */
export function colourOf(state: Readonly<Record<string, string>>, at: number): Colour {
  const lock = (state.locked_state ?? '').toLowerCase();
  if (lock === 'locked_green') return 'green';
  if (lock === 'locked_red') return 'red';
  const scheduled = state.recovery_scheduled_after === undefined ? null : Number(state.recovery_scheduled_after);
  if ((scheduled !== null && scheduled < at) || state.recovery_started_at !== undefined) return 'yellow';
  return state.breached_at !== undefined ? 'red' : 'green';
}

export class Stoplight6Light {
  readonly system: string;
  readonly base: string;
  private readonly v6 = new StoplightV6();

  private constructor(
    private readonly redis: Redis,
    private readonly client: LayoutClient,
    readonly config: AppLightConfig,
  ) {
    this.system = config.system ?? 'default';
    this.base = `stoplight:v6:${shortId(this.system)}:{${shortId(config.name)}}`;
  }

  static async open(redis: Redis, config: AppLightConfig): Promise<Stoplight6Light> {
    return new Stoplight6Light(redis, await LayoutClient.open(redis, new StoplightV6()), config);
  }

  get stateKey(): string {
    return `${this.base}:state`;
  }

  /** The registry entry, as Stoplight's Registry and ConfigSerializer write it. */
  async register(at: number): Promise<void> {
    const c = this.config;
    await this.redis.hset(
      `stoplight:v6:${shortId(this.system)}:lights`,
      shortId(c.name),
      JSON.stringify({
        meta: { version: 1, registered_at: Math.floor(at) },
        config: {
          id: shortId(c.name),
          name: c.name,
          cool_off_time: c.coolOffSeconds,
          threshold: c.threshold,
          recovery_threshold: c.recoveryThreshold ?? 1,
          window_size: c.windowSeconds,
          tracked_errors: ['StandardError'],
          skipped_errors: [],
          traffic_control: { strategy: c.strategy },
          traffic_recovery: { strategy: 'consecutive_successes' },
        },
      }),
    );
  }

  async lock(state: 'locked_red' | 'locked_green'): Promise<void> {
    await this.redis.hset(this.stateKey, 'locked_state', state);
  }

  async colour(at: number): Promise<Colour> {
    return colourOf(await this.redis.hgetall(this.stateKey), at);
  }

  /**
   * One call at `at` (float seconds): recorded while green; refused (nothing
   * written) while red; a recovery probe once the cool-off is over.
   */
  async call(outcome: 'success' | 'failure', at: number): Promise<Colour> {
    const colour = await this.colour(at);
    if (colour === 'red') return colour;
    if (colour === 'yellow') return this.probe(outcome, at);
    if (outcome === 'success') {
      await this.recordSuccess(at);
      return 'green';
    }
    const metrics = await this.recordFailure(at);
    const state = await this.redis.hgetall(this.stateKey);
    if ((state.locked_state ?? '').toLowerCase() === 'locked_green') return 'green';
    if (this.stopsTraffic(metrics)) await this.toRed(at);
    return this.colour(at);
  }

  private async recordSuccess(at: number): Promise<void> {
    if (this.config.windowSeconds !== null) {
      await this.client.recordSuccess({ name: this.config.name, system: this.system }, { at, windowSeconds: this.config.windowSeconds });
      return;
    }
    await this.unbounded(`${this.base}:metrics`, 'success', at);
  }

  /** The metrics after the failure: the window's counts (null without a window) and the consecutive errors. */
  private async recordFailure(at: number): Promise<{ successes: number | null; failures: number | null; consecutiveErrors: number }> {
    if (this.config.windowSeconds !== null) {
      const snapshot = await this.client.recordFailure(
        { name: this.config.name, system: this.system },
        { at, windowSeconds: this.config.windowSeconds, errorJson: ERROR_JSON(at) },
      );
      return { successes: snapshot?.successes ?? 0, failures: snapshot?.failures ?? 0, consecutiveErrors: snapshot?.consecutiveErrors ?? 0 };
    }
    const errors = await this.unbounded(`${this.base}:metrics`, 'failure', at);
    return { successes: null, failures: null, consecutiveErrors: errors };
  }

  /** The unbounded metrics hash's write: consecutive counters, the newer stamp, a 7-day TTL. Returns the consecutive errors. */
  private async unbounded(key: string, outcome: 'success' | 'failure', at: number): Promise<number> {
    const [lastAt, errors, successes] = await this.redis.hmget(
      key,
      outcome === 'success' ? 'last_success_at' : 'last_error_at',
      'consecutive_errors',
      'consecutive_successes',
    );
    const newer = lastAt === null || at > Number(lastAt);
    const consecutiveErrors = outcome === 'failure' ? Number(errors ?? 0) + 1 : 0;
    const consecutiveSuccesses = outcome === 'success' ? Number(successes ?? 0) + 1 : 0;
    const fields: Record<string, string> = { consecutive_errors: String(consecutiveErrors), consecutive_successes: String(consecutiveSuccesses) };
    if (newer && outcome === 'success') fields.last_success_at = String(at);
    if (newer && outcome === 'failure') Object.assign(fields, { last_error_at: String(at), last_error_json: ERROR_JSON(at) });
    await this.redis.multi().hset(key, fields).expire(key, METRICS_TTL).exec();
    return consecutiveErrors;
  }

  private stopsTraffic(m: { successes: number | null; failures: number | null; consecutiveErrors: number }): boolean {
    const c = this.config;
    if (c.strategy === 'consecutive_errors') {
      const counted = c.windowSeconds === null ? m.consecutiveErrors : Math.min(m.consecutiveErrors, m.failures ?? 0);
      return counted >= c.threshold;
    }
    const requests = (m.successes ?? 0) + (m.failures ?? 0);
    return requests >= 10 && (m.failures ?? 0) / requests >= c.threshold;
  }

  /** transition to red: the breach once, the cool-off's end, the recovery fields cleared. */
  async toRed(at: number): Promise<void> {
    await this.redis
      .multi()
      .hsetnx(this.stateKey, 'breached_at', String(at))
      .hset(this.stateKey, 'recovery_scheduled_after', String(at + this.config.coolOffSeconds))
      .hdel(this.stateKey, 'recovery_started_at', 'recovered_at')
      .exec();
  }

  /** A probe: takes the recovery lock, turns the light yellow once (clearing the window metrics), records the probe, maybe recovers. */
  private async probe(outcome: 'success' | 'failure', at: number): Promise<Colour> {
    const lockKey = `${this.base}:locks:recovery`;
    const token = `probe-${Math.round(at * 1000)}`;
    const held = await this.redis.set(lockKey, token, 'PX', this.config.coolOffSeconds * 1000, 'NX');
    if (held === null) return 'yellow';
    const started = await this.redis.hsetnx(this.stateKey, 'recovery_started_at', String(at));
    if (started === 1) {
      await this.redis.hdel(this.stateKey, 'recovery_scheduled_after', 'breached_at', 'recovered_at');
      await this.redis.del(`${this.base}:window_metrics`, `${this.base}:window_metrics:ts_idx`);
    }
    const recoveryKey = `${this.base}:recovery_metrics`;
    await this.unbounded(recoveryKey, outcome, at);
    const successes = Number((await this.redis.hget(recoveryKey, 'consecutive_successes')) ?? 0);
    let colour: Colour = 'yellow';
    if (outcome === 'failure') {
      await this.toRed(at);
      await this.redis.del(recoveryKey);
      colour = 'red';
    } else if (successes >= (this.config.recoveryThreshold ?? 1)) {
      const green = await this.redis.hsetnx(this.stateKey, 'recovered_at', String(at));
      if (green === 1) await this.redis.hdel(this.stateKey, 'recovery_started_at', 'recovery_scheduled_after', 'breached_at');
      await this.redis.del(recoveryKey);
      colour = 'green';
    }
    // The probe's lock is released by its token (a crashed holder's expires with its TTL).
    if ((await this.redis.get(lockKey)) === token && colour !== 'yellow') await this.redis.del(lockKey);
    return colour;
  }
}
