import type { ClientKeyNames } from './types.js';

/** No key is recognised: the entry of a package whose key names are not written yet. */
const UNKNOWN: ClientKeyNames = { defaultPrefix: '', clientOfKey: () => null };

/**
 * How each package names its keys, by npm package name: the one place lights, inspect and the adapters read it from.
 * Each entry is to be taken from the package's own code.
 */
export const KEY_NAMES: Readonly<Record<string, ClientKeyNames>> = {
  'rate-limiter-flexible': UNKNOWN,
  'rate-limit-redis': UNKNOWN,
  '@fastify/rate-limit': UNKNOWN,
  '@upstash/ratelimit': UNKNOWN,
  ratelimiter: UNKNOWN,
  'rolling-rate-limiter': UNKNOWN,
};
