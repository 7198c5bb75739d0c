import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import { readEncodingLimits } from '../../../src/layouts/inspection-keys.js';
import type { JudgeOptions } from '../../../src/layouts/inspection.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { keyDef, KeyTable, parseTemplate } from '../../../src/layouts/kit/keys.js';
import { StoplightV5, V5_KEYS } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6, V6_KEYS } from '../../../src/layouts/stoplight/v6.js';
import { TemplateInspector } from '../../../src/layouts/kit/template-inspector.js';
import { HOUR_START, testRedis, uniqueName } from '../../helpers.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';
const judge: JudgeOptions = { windowSeconds: null, at: HOUR_START + 3600, clock: 'given' };

/** The built-in layouts' key tables read by the template inspector alone, as a user's manifest would be. */
const v6Templates = new TemplateInspector('v6-by-template', new KeyTable('stoplight:v6', V6_KEYS));
const v5Templates = new TemplateInspector('v5-by-template', new KeyTable('stoplight:v5', V5_KEYS));

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

describe('parseTemplate', () => {
  it('turns known {placeholders} into parts and keeps other braces (hash tags) literal', () => {
    expect(parseTemplate('{prefix}:{systemId}:{{lightId}}:x{y}')).toEqual([
      { placeholder: 'prefix' },
      ':',
      { placeholder: 'systemId' },
      ':{',
      { placeholder: 'lightId' },
      '}:x{y}',
    ]);
  });

  it('a layout whose templates never name the light is refused', () => {
    expect(() => new TemplateInspector('x', new KeyTable('app', { m: keyDef('m', '{prefix}:{hour}', 'string') }))).toThrow(UsageError);
  });
});

describe('the template inspector on keys the built-in layouts wrote', () => {
  it('finds a 6.0 light by name and system through hashed ids, with the same key facts as the 6.0 inspector', async () => {
    const name = uniqueName('tpl6');
    const light = { name, system: 'billing' };
    const layout = new StoplightV6();
    const client = await LayoutClient.open(redis, layout);
    await client.recordSuccess(light, { at: HOUR_START, windowSeconds: 60 });
    await client.recordFailure(light, { at: HOUR_START + 1, windowSeconds: 60, errorJson: ERROR_JSON });
    const { limits } = await readEncodingLimits(redis);

    const [byName] = v6Templates.targetsFor({ light: name, system: 'billing' });
    const generic = await v6Templates.inspect(redis, byName!, judge, limits);
    const [builtInTarget] = layout.inspector.targetsFor({ light: name, system: 'billing' });
    const builtIn = await layout.inspector.inspect(redis, builtInTarget!, judge, limits);
    const facts = (
      keys: { key: string; type: string; encoding: string | null; elements: number | null; bytes: number | null; slot: number; limits: unknown }[],
    ) => keys.map((k) => [k.key, k.type, k.encoding, k.elements, k.bytes, k.slot, k.limits]);
    expect(generic?.kind).toBe('keys');
    expect(facts(generic!.keys)).toEqual(facts(builtIn!.keys));

    // A full key names the light; the ids in the key are the light's.
    expect(v6Templates.lightOfKey(layout.indexKey(light))).toEqual({
      light: layout.indexKey(light).match(/\{([0-9a-f]{12})\}/)?.[1],
      system: layout.indexKey(light).split(':')[2],
      role: 'index',
      scoresAreSeconds: true,
    });
    const [byKey] = v6Templates.targetsFor({ light: layout.metricsKey(light) });
    expect((await v6Templates.inspect(redis, byKey!, judge, limits))?.keys).toHaveLength(2);
    // Under the default system, the same name has no keys.
    const [elsewhere] = v6Templates.targetsFor({ light: name });
    expect(await v6Templates.inspect(redis, elsewhere!, judge, limits)).toBeNull();
  });

  it('finds 5.x hour keys by SCAN and keeps light "a:b" apart from light "a"', async () => {
    const name = uniqueName('tpl5');
    const layout = new StoplightV5();
    const client = await LayoutClient.open(redis, layout);
    await client.recordSuccess({ name }, { at: HOUR_START + 10, windowSeconds: 60 });
    await client.recordFailure({ name }, { at: HOUR_START + 3700, windowSeconds: 60, errorJson: ERROR_JSON });
    await client.recordSuccess({ name: `${name}:b` }, { at: HOUR_START + 10, windowSeconds: 60 });
    const { limits } = await readEncodingLimits(redis);

    const [target] = v5Templates.targetsFor({ light: name });
    const found = await v5Templates.inspect(redis, target!, judge, limits);
    expect(found?.keys.map((k) => [k.key, k.role]).sort()).toEqual(
      [
        [layout.metadataKey({ name }), 'metadata'],
        [layout.eventsKey({ name }, 'success', HOUR_START), 'success events'],
        [layout.eventsKey({ name }, 'failure', HOUR_START + 3600), 'failure events'],
      ].sort(),
    );
    // The metadata hash holds the error JSON: its longest value is measured against the limit.
    const metadata = found?.keys.find((k) => k.role === 'metadata');
    expect(metadata?.limits).toMatchObject({ longestBytes: ERROR_JSON.length, longest: 'value of last_error_json' });
    expect(v5Templates.scanPatterns()).toEqual(['stoplight:v5:metadata:*', 'stoplight:v5:metrics:*:success:*', 'stoplight:v5:metrics:*:failure:*']);
  });
});

describe('references that swc lights prints, for a template layout with systems', () => {
  it('<system id>/<light id> as listed opens the light', async () => {
    const name = uniqueName('tpl-ref');
    const light = { name, system: 'billing' };
    const client = await LayoutClient.open(redis, new StoplightV6());
    await client.recordSuccess(light, { at: HOUR_START, windowSeconds: 60 });
    const owner = v6Templates.lightOfKey(new StoplightV6().metricsKey(light));
    expect(owner).not.toBeNull();
    const reference = `${owner?.system}/${owner?.light}`;
    const [target] = v6Templates.targetsFor({ light: reference });
    const { limits } = await readEncodingLimits(redis);
    const found = await v6Templates.inspect(redis, target as never, judge, limits);
    expect(found?.keys.map((k) => k.key)).toEqual([new StoplightV6().metricsKey(light), new StoplightV6().indexKey(light)]);
  });
});
