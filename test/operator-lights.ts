/**
 * The application an operator meets in test/cli/operator.test.ts (spawned)
 * and test/integration/commands/operator.test.ts (in-process): lights as the
 * layouts' own scripts write them, on a server of the file's own.
 */
import type { Redis } from 'ioredis';
import { StoplightV5 } from '../src/layouts/stoplight/v5.js';
import { shortId, StoplightV6 } from '../src/layouts/stoplight/v6.js';
import { execPipeline, installScripts } from '../src/redis/scripts.js';
import type { ScriptCall } from '../src/lua/source.js';
import { HOUR_START } from './helpers.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';
/** The last second with traffic; every command judges at AT with --at. */
export const LAST = HOUR_START + 1200;
export const AT = LAST + 1;

/**
 * Lights as an application writes them (the layouts' own scripts): checkout
 * in two systems, stripe-api (named by a registry entry) with a 10-second
 * burst at 80% failures at the end of a minute of 10% failures, query with a
 * garbage counter, a 5.x light, a string under a 5.x metadata name, and a
 * leftover benchmark key.
 */
export async function seedOperatorLights(redis: Redis): Promise<void> {
  const v5 = new StoplightV5();
  const v6 = new StoplightV6();
  await installScripts(redis, [...v5.scripts, ...v6.scripts]);
  const calls: ScriptCall[] = [];
  const lights = [
    ['payments', 'checkout'],
    ['default', 'checkout'],
    ['payments', 'stripe-api'],
    ['search', 'query'],
  ] as const;
  for (const [system, name] of lights) {
    for (let i = 0; i < 60; i += 1) {
      // Fractional times: 6.0 stores its stamps as float seconds.
      const options = { at: LAST - 59 + i + 0.94, windowSeconds: 600 };
      // stripe-api: 10 calls a second, 1 failing, then 8 failing in the last 10 seconds.
      const perSecond = name === 'stripe-api' ? 10 : 1;
      for (let e = 0; e < perSecond; e += 1) {
        const fail = name === 'stripe-api' ? e < (i >= 50 ? 8 : 1) : i % 10 === 0;
        calls.push(fail ? v6.recordFailure({ name, system }, { ...options, errorJson: ERROR_JSON }) : v6.recordSuccess({ name, system }, options));
      }
    }
  }
  for (let i = 0; i < 20; i += 1) calls.push(v5.recordSuccess({ name: 'legacy' }, { at: LAST - 19 + i, windowSeconds: 60 }));
  await execPipeline(redis, calls);
  const registry = { meta: { version: 1, registered_at: LAST }, config: { id: shortId('stripe-api'), name: 'stripe-api', window_size: 300, threshold: 0.5 } };
  await redis.hset(`stoplight:v6:${shortId('payments')}:lights`, shortId('stripe-api'), JSON.stringify(registry));
  await redis.set('stoplight:v5:metadata:broken', 'not a hash');
  await redis.set('swc-bench:deadbeef:stoplight:v6:left', '1');
  await redis.hset(`stoplight:v6:${shortId('search')}:{${shortId('query')}}:window_metrics`, `bucket:${LAST - 3}:s`, 'abc');
}
