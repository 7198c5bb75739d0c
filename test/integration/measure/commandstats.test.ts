import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { parseScriptCommandStats, readScriptCommandStats, scriptCommandDelta } from '../../../src/measure/commandstats.js';
import { installScripts, runScript } from '../../../src/redis/scripts.js';
import { HOUR_START, testRedis, uniqueName } from '../../helpers.js';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

describe('script commandstats', () => {
  it('sums EVALSHA and EVAL and treats a missing line as zero', () => {
    const text = [
      '# Commandstats',
      'cmdstat_evalsha:calls=10,usec=250,usec_per_call=25.00,rejected_calls=0,failed_calls=1',
      'cmdstat_eval:calls=2,usec=50,usec_per_call=25.00,rejected_calls=0,failed_calls=0',
      'cmdstat_get:calls=99,usec=99,usec_per_call=1.00,rejected_calls=0,failed_calls=0',
    ].join('\r\n');
    expect(parseScriptCommandStats(text)).toEqual({ calls: 12, usec: 300 });
    expect(parseScriptCommandStats('# Commandstats\r\n')).toEqual({ calls: 0, usec: 0 });
    expect(parseScriptCommandStats('cmdstat_evalsha:garbage')).toBeNull();
  });

  it('takes deltas and gives up when counters went backwards or are missing', () => {
    expect(scriptCommandDelta({ calls: 10, usec: 100 }, { calls: 14, usec: 180 })).toEqual({
      calls: 4,
      usec: 80,
      usecPerCall: 20,
    });
    expect(scriptCommandDelta({ calls: 10, usec: 100 }, { calls: 10, usec: 100 })?.usecPerCall).toBeNull();
    expect(scriptCommandDelta({ calls: 10, usec: 100 }, { calls: 1, usec: 5 })).toBeNull();
    expect(scriptCommandDelta(null, { calls: 1, usec: 5 })).toBeNull();
  });

  it('sees our script calls on a live server', async () => {
    const layout = new StoplightV6();
    await installScripts(redis, layout.scripts);
    const light = { name: uniqueName('stats') };
    const before = await readScriptCommandStats(redis);
    for (let i = 0; i < 5; i += 1) await runScript(redis, layout.recordSuccess(light, { windowSeconds: 60, at: HOUR_START }));
    const delta = scriptCommandDelta(before, await readScriptCommandStats(redis));
    // Other test files share the server, so at least our five.
    expect(delta?.calls).toBeGreaterThanOrEqual(5);
    expect(delta?.usec).toBeGreaterThan(0);
  });
});
