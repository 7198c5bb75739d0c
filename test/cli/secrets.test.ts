import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { redisUrl } from '../helpers.js';
import { runCli, type CliResult } from './run-cli.js';

/** The password under test: it must appear in no output of any case. */
const PASSWORD = 'Pw4Leak9Check';

let locked: PrivateServer;
let closedPort: number;
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-secrets-'));
beforeAll(async () => {
  // A server whose password is not PASSWORD: every attempt below is a wrong password.
  locked = await startPrivateServer({ settings: ['requirepass=another-one'] });
  closedPort = await freePort();
});
afterAll(async () => {
  await locked.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The test server's host:port, with a password spliced in. */
function open(form: (hostPort: string) => string): string {
  return form(new URL(redisUrl()).host);
}

function expectNoSecret(result: CliResult, label: string): void {
  const all = result.stdout + result.stderr;
  expect(all, label).not.toContain(PASSWORD);
  expect(all, label).not.toContain(encodeURIComponent(PASSWORD));
  // Whatever went wrong, stderr is swc's own one-line messages, never a stack trace.
  for (const line of result.stderr.split('\n').filter(Boolean)) expect(line, label).toMatch(/^swc[: ]/);
}

const COMMANDS: string[][] = [
  ['doctor'],
  ['bench', '--rate', '1', '--window', '10', '--no-throughput', '--no-progress'],
  ['inspect', 'no-such-light'],
  ['lights'],
];

/** Runs every command with the URL from the flag and from REDIS_URL; checks the codes and greps all output. */
async function everyCommand(url: string, codes: readonly number[]): Promise<void> {
  for (const command of COMMANDS) {
    for (const [how, args, env] of [
      ['--redis-url', [...command, '--redis-url', url], {}],
      ['REDIS_URL', command, { REDIS_URL: url }],
    ] as const) {
      const result = await runCli(args, env);
      const label = `${command[0]} via ${how}: ${result.stderr}`;
      expect(codes, label).toContain(result.code);
      expectNoSecret(result, label);
    }
  }
}

describe('a password in a Redis URL is never printed', () => {
  it.each([
    ['no colon after the scheme', `redis//:${PASSWORD}@127.0.0.1:6379`],
    ['a port out of range', `redis://:${PASSWORD}@127.0.0.1:99999`],
    ['a database that is not a number', `redis://:${PASSWORD}@127.0.0.1:6379/abc`],
    ['an unsupported scheme', `http://user:${PASSWORD}@127.0.0.1:6379`],
    ['a slash in the password', `redis://:ab/${PASSWORD}@127.0.0.1:6379`],
    ['user-info without a host', `redis://:${PASSWORD}@`],
    ['?password= with a bad port', `redis://127.0.0.1:99999?password=${PASSWORD}`],
  ])('malformed URL (%s): exit 2 from every command, flag or REDIS_URL', async (_, url) => {
    await everyCommand(url, [2]);
  });

  it.each([
    ['in user-info', (port: number) => `redis://:${PASSWORD}@127.0.0.1:${port}`],
    ['with a user name', (port: number) => `redis://default:${PASSWORD}@127.0.0.1:${port}`],
    ['as ?password=', (port: number) => `redis://127.0.0.1:${port}?password=${PASSWORD}`],
  ])('wrong password %s: exit 3 from every command', async (_, url) => {
    await everyCommand(url(locked.port), [3]);
  });

  it('unreachable server, password in the URL: exit 3 from every command', async () => {
    await everyCommand(`redis://:${PASSWORD}@127.0.0.1:${closedPort}`, [3]);
    await everyCommand(`redis://u:${PASSWORD}@no-such-host.invalid:6379?password=${PASSWORD}`, [3]);
  });

  it('a password sent to a server that has none: the commands run, client warnings are swc lines without it', async () => {
    // doctor 0, bench 0, inspect 1 (no such light), lights 0.
    await everyCommand(
      open((h) => `redis://:${PASSWORD}@${h}`),
      [0, 1],
    );
    await everyCommand(
      open((h) => `redis://${h}/0?password=${PASSWORD}`),
      [0, 1],
    );
  });

  it('doctor names the server redacted, in its header and in its JSON', async () => {
    const url = open((h) => `redis://admin:${PASSWORD}@${h}/0?password=${PASSWORD}`);
    const human = await runCli(['doctor', '--redis-url', url.replace('admin:', ':')]);
    expectNoSecret(human, human.stdout);
    expect(human.stdout).toContain(`redis://:***@${new URL(redisUrl()).host}/0?password=***`);
    const json = await runCli(['doctor', '--json'], { REDIS_URL: url.replace('admin:', ':') });
    expectNoSecret(json, json.stdout);
    expect((JSON.parse(json.stdout) as { redis: { url: string } }).redis.url).toContain('password=***');
  });

  it('compare does not show a URL that a result file carries in its options', async () => {
    const baseline = JSON.parse(readFileSync(fileURLToPath(new URL('../../fixtures/baselines/small.json', import.meta.url)), 'utf8')) as Record<
      string,
      unknown
    >;
    const withUrl = { ...baseline, options: { ...(baseline.options as object), redisUrl: `redis://:${PASSWORD}@10.0.0.1:6379`, seed: 99 } };
    const file = path.join(dir, 'with-url.json');
    writeFileSync(file, JSON.stringify(withUrl));
    for (const args of [
      ['compare', file, file],
      ['compare', fileURLToPath(new URL('../../fixtures/baselines/small.json', import.meta.url)), file, '--json'],
    ]) {
      const result = await runCli(args);
      expect([0, 1]).toContain(result.code);
      expectNoSecret(result, args.join(' '));
    }
  });
});
