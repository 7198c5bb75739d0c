import { UnexpectedError, UsageError } from '../core/errors.js';
import { keyNamesOf } from './key-names.js';
import { limiterOnClock, processClock, type ClockedEnvironment, type MicrosecondSource } from './micro-clock.js';
import { requirePackage } from './require-package.js';
import type { ClientAdapter } from './types.js';

const PACKAGE = 'rolling-rate-limiter';

/** The package's Redis limiter (the fields swc uses). */
type RedisRateLimiterClass = new (options: { client: unknown; namespace: string; interval: number; maxInInterval: number }) => {
  /** True when the call is blocked. */
  limit(id: string): Promise<boolean>;
};

/**
 * `rolling-rate-limiter` (`RedisRateLimiter`): a sorted set per client id, `<namespace><id>`, one entry per
 * `limit()` call (allowed or blocked) with its microsecond timestamp as score and a random UUID as member; each
 * call reads the whole set back and EXPIREs the key to the window rounded up to whole seconds. Its time comes
 * from the native `microtime` package, whose `now` swc replaces (on the copy the package itself loads) with the
 * run's clock while the limiter is open.
 */
export const rollingRateLimiter: ClientAdapter = {
  packageName: PACKAGE,
  name: PACKAGE,
  algorithm: 'sliding-log',
  // verify holds it to this (src/clients/models/sliding-log.ts), not to the exact log.
  deviation: { why: 'denied calls are logged and count against the limit (the sliding-log model with ROLLING_RATE_LIMITER_DEVIATION)', marginMs: 0 },
  clock: { kind: 'injected', source: 'microtime.now() of the native microtime package' },
  // EXPIRE ceil(window / 1 s) seconds: up to 999 ms beyond the window.
  ttlSlackMs: 999,
  ...keyNamesOf(PACKAGE),
  async open(env: ClockedEnvironment, settings) {
    // The package asserts both, with an error of its own: said here as swc says bad input.
    if (!(settings.limit > 0)) throw new UsageError(`--limit: ${PACKAGE} needs a limit above 0`);
    if (!(settings.windowMs > 0)) throw new UsageError(`--window: ${PACKAGE} needs a window above 0`);
    const loaded = requirePackage(env.requireFrom, PACKAGE);
    const RedisRateLimiter = (loaded.exports as { RedisRateLimiter?: unknown }).RedisRateLimiter;
    if (typeof RedisRateLimiter !== 'function') throw new UnexpectedError(`${PACKAGE} ${loaded.version} exports no RedisRateLimiter`);
    // The ioredis connection as is: the package recognises ioredis by its lower-case command methods.
    const own = new (RedisRateLimiter as RedisRateLimiterClass)({
      client: env.redis,
      namespace: settings.prefix,
      interval: settings.windowMs,
      maxInInterval: settings.limit,
    });
    const limiter = limiterOnClock(loaded.requireInside('microtime') as MicrosecondSource, env.clock ?? processClock(), async (id) => !(await own.limit(id)));
    return { version: loaded.version, limiter };
  },
};
