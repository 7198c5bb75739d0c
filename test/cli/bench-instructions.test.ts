import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../src/measure/types.js';
import { hasValgrind, redisUrl } from '../helpers.js';
import { runCli, words } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'swc-instructions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const where = (name: string): string | undefined => {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
};

describe('swc bench --instructions: refusals', () => {
  it('refuses --redis-url with exit 2: valgrind must own the server process', async () => {
    const r = await runCli(['bench', '--instructions', '--redis-url', redisUrl(), '--window', '10', '--rate', '1', '--no-throughput', '--no-accuracy']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--instructions: not with --redis-url: valgrind must start and own the server process/);
    // --profile counts too, so it is refused the same way.
    const p = await runCli(['bench', '--profile', '--redis-url', redisUrl(), '--window', '10', '--rate', '1']);
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/--profile: not with --redis-url/);
  });

  it("without valgrind on PATH: one line naming Debian's valgrind package, exit 3", async () => {
    // A PATH holding redis-server only (node runs by its absolute path).
    const bin = join(dir, 'bin');
    execFileSync('mkdir', ['-p', bin]);
    const server = where('redis-server');
    if (server) symlinkSync(server, join(bin, 'redis-server'));
    const r = await runCli(['bench', '--instructions', '--window', '10', '--rate', '1', '--no-throughput', '--no-accuracy'], { PATH: bin });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/valgrind not found on PATH; install Debian's valgrind package \(apt-get install -y valgrind\)/);
  });

  it('refuses --instruction-calls without --instructions (exit 2)', async () => {
    const r = await runCli(['bench', '--instruction-calls', '100', '--window', '10', '--rate', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--instruction-calls: sets the instruction count; add --instructions/);
  });
});

// Slow (valgrind starts in seconds and runs the server 40× slower): one small case.
describe.skipIf(!hasValgrind)('swc bench --instructions under valgrind', () => {
  it('counts a 6.0 write, read and request, with repeats and a profile', async () => {
    const r = await runCli(
      [
        ...words(
          'bench --layout stoplight-v6 --window 10 --rate 10 --no-throughput --no-accuracy --profile --instruction-calls 20 --instruction-repeats 2 --json --no-progress',
        ),
      ],
      {},
      240_000,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as BenchReport;
    const counts = report.results[0]?.instructions;
    expect(counts).toBeDefined();
    for (const op of ['write', 'read', 'request'] as const) {
      const c = counts?.[op];
      expect(c?.repeats).toHaveLength(2);
      // 6.0's scripts run tens of thousands of instructions per call on 7.x; nothing near zero or millions.
      expect(c?.instructionsPerCall).toBeGreaterThan(10_000);
      expect(c?.instructionsPerCall).toBeLessThan(1_000_000);
    }
    // A request is a read and a write.
    expect(counts?.request.instructionsPerCall).toBeGreaterThan(counts?.read.instructionsPerCall ?? Infinity);
    expect(counts?.profile?.write.length).toBeGreaterThan(0);
    expect(counts?.profile?.write.every((e) => e.inclusiveShare > 0 && e.inclusiveShare < 1)).toBe(true);
  }, 300_000);
});

/** A small bench that counts instructions, with `binary` as the server build. */
const countWith = (binary: string): Promise<Awaited<ReturnType<typeof runCli>>> =>
  runCli(
    [
      'bench',
      '--redis-server',
      binary,
      '--layout',
      'stoplight-v6',
      '--window',
      '10',
      '--rate',
      '2',
      '--no-throughput',
      '--no-accuracy',
      '--instructions',
      '--instruction-calls',
      '10',
      '--instruction-repeats',
      '1',
      '--json',
      '--no-progress',
    ],
    {},
    240_000,
  );

// A wrapper runs under valgrind in the server's place, and the server it starts runs outside the count: 0 instructions per call, exit 0, before.
describe.skipIf(!hasValgrind || !where('redis-server'))('swc bench --instructions with a --redis-server wrapper it cannot count through', () => {
  it('a script wrapper (#!): exit 2 at plan time, one line, no figure', async () => {
    const wrapper = join(dir, 'redis-wrapper.sh');
    writeFileSync(wrapper, `#!/bin/sh\nexec ${where('redis-server') as string} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const r = await countWith(wrapper);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^swc: --instructions: the server binary .*redis-wrapper\.sh is a script \(#!\), not redis-server itself/),
    ]);
  });

  it.skipIf(!where('cc'))(
    'a binary wrapper that starts the server as its child: exit 3 at the first count, never 0 per call',
    async () => {
      const source = join(dir, 'fork-wrapper.c');
      const wrapper = join(dir, 'fork-wrapper');
      writeFileSync(
        source,
        [
          '#include <sys/wait.h>',
          '#include <unistd.h>',
          'int main(int argc, char **argv) {',
          '  (void)argc;',
          '  pid_t child = fork();',
          `  if (child == 0) { execv("${where('redis-server') as string}", argv); _exit(127); }`,
          '  int status = 0;',
          '  waitpid(child, &status, 0);',
          '  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;',
          '}',
          '',
        ].join('\n'),
      );
      execFileSync('cc', ['-o', wrapper, source]);
      const r = await countWith(wrapper);
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/--instructions: callgrind counted 0 instructions in redis-server's call\(\) over 10 calls the server answered/);
    },
    300_000,
  );
});
