import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../src/layouts/client.js';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { visible } from '../../src/report/style.js';
import { runCli } from './run-cli.js';
import { HOUR_START, redisUrl, testRedis, uniqueName } from '../helpers.js';

/** Clears the screen and returns the cursor to the line start, if a terminal gets it raw. */
const HOSTILE = '\x1b[2J\r';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

describe('visible()', () => {
  it('shows ESC, CR, BEL, NUL, DEL and C1 controls as \\xHH and leaves other text alone', () => {
    expect(visible('a\x1b[2Jb\rc\x07d\x00e\x7ff\x9bg')).toBe('a\\x1b[2Jb\\x0dc\\x07d\\x00e\\x7ff\\x9bg');
    expect(visible('plain: ünïcödé {tag} \\ 100%')).toBe('plain: ünïcödé {tag} \\ 100%');
  });
});

describe.concurrent('key and light names with terminal control characters', () => {
  it('inspect and lights print them escaped in tables and exact in JSON', async () => {
    const name = `${uniqueName('esc')}${HOSTILE}x`;
    const client = await LayoutClient.open(redis, new StoplightV5());
    const errorJson = JSON.stringify({ error: { class: `Boom${HOSTILE}`, message: 'bell\x07' }, time: HOUR_START });
    await client.recordFailure({ name }, { at: HOUR_START, windowSeconds: 60, errorJson });

    // Four read-only runs: at once.
    const [table, json, lights, listedRun] = await Promise.all([
      runCli(['inspect', name, '--redis-url', redisUrl(), '--at', String(HOUR_START)]),
      runCli(['inspect', name, '--redis-url', redisUrl(), '--json', '--at', String(HOUR_START)]),
      runCli(['lights', '--redis-url', redisUrl()]),
      runCli(['lights', '--redis-url', redisUrl(), '--json']),
    ]);
    expect(table.code).toBe(0);
    // NO_COLOR is set, so any ESC or CR on stdout would come from the data.
    expect(table.stdout).not.toMatch(/[\x1b\r\x07]/);
    expect(table.stdout).toContain(visible(name));
    expect(table.stdout).toContain(`stoplight:v5:metadata:${visible(name)}`);
    expect(table.stdout).toContain('Boom\\x1b[2J\\x0d: bell\\x07');

    const doc = (JSON.parse(json.stdout) as { inspections: { light: string; keys: { key: string }[]; metadata: { fields: Record<string, string> } }[] })
      .inspections[0] as { light: string; keys: { key: string }[]; metadata: { fields: Record<string, string> } };
    expect(doc.light).toBe(name);
    expect(doc.keys[0]?.key).toBe(`stoplight:v5:metadata:${name}`);
    expect(doc.metadata.fields.last_error_json).toBe(errorJson);

    expect(lights.code).toBe(0);
    expect(lights.stdout).not.toMatch(/[\x1b\r]/);
    expect(lights.stdout).toContain(visible(name));
    const listed = JSON.parse(listedRun.stdout) as { lights: { light: string }[] };
    expect(listed.lights.map((l) => l.light)).toContain(name);
  });

  it('a missing light with control characters is named escaped in the error', async () => {
    const run = await runCli(['inspect', `nope${HOSTILE}`, '--redis-url', redisUrl()]);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/[\x1b\r]/);
    expect(run.stderr).toContain('light "nope\\x1b[2J\\x0d" not found: no key stoplight:v5:metadata:nope\\x1b[2J\\x0d,');
  });
});
