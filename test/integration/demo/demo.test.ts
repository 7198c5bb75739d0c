import { describe, expect, it } from 'vitest';
import { cleanServer } from '../../../src/clean/clean.js';
import { runDemo } from '../../../src/demo/demo.js';
import { DEMO_LIGHTS } from '../../../src/demo/lights.js';
import { listDemos, refuseCollisions } from '../../../src/demo/marker.js';
import { listLights } from '../../../src/inspect/list.js';
import { addName, newNameBook } from '../../../src/layouts/stoplight/names.js';
import { cleanDocument } from '../../../src/report/clean.js';
import { demoDocument } from '../../../src/report/demo.js';
import { cleanSchema } from '../../../src/schemas/clean.js';
import { demoSchema } from '../../../src/schemas/demo.js';
import { digest, withPrivateServer } from '../../helpers.js';

describe.concurrent('swc demo', () => {
  it('writes lights that swc lights lists with the states Stoplight gives them', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      const result = await runDemo(redis, { marked: false });
      // Every name known, as a --names file gives them (the search system has no registry).
      const names = newNameBook();
      for (const l of DEMO_LIGHTS) addName(names, l.name, l.system);
      const list = await listLights(redis, { windowSeconds: result.windowSeconds, names });
      const states = Object.fromEntries(list.lights.map((l) => [l.lightName ?? l.light, l.state]));
      expect(states).toEqual(Object.fromEntries(DEMO_LIGHTS.map((l) => [l.name, l.state])));
      expect(new Set(Object.values(states))).toEqual(new Set(['green', 'yellow', 'red', 'locked red', 'locked green']));
      const byName = new Map(list.lights.map((l) => [l.lightName ?? l.light, l]));
      // Recovered 60 s ago: its window starts there, so the failures of the outage before are not in it.
      const recovered = byName.get('legacy-geocoder');
      expect(recovered?.notes?.some((n) => /recovered_at/.test(n))).toBe(true);
      expect((recovered?.windowFailures ?? 0) + (recovered?.windowSuccesses ?? 0)).toBeLessThan(recovered?.events ?? 0);
      // Stoplight's default config: a metadata hash and no events, red by its stamps.
      expect(byName.get('legacy-ldap')).toMatchObject({ events: 0, state: 'red' });
      // Every key the demo says it wrote exists, and nothing else.
      expect(demoSchema.safeParse(demoDocument(result, { url: 'redis://127.0.0.1:6379', private: true })).success).toBe(true);
      const present = Object.keys(await digest(redis, '*'));
      expect(present.filter((k) => !result.keys.includes(k))).toEqual([]);
      expect(present.length).toBeGreaterThanOrEqual(20);
    });
  });

  it('on a user server: clean removes exactly the demo keys and keeps look-alikes', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      // A user's keys: a real light, and keys named like a demo's with no marker of swc's behind them.
      await redis.hset('stoplight:v5:metadata:checkout', 'last_success_at', '1');
      await redis.hset('stoplight:v5:metadata:swc-demo:deadbeef:legacy-pdf', 'last_success_at', '1');
      await redis.hset('swc-demo:0badf00d:run', { origin: 'someone', keys: JSON.stringify(['stoplight:v5:metadata:checkout']) });
      const before = await digest(redis, '*');
      const result = await runDemo(redis, { marked: true });
      expect(result.prefix).toMatch(/^swc-demo:[0-9a-f]{8}$/);
      // A marker that lists a user's key (someone copied it) never reaches that key: the key lacks the demo's id.
      await redis.hset(`${result.prefix as string}:run`, 'keys', JSON.stringify([...result.keys, 'stoplight:v5:metadata:checkout']));
      const present = Object.keys(await digest(redis, '*')).filter((k) => result.keys.includes(k));
      // Every key the demo made carries its mark in its name (#41): 5.x keys in the light's name, 6.0 keys (whose system
      // and light show only as hashes) in front of the layout's prefix; and swc lists each of them.
      const made = Object.keys(await digest(redis, '*')).filter((k) => !(k in before));
      expect(made.length).toBeGreaterThanOrEqual(20);
      for (const key of made) expect(key).toContain(`${result.prefix as string}:`);
      expect(made.filter((k) => k.startsWith(`${result.prefix as string}:stoplight:v6:`)).length).toBeGreaterThan(0);
      const listedV6 = (await listLights(redis, { windowSeconds: result.windowSeconds })).lights.filter((l) => l.layout === 'stoplight-v6');
      expect(listedV6.map((l) => l.state).sort()).toEqual(
        DEMO_LIGHTS.filter((l) => l.layout === 'stoplight-v6')
          .map((l) => l.state)
          .sort(),
      );
      const found = await listDemos(redis);
      expect([...(found.find((d) => d.prefix === result.prefix)?.keys ?? [])].sort()).toEqual(present.sort());
      expect(found.find((d) => d.prefix === 'swc-demo:0badf00d')?.marked).toBe(false);

      const listed = await cleanServer({ redis }, { remove: false });
      expect(listed.removed).toEqual([]);
      const cleaned = await cleanServer({ redis }, { remove: true });
      expect(cleaned.removed).toEqual([{ prefix: result.prefix, keys: present.length + 1 }]);
      expect(cleaned.kept).toEqual([{ prefix: 'swc-demo:0badf00d', reason: expect.stringMatching(/not swc's/) }]);
      expect(await digest(redis, '*')).toEqual(before);
      expect(cleanSchema.safeParse(cleanDocument(cleaned, { url: 'redis://127.0.0.1:6379' })).success).toBe(true);
    });
  });

  it('refuses before writing when a key it would write exists', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      await redis.set('stoplight:v5:metadata:taken', 'x');
      await expect(refuseCollisions(redis, ['stoplight:v5:metadata:free', 'stoplight:v5:metadata:taken'])).rejects.toThrow(
        /1 key\(s\).*taken.*nothing written/,
      );
    });
  });
});
