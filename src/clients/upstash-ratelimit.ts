import { ScriptError, UsageError } from '../core/errors.js';
import { parseInfo } from '../redis/info.js';
import { keyNamesOf } from './key-names.js';
import { loadPackage } from './upstash/load.js';
import { startRestShim, type RestShim, type ScriptRefusal } from './upstash/rest-shim.js';
import type { ClientAdapter, ClientEnvironment, ClientLimiter, ClientSettings } from './types.js';

/**
 * `@upstash/ratelimit` with `Ratelimit.slidingWindow(limit, window)`, through `@upstash/redis`.
 *
 * Facts, read from the package's code (2.2.0, with @upstash/redis 1.39):
 *
 * - Keys: `<prefix>:<id>:<n>`, where n = floor(now / window) numbers the fixed window (a string holding
 *   an integer count, made by INCRBY). A decision reads the keys of windows n and n - 1 and writes only n.
 * - Decision (one Lua script, sent by EVALSHA, EVAL on NOSCRIPT): the previous window's count weighted by
 *   the share of it still inside the sliding window, floored, plus the current count; allowed when that
 *   sum is below the limit, and then the current count goes up by one (models/two-window.ts).
 * - TTL: PEXPIRE of 2 × window + 1000 ms, set once, when a window's key is created; so a key lives at
 *   most two windows and a second after its first decision (ttlSlackWindows 1, ttlSlackMs 1000).
 * - Clock: `Date.now()` in the process, read once per decision; it picks the window (the key) and the
 *   weight (passed to the script as an argument). The script reads no server time. The server's clock
 *   only runs the TTL, which bounds how long a key lives, not a decision, as long as a run spends less
 *   real time than 2 × window + 1 s between a window's first decision and the last that reads it (when
 *   the injected clock runs slower than real time, a key could expire before its window is done with).
 * - Options set so that every decision reaches Redis: `ephemeralCache: false` (the default keeps an
 *   in-process map that denies a blocked id until its window resets, without a call), `timeout: 0`
 *   (the default 5 s timeout allows a decision that does not come back in time), `analytics: false`,
 *   no deny list (`enableProtection` off: it would fetch lists over the internet), no dynamic limits,
 *   telemetry off. `@upstash/redis` keeps its defaults (automatic pipelining, base64 replies) except
 *   `retry: false` (a failed call fails at once instead of after five back-offs).
 * - Transport: `@upstash/redis` speaks HTTP to Upstash's REST API; swc answers it with a stand-in on
 *   127.0.0.1 (upstash/rest-shim.ts) that passes each command to the run's connection.
 */

const PACKAGE = '@upstash/ratelimit';
/** How the package's keys are named: one place, shared with lights and inspect. */

interface RatelimitResponse {
  readonly success: boolean;
  readonly reason?: string;
  readonly pending: Promise<unknown>;
}
interface RatelimitInstance {
  limit(identifier: string): Promise<RatelimitResponse>;
}
interface RatelimitModule {
  readonly Ratelimit: {
    new (config: Record<string, unknown>): RatelimitInstance;
    slidingWindow(tokens: number, window: string): unknown;
  };
}
interface UpstashRedisModule {
  readonly Redis: new (config: Record<string, unknown>) => unknown;
}

/** A finding line for a script the server refused as sent. */
export function refusalFinding(refusal: ScriptRefusal): string {
  return (
    `${refusal.server} refuses ${PACKAGE}'s script ${refusal.sha.slice(0, 12)} as sent (${refusal.serverError}); ` +
    `swc ran the same Lua without its first line "${refusal.firstLine}" (script ${refusal.runAsSha.slice(0, 12)})`
  );
}

/** The server's name and version as a finding names them, e.g. `redis 7.0.15`, from one INFO server. */
async function serverName(env: ClientEnvironment): Promise<string> {
  const info = parseInfo(await env.redis.info('server').catch(() => ''));
  const name = info.server_name ?? 'redis';
  return `${name} ${info[`${name}_version`] ?? info.redis_version ?? 'of unknown version'}`;
}

async function open(env: ClientEnvironment, settings: ClientSettings): Promise<{ version: string; limiter: ClientLimiter }> {
  if (!Number.isInteger(settings.windowMs) || settings.windowMs < 1)
    throw new UsageError(`--window: ${PACKAGE} takes a whole number of milliseconds, at least 1 (got ${settings.windowMs})`);
  if (!Number.isInteger(settings.limit) || settings.limit < 1)
    throw new UsageError(`--limit: ${PACKAGE} takes a whole number, at least 1 (got ${settings.limit})`);
  const install = `${PACKAGE} @upstash/redis`;
  const ratelimitPackage = loadPackage<RatelimitModule>(env.requireFrom, PACKAGE, install);
  const redisPackage = loadPackage<UpstashRedisModule>(env.requireFrom, '@upstash/redis', install);
  const shim: RestShim = await startRestShim({ redis: env.redis, keyPrefix: settings.prefix, server: await serverName(env) });
  const { Ratelimit } = ratelimitPackage.module;
  const redis = new redisPackage.module.Redis({ url: shim.url, token: shim.token, retry: false, enableTelemetry: false });
  const ratelimit = new Ratelimit({
    redis,
    limiter: Ratelimit.slidingWindow(settings.limit, `${settings.windowMs} ms`),
    prefix: settings.prefix,
    ephemeralCache: false,
    timeout: 0,
    analytics: false,
    enableProtection: false,
    dynamicLimits: false,
    enableTelemetry: false,
  });
  const limiter: ClientLimiter = {
    async decide(id) {
      let response: RatelimitResponse;
      try {
        response = await ratelimit.limit(id);
      } catch (err) {
        // The package's error (a refused call, a failed script): one line naming the package, not a stack.
        throw new ScriptError(`${PACKAGE} failed a decision: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      // A reason means the decision was made without Redis (cache, timeout, deny list): none is enabled.
      if (response.reason !== undefined) throw new Error(`${PACKAGE} decided without Redis (reason: ${response.reason})`);
      await response.pending;
      return response.success;
    },
    close: () => shim.close(),
    findings: () => shim.refusals.map(refusalFinding),
  };
  return { version: ratelimitPackage.version, limiter };
}

export const upstashRatelimit: ClientAdapter = {
  packageName: PACKAGE,
  name: 'upstash-ratelimit',
  algorithm: 'two-window',
  clock: { kind: 'injected', source: 'Date.now' },
  ttlSlackMs: 1000,
  ttlSlackWindows: 1,
  ...keyNamesOf(PACKAGE),
  open,
};
