import { expect } from 'vitest';
import { runInProcess, type InProcessResult } from './in-process.js';

/** The password under test: it must appear in no output of any case. */
export const PASSWORD = 'Pw4Leak9Check';

/** The commands that take a Redis URL. */
export const COMMANDS: string[][] = [
  ['doctor'],
  ['bench', '--rate', '1', '--window', '10', '--no-throughput', '--no-progress'],
  ['inspect', 'no-such-light'],
  ['lights'],
];

/** Neither the password nor its URL-encoded form in any output; stderr only swc's own lines, never a stack trace. */
export function expectNoSecret(result: InProcessResult, label: string): void {
  const all = result.stdout + result.stderr;
  expect(all, label).not.toContain(PASSWORD);
  expect(all, label).not.toContain(encodeURIComponent(PASSWORD));
  for (const line of result.stderr.split('\n').filter(Boolean)) expect(line, label).toMatch(/^swc[: ]/);
}

/** Runs every command in-process with `url` from the flag and from REDIS_URL; checks the exit code, `also` when given, and greps all output. */
export async function everyCommand(url: string, code: number, also?: (result: InProcessResult, label: string) => void): Promise<void> {
  for (const command of COMMANDS) {
    for (const [how, args, env] of [
      ['--redis-url', [...command, '--redis-url', url], {}],
      ['REDIS_URL', command, { REDIS_URL: url, SWC_USE_REDIS_URL: '1' }],
    ] as const) {
      const result = await runInProcess(args, env);
      const label = `${command[0]} via ${how}: ${result.stderr}`;
      expect(result.code, label).toBe(code);
      also?.(result, label);
      expectNoSecret(result, label);
    }
  }
}
