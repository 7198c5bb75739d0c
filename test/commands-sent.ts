/**
 * What the Redis commands inspect and lights send are checked against: the
 * lists docs/inspect.md gives, and a server of the file's own holding lights of
 * both layouts, whose commandstats count what a run sent. Shared by
 * test/cli/redis-commands.test.ts (spawned) and
 * test/integration/commands/redis-commands.test.ts (in-process).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { beforeAll, expect } from 'vitest';
import { LayoutClient } from '../src/layouts/client.js';
import { StoplightV5 } from '../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../src/layouts/stoplight/v6.js';
import { HOUR_START, ownServer } from './helpers.js';

// The list lives in docs/inspect.md, the manual page of inspect and lights.
const README = readFileSync(fileURLToPath(new URL('../docs/inspect.md', import.meta.url)), 'utf8');
const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';

/** The list docs/inspect.md gives for a command: `Commands \`inspect\` sends: A, B C, D.` */
export function claimed(command: string): string[] {
  const match = new RegExp(`^Commands \`${command}\` sends: (.+)\\.$`, 'm').exec(README);
  expect(match, `docs/inspect.md line for ${command}`).not.toBeNull();
  return (match?.[1] ?? '')
    .split(', ')
    .map((c) => c.trim().toLowerCase().replace(' ', '|'))
    .sort();
}

/** Runs `swc …` to its end, spawned or in-process. */
export type Runner = (args: readonly string[]) => Promise<{ code: number | null; stderr: string }>;

export interface CommandsServer {
  /** A connection to the server, for its key count. */
  redis(): Redis;
  /** The commands the server ran while `args` ran against it (commandstats after a reset; the reset itself left out). */
  commandsOf(run: Runner, args: readonly string[]): Promise<string[]>;
}

/**
 * A server of the calling file's own (INFO commandstats counts every client's
 * commands) holding a light `checkout` of each layout, with a success and a
 * failure, and a 6.0 light `search` of system `payments` (found by name only by a walk).
 */
export function commandsServer(): CommandsServer {
  let url = '';
  let redis: Redis | undefined;
  ownServer((server, connection) => {
    url = server.url;
    redis = connection;
  });
  const connection = (): Redis => {
    if (!redis) throw new Error('the commands server has not started');
    return redis;
  };
  // After ownServer's: hooks run in the order they were added.
  beforeAll(async () => {
    for (const layout of [new StoplightV5(), new StoplightV6()]) {
      const client = await LayoutClient.open(connection(), layout);
      await client.recordSuccess({ name: 'checkout' }, { at: HOUR_START, windowSeconds: 60 });
      await client.recordFailure({ name: 'checkout' }, { at: HOUR_START + 1, windowSeconds: 60, errorJson: ERROR_JSON });
    }
    await (
      await LayoutClient.open(connection(), new StoplightV6())
    ).recordSuccess({ name: 'search', system: 'payments' }, { at: HOUR_START, windowSeconds: 60 });
  });
  return {
    redis: connection,
    async commandsOf(run, args) {
      await connection().config('RESETSTAT');
      const result = await run([...args, '--redis-url', url]);
      expect(result.code, result.stderr).toBe(0);
      const stats = await connection().info('commandstats');
      return [...stats.matchAll(/^cmdstat_([^:]+):/gm)]
        .map((m) => m[1] as string)
        .filter((c) => c !== 'config|resetstat' && c !== 'info')
        .sort();
    },
  };
}
