import type { ClientAdapter } from './types.js';
import { rateLimiterFlexible } from './rate-limiter-flexible.js';
import { rateLimitRedis } from './rate-limit-redis.js';
import { fastifyRateLimit } from './fastify-rate-limit.js';
import { upstashRatelimit } from './upstash-ratelimit.js';
import { ratelimiter } from './ratelimiter.js';
import { rollingRateLimiter } from './rolling-rate-limiter.js';

/** Every package `--client` accepts, in the order tables list them. */
export const CLIENTS: readonly ClientAdapter[] = [rateLimiterFlexible, rateLimitRedis, fastifyRateLimit, upstashRatelimit, ratelimiter, rollingRateLimiter];

/** The adapter `--client <name>` names, or undefined. */
export function clientNamed(name: string): ClientAdapter | undefined {
  return CLIENTS.find((c) => c.name === name || c.packageName === name);
}
