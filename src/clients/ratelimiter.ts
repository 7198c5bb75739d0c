import type { ChainableCommander, Redis } from 'ioredis';
import { UnexpectedError, UsageError } from '../core/errors.js';
import { KEY_NAMES } from './key-names.js';
import { limiterOnClock, processClock, type ClockedEnvironment, type MicrosecondSource } from './micro-clock.js';
import { requirePackage } from './require-package.js';
import type { ClientAdapter, ClientSettings } from './types.js';

const PACKAGE = 'ratelimiter';
/** The package's own key name in front of the id (fixed in its code, no option). */
const KEY_HEAD = 'limit:';

/** One call's answer, as `Limiter#get` hands it to its callback (the fields swc reads). */
interface LimitInfo {
  readonly remaining: number;
}

/** The package's export: a constructor of one limiter per client id. */
type LimiterClass = new (options: { id: string; db: unknown; max: number; duration: number }) => {
  get(callback: (err: Error | null, info: LimitInfo) => void): void;
};

/** The one call the package makes on its connection: a MULTI of `[command, key, …args]` rows, run with `exec`. */
interface MultiOnly {
  multi(rows: readonly (readonly (string | number)[])[]): ChainableCommander;
}

/**
 * The package has no key-prefix option (its key is `limit:<id>`), so the run's namespace goes in front of the
 * key the way an ioredis `keyPrefix` would put it: every row of the MULTI names the key second, and only that
 * argument changes. The package's commands, their order and their other arguments go to Redis as it wrote them.
 */
function prefixedConnection(redis: Redis, prefix: string): MultiOnly {
  return {
    multi: (rows) => redis.multi(rows.map(([command, key, ...args]) => [String(command), `${prefix}${String(key)}`, ...args.map(String)])),
  };
}

function decideWith(Limiter: LimiterClass, db: MultiOnly, settings: ClientSettings, id: string): Promise<boolean> {
  const limiter = new Limiter({ id, db, max: settings.limit, duration: settings.windowMs });
  return new Promise((resolve, reject) => {
    limiter.get((err, info) => {
      if (err) reject(err);
      // The package's README: a call is allowed while `remaining` (the calls left before this one) is above 0.
      else resolve(info.remaining > 0);
    });
  });
}

/**
 * `ratelimiter` (tj's node-ratelimiter): a sorted set per client id, `<prefix>limit:<id>`, one entry per call
 * (allowed or denied) with its microsecond timestamp as score and member, trimmed to the newest `max` entries,
 * PEXPIRE'd to the window on every call. Its time comes from its own `microtime.js` (`Date.now()` at load plus
 * `process.hrtime()` since), whose `now` swc replaces with the run's clock while the limiter is open.
 */
export const ratelimiter: ClientAdapter = {
  packageName: PACKAGE,
  name: PACKAGE,
  algorithm: 'sliding-log',
  // verify holds it to this (src/clients/models/sliding-log.ts), not to the exact log.
  deviation: {
    why: 'denied calls are logged and count against the limit, and calls in the same microsecond are one entry (the sliding-log model with RATELIMITER_DEVIATION)',
    marginMs: 0,
  },
  clock: { kind: 'injected', source: "microtime.now() of the package's own microtime.js (Date.now at load plus process.hrtime)" },
  // PEXPIRE <window ms> on every call: the TTL is the window, exactly.
  ttlSlackMs: 0,
  // The prefix of a run (and of an application) is what its connection puts in front of the package's own
  // `limit:<id>`: none by default. The key names (which count `limit:` as the package's prefix) read the rest.
  defaultPrefix: '',
  clientOfKey: (key, prefix) => KEY_NAMES[PACKAGE]?.clientOfKey(key, `${prefix}${KEY_HEAD}`) ?? null,
  async open(env: ClockedEnvironment, settings) {
    // The package reads a max or duration of 0 as "not given" and puts its defaults (2500 per hour) in their place.
    if (!(settings.limit > 0)) throw new UsageError(`--limit: ${PACKAGE} needs a limit above 0 (it reads 0 as its default, 2500)`);
    if (!(settings.windowMs > 0)) throw new UsageError(`--window: ${PACKAGE} needs a window above 0 (it reads 0 as its default, 1 hour)`);
    const loaded = requirePackage(env.requireFrom, PACKAGE);
    if (typeof loaded.exports !== 'function') throw new UnexpectedError(`${PACKAGE} ${loaded.version} exports no Limiter constructor`);
    const Limiter = loaded.exports as LimiterClass;
    const db = prefixedConnection(env.redis, settings.prefix);
    const limiter = limiterOnClock(loaded.requireInside('./microtime.js') as MicrosecondSource, env.clock ?? processClock(), (id) =>
      decideWith(Limiter, db, settings, id),
    );
    return { version: loaded.version, limiter };
  },
};
