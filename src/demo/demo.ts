/**
 * The `swc demo` use case: the demo lights written on a server, with what
 * each should show. On swc's own private server the lights carry the
 * application's names; on a user's server (`marked`) every name carries the
 * demo's id and a marker lists the keys, so `swc clean` can remove exactly them.
 */
import type { Redis } from 'ioredis';
import { createDemoMark, markDemo, refuseCollisions } from './marker.js';
import { DEMO_LIGHTS, DEMO_WINDOW_SECONDS, demoInspectKey, demoKeys, demoLightOf, writeDemoLights, type DemoState } from './lights.js';

export { DEMO_WINDOW_SECONDS };

/** One demo light as written. */
export interface DemoLightResult {
  readonly layout: 'stoplight-v5' | 'stoplight-v6';
  /** The 6.0 system name as written (marked on a user's server); null for 5.x. */
  readonly system: string | null;
  readonly name: string;
  /** The state Stoplight gives it now. */
  readonly state: DemoState;
  readonly story: string;
  /** Recovered inside its window: the window starts at recovered_at. */
  readonly recovered: boolean;
  /** On a user's server, a 6.0 light's metrics key (under the demo's mark), which `swc inspect` opens it by. */
  readonly key?: string;
}

/** What {@link runDemo} wrote. */
export interface DemoResult {
  /** `swc-demo:<8 hex>` on a user's server (the marker is `<prefix>:run`); null on swc's own server. */
  readonly prefix: string | null;
  /** The server's clock when the traffic ended (Unix seconds). */
  readonly at: number;
  readonly windowSeconds: number;
  readonly calls: number;
  readonly keys: readonly string[];
  readonly lights: readonly DemoLightResult[];
}

/**
 * Writes the demo lights on `redis` at the server's clock. With `marked`
 * (a server swc did not start), refuses before any write when a key it would
 * write exists, then writes the marker first and the lights after it.
 */
export async function runDemo(redis: Redis, options: { marked: boolean }): Promise<DemoResult> {
  const now = Number((await redis.time())[0]);
  const mark = options.marked ? createDemoMark() : null;
  const naming = { mark: mark?.mark ?? '' };
  if (mark) {
    const keys = demoKeys(naming, now);
    await refuseCollisions(redis, [...keys, `${mark.prefix}:run`]);
    await markDemo(redis, mark, keys, Date.now());
  }
  const written = await writeDemoLights(redis, naming, now);
  const lights = DEMO_LIGHTS.map((light) => {
    const who = demoLightOf(light, naming);
    const key = demoInspectKey(light, naming);
    return {
      ...(key !== null ? { key } : {}),
      layout: light.layout,
      system: who.system ?? null,
      name: who.name,
      state: light.state,
      story: light.story,
      recovered: light.fields?.recovered_at !== undefined,
    };
  });
  return { prefix: mark?.prefix ?? null, at: now, windowSeconds: DEMO_WINDOW_SECONDS, calls: written.calls, keys: written.keys, lights };
}
