/** `swc inspect --list` is `swc lights`: it takes every flag lights takes. */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../src/layouts/client.js';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { inspectListAsLights } from '../../src/commands/program.js';
import type { PrivateServer } from '../../src/redis/server.js';
import { HOUR_START, ownServer } from '../helpers.js';
import { runCli } from './run-cli.js';

let server: PrivateServer;
let connection: Redis;
ownServer((s, redis) => {
  server = s;
  connection = redis;
});

beforeAll(async () => {
  const client = await LayoutClient.open(connection, new StoplightV5());
  for (const name of ['a', 'b', 'c', 'd', 'e']) await client.recordSuccess({ name }, { at: HOUR_START, windowSeconds: 60 });
});

describe('inspect --list', () => {
  it('--top 3 exits 0 and shows 3 of the 5 lights, as lights --top 3 does', async () => {
    const [list, lights] = await Promise.all([
      // One moment for both (idle seconds follow the clock otherwise).
      runCli(['inspect', '--list', '--top', '3', '--at', String(HOUR_START + 10), '--redis-url', server.url, '--json']),
      runCli(['lights', '--top', '3', '--at', String(HOUR_START + 10), '--redis-url', server.url, '--json']),
    ]);
    expect(list.code, list.stderr).toBe(0);
    const shown = JSON.parse(list.stdout) as { matched: number; lights: unknown[] };
    expect(shown).toMatchObject({ matched: 5 });
    expect(shown.lights).toHaveLength(3);
    expect((JSON.parse(lights.stdout) as { lights: unknown[] }).lights).toEqual(shown.lights);
  });

  it('argv: inspect and --list become lights; --layout auto is dropped; anything after -- is left alone', () => {
    const node = ['node', 'swc'];
    expect(inspectListAsLights([...node, 'inspect', '--list', '--top', '3'])).toEqual([...node, 'lights', '--top', '3']);
    expect(inspectListAsLights([...node, 'inspect', '--layout', 'auto', '--list'])).toEqual([...node, 'lights']);
    expect(inspectListAsLights([...node, 'inspect', 'checkout', '--', '--list'])).toEqual([...node, 'inspect', 'checkout', '--', '--list']);
    expect(inspectListAsLights([...node, 'lights', '--list'])).toEqual([...node, 'lights', '--list']);
  });
});
