import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { redisUrl } from '../helpers.js';
import { runCli, type CliResult } from './run-cli.js';

/** The password under test: it must appear in no output of any case. */
const PASSWORD = 'Pw4Leak9Check';

let locked: PrivateServer;
let closedPort: number;
beforeAll(async () => {
  // A server whose password is not PASSWORD: every attempt below is a wrong password.
  locked = await startPrivateServer({ settings: ['requirepass=another-one'] });
  closedPort = await freePort();
});
afterAll(async () => {
  await locked.stop();
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

/**
 * Runs every command with the URL from the flag and from REDIS_URL, all at
 * once (they share nothing); checks the codes and greps all output.
 * `ways` picks which of the two ways to pass the URL run.
 */
async function everyCommand(
  url: string,
  codes: readonly number[],
  ways: readonly ('--redis-url' | 'REDIS_URL')[] = ['--redis-url', 'REDIS_URL'],
): Promise<void> {
  const runs = COMMANDS.flatMap((command) =>
    ways.map(async (how) => {
      const result = how === '--redis-url' ? await runCli([...command, '--redis-url', url]) : await runCli(command, { REDIS_URL: url });
      return { result, label: `${command[0]} via ${how}: ${result.stderr}` };
    }),
  );
  for (const { result, label } of await Promise.all(runs)) {
    expect(codes, label).toContain(result.code);
    expectNoSecret(result, label);
  }
}

// What a process shows is checked here once per command and way: the exit
// code, and that nothing with the password reaches stdout or stderr. Every
// malformed form runs in-process in test/unit/commands/secrets.test.ts; the
// other wrong-password forms, the unresolvable host, doctor's redacted header
// and JSON and compare's options in test/integration/commands/secrets.test.ts
// and test/unit/commands/secrets.test.ts.
describe('a password in a Redis URL is never printed', () => {
  it('malformed URL (a port out of range): exit 2 from every command, flag or REDIS_URL', async () => {
    await everyCommand(`redis://:${PASSWORD}@127.0.0.1:99999`, [2]);
  });

  it('wrong password in user-info: exit 3 from every command', async () => {
    await everyCommand(`redis://:${PASSWORD}@127.0.0.1:${locked.port}`, [3]);
  });

  it('unreachable server, password in the URL: exit 3 from every command', async () => {
    await everyCommand(`redis://:${PASSWORD}@127.0.0.1:${closedPort}`, [3]);
  });

  it('a password sent to a server that has none: the commands run, client warnings are swc lines without it', async () => {
    // doctor 0, bench 0, inspect 1 (no such light), lights 0. The client's
    // warning is turned into an swc line by the process itself (bin/swc.js),
    // so this stays a spawn: each form with every command, each way with every command.
    await everyCommand(
      open((h) => `redis://:${PASSWORD}@${h}`),
      [0, 1],
      ['--redis-url'],
    );
    await everyCommand(
      open((h) => `redis://${h}/0?password=${PASSWORD}`),
      [0, 1],
      ['REDIS_URL'],
    );
  });
});
