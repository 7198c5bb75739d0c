import { describe, expect, it } from 'vitest';
import { shortId, StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { execPipeline, installScripts } from '../../../src/redis/scripts.js';
import { HOUR_START, withPrivateServer } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';

const v6 = new StoplightV6();
const light = { name: 'garbled', system: 'garbage' };
const reference = `${shortId(light.system)}/${shortId(light.name)}`;
const FIELDS = ['total_successes', 'total_failures', `bucket:${HOUR_START + 10}:s`, `bucket:${HOUR_START + 10}:f`];

describe('a 6.0 hash whose counters hold "abc"', () => {
  it.each(FIELDS)('%s: inspect --check and lights --check name the field, never print NaN', async (field) => {
    await withPrivateServer({}, async (server, redis) => {
      await installScripts(redis, v6.scripts);
      await execPipeline(redis, [
        v6.recordSuccess(light, { at: HOUR_START + 10, windowSeconds: 60 }),
        v6.recordFailure(light, { at: HOUR_START + 10, windowSeconds: 60, errorJson: '{}' }),
      ]);
      await redis.hset(v6.metricsKey(light), field, 'abc');
      const finding = `field ${field} holds "abc", not a count: counted as 0`;
      // One at a time: runInProcess captures the process's own stdout and stderr.
      const runs = [];
      for (const args of [
        ['inspect', reference, '--check'],
        ['inspect', reference, '--check', '--json'],
        ['lights', '--check'],
        ['lights', '--check', '--json'],
      ]) {
        runs.push(await runInProcess([...args, '--redis-url', server.url]));
      }
      for (const run of runs) {
        expect(run.stdout + run.stderr).not.toMatch(/NaN/);
        // Counted as 0, the field no longer agrees with the rest: drift, exit 1.
        expect(run.code).toBe(1);
      }
      const [inspectText, inspectJson, lightsText, lightsJson] = runs;
      expect(inspectText?.stderr).toContain(finding);
      expect(inspectJson?.stderr).toContain(finding);
      expect(lightsText?.stdout).toContain(finding);
      expect((JSON.parse(lightsJson?.stdout ?? '') as { problems: string[] }).problems.join('\n')).toContain(finding);
    });
  });
});
