import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/redis/server.js';
import { redisUrl } from '../helpers.js';
import { runCli, type CliResult } from './run-cli.js';

/** The password under test: it must appear in no output of any case. */
const PASSWORD = 'Pw4Leak9Check';

let closedPort: number;
beforeAll(async () => {
  closedPort = await freePort();
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

/** Each command's exit code: one per command. */
type Codes = Record<'doctor' | 'bench' | 'inspect' | 'lights', number>;

/**
 * Runs every command with the URL from the flag and from REDIS_URL, all at
 * once (they share nothing); checks each command's exit code and greps all output.
 * `ways` picks which of the two ways to pass the URL run.
 */
async function everyCommand(url: string, codes: Codes, ways: readonly ('--redis-url' | 'REDIS_URL')[] = ['--redis-url', 'REDIS_URL']): Promise<void> {
  const runs = COMMANDS.flatMap((command) =>
    ways.map(async (how) => {
      const result = how === '--redis-url' ? await runCli([...command, '--redis-url', url]) : await runCli(command, { REDIS_URL: url });
      return { result, expected: codes[command[0] as keyof Codes], label: `${command[0]} via ${how}: ${result.stderr}` };
    }),
  );
  for (const { result, expected, label } of await Promise.all(runs)) {
    expect(result.code, label).toBe(expected);
    expectNoSecret(result, label);
  }
}

/** A reachable server that needs no password: each command runs; inspect finds no such light. */
const RUN_CODES: Codes = { doctor: 0, bench: 0, inspect: 1, lights: 0 };

// What only a process shows is checked here, per command and way: the exit
// of a failed connection (its client timers would hold a process open) and
// the client's warnings, which src/cli.ts turns into swc lines. The cases
// that run the same program and error path as in-process are there only:
// every malformed form (exit 2) in test/unit/commands/secrets.test.ts; the
// wrong-password forms (exit 3), the unresolvable host, doctor's redacted
// header and JSON in test/integration/commands/secrets.test.ts; compare's
// options in the unit file. Each run registers its own URL's secrets
// (src/commands/options.ts), so a run in a test process is scrubbed no more
// than a fresh one.
describe('a password in a Redis URL is never printed', () => {
  it('unreachable server, password in the URL: exit 3 from every command', async () => {
    await everyCommand(`redis://:${PASSWORD}@127.0.0.1:${closedPort}`, { doctor: 3, bench: 3, inspect: 3, lights: 3 });
  });

  it('a password sent to a server that has none: the commands run, client warnings are swc lines without it', async () => {
    // inspect exits 1 (no such light), the others 0. The client's
    // warning is turned into an swc line by the process itself (bin/swc.js),
    // so this stays a spawn: each form with every command, each way with every command.
    await everyCommand(
      open((h) => `redis://:${PASSWORD}@${h}`),
      RUN_CODES,
      ['--redis-url'],
    );
    await everyCommand(
      open((h) => `redis://${h}/0?password=${PASSWORD}`),
      RUN_CODES,
      ['REDIS_URL'],
    );
  });
});
