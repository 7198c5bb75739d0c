import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../src/layouts/client.js';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import { connect } from '../../src/redis/connect.js';
import { startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { HOUR_START } from '../helpers.js';
import { runCli } from './run-cli.js';

// The list lives in docs/inspect.md, the manual page of inspect and lights.
const README = readFileSync(fileURLToPath(new URL('../../docs/inspect.md', import.meta.url)), 'utf8');
const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';

/** The list docs/inspect.md gives for a command: `Commands \`inspect\` sends: A, B C, D.` */
function claimed(command: string): string[] {
  const match = new RegExp(`^Commands \`${command}\` sends: (.+)\\.$`, 'm').exec(README);
  expect(match, `docs/inspect.md line for ${command}`).not.toBeNull();
  return (match?.[1] ?? '')
    .split(', ')
    .map((c) => c.trim().toLowerCase().replace(' ', '|'))
    .sort();
}

let server: PrivateServer;
let redis: Redis;

// A server of its own: INFO commandstats counts every client's commands.
beforeAll(async () => {
  server = await startPrivateServer();
  redis = await connect(server.url);
  for (const layout of [new StoplightV5(), new StoplightV6()]) {
    const client = await LayoutClient.open(redis, layout);
    await client.recordSuccess({ name: 'checkout' }, { at: HOUR_START, windowSeconds: 60 });
    await client.recordFailure({ name: 'checkout' }, { at: HOUR_START + 1, windowSeconds: 60, errorJson: ERROR_JSON });
  }
}, 30_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** The commands the server ran while `args` ran (commandstats after a reset; the reset itself left out). */
async function commandsOf(args: string[]): Promise<string[]> {
  await redis.config('RESETSTAT');
  const run = await runCli([...args, '--redis-url', server.url]);
  expect(run.code, run.stderr).toBe(0);
  const stats = (await redis.info('commandstats')) as string;
  return [...stats.matchAll(/^cmdstat_([^:]+):/gm)]
    .map((m) => m[1] as string)
    .filter((c) => c !== 'config|resetstat' && c !== 'info')
    .sort();
}

describe('the README names exactly the Redis commands inspect and lights send', () => {
  it('inspect (both layouts, with and without a window)', async () => {
    const sent = new Set([...(await commandsOf(['inspect', 'checkout', '--window', '60'])), ...(await commandsOf(['inspect', 'checkout', '--json']))]);
    expect([...sent].sort()).toEqual(claimed('inspect'));
  });

  it('lights (with a window, every format the same)', async () => {
    const sent = await commandsOf(['lights', '--window', '60']);
    expect(sent).toEqual(claimed('lights'));
  });

  it('each --help lists the same commands as the README', async () => {
    for (const command of ['inspect', 'lights']) {
      const help = (await runCli([command, '--help'])).stdout.replace(/\s+/g, ' ');
      const listed = /Commands sent: ([A-Z ,]+?)\.? \(|Commands sent: ([A-Z ,]+)\./.exec(help);
      const names = (listed?.[1] ?? listed?.[2] ?? '')
        .split(', ')
        .map((c) => c.trim().toLowerCase().replace(' ', '|'))
        .sort();
      expect(names, command).toEqual(claimed(command));
    }
  });

  it('neither writes: no script, no write command, the keys unchanged', async () => {
    const before = await redis.dbsize();
    const sent = [...(await commandsOf(['inspect', 'checkout'])), ...(await commandsOf(['lights']))];
    expect(sent.filter((c) => /^(eval|evalsha|fcall|set|hset|hincrby|zadd|del|unlink|expire|hdel|zrem)/.test(c))).toEqual([]);
    expect(await redis.dbsize()).toBe(before);
  });
});

describe('a renamed command is named for what it is', () => {
  it('INFO renamed away: bench exit 3 naming INFO, not "EVALSHA and SCRIPT LOAD"', async () => {
    const result = await runCli(['bench', '--rate', '1', '--window', '60', '--lights', '1', '--no-throughput', '--redis-server-arg', 'rename-command=INFO ""']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^swc: Redis does not offer the INFO command .*: swc needs INFO; use a server that allows it/m);
    expect(result.stderr).not.toMatch(/EVALSHA and SCRIPT LOAD/);
  });
});
