import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { LayoutClient } from '../../src/layouts/client.js';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import { connect } from '../../src/redis/connect.js';
import { startPrivateServer } from '../../src/redis/server.js';
import { HOUR_START, uniqueName, digest, keysMatching, withPrivateServer } from '../helpers.js';
import { runCli, RUN_LINE, startCli, type CliResult, words } from './run-cli.js';
import { plantRefusedZero } from '../integration/verify/plant.js';

/** Real-looking data of somebody else: plain keys and Stoplight keys of other lights. */
async function seedUserData(redis: Redis, tag: string): Promise<string> {
  await redis.set(`${tag}:plain`, 'keep me');
  await redis.hset(`${tag}:hash`, { a: '1', b: '2' });
  await redis.zadd(`${tag}:zset`, 1, 'x', 2, 'y');
  await redis.expire(`${tag}:hash`, 3600);
  const v5 = await LayoutClient.open(redis, new StoplightV5({ prefix: `${tag}:stoplight:v5` }));
  const v6 = await LayoutClient.open(redis, new StoplightV6({ prefix: `${tag}:stoplight:v6` }));
  for (let i = 0; i < 50; i += 1) {
    await v5.recordSuccess({ name: 'checkout' }, { at: HOUR_START + i, windowSeconds: 60 });
    await v6.recordFailure({ name: 'checkout' }, { at: HOUR_START + i, windowSeconds: 60, errorJson: '{"e":1}' });
  }
  return `${tag}:*`;
}

/** Starts `swc bench --no-throughput`; `firstCell` resolves once its first cell's result line is on stderr. */
function startBench(args: string[]) {
  const run = startCli(['bench', '--no-throughput', ...args]);
  const firstCell = run.waitFor(/^swc bench: \[1\/\d+\] .* KB per light/m);
  return { child: run.child, firstCell, exited: run.exited, stderr: run.stderr };
}

// Each case has a server of its own (runs on one server take turns): the cases run at once.
describe.concurrent('bench leaves other data alone', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)("%s after the first cell: exits %i, other keys byte-identical, none of the run's keys remain", async (signal, code) => {
    await withPrivateServer({}, async (server, redis) => {
      const pattern = await seedUserData(redis, uniqueName('user'));
      const before = await digest(redis, pattern);
      const run = startBench(['--redis-url', server.url, '--preset', 'blog']);
      await run.firstCell;
      run.child.kill(signal);
      const { code: exitCode } = await run.exited;
      expect(exitCode).toBe(code);
      const namespace = /swc-bench:[0-9a-f]{8}/.exec(run.stderr())?.[0];
      expect(namespace).toBeDefined();
      expect(await keysMatching(redis, `${namespace}:*`)).toEqual([]);
      expect(await digest(redis, pattern)).toEqual(before);
    });
  });

  it("SIGINT in the write throughput phase: exit 130 at once, user keys byte-identical, none of the run's keys remain", async () => {
    await withPrivateServer({}, async (server, redis) => {
      const pattern = await seedUserData(redis, uniqueName('user'));
      const before = await digest(redis, pattern);
      // A 300 s phase: a run that waited for its end instead of stopping on the signal would pass the test's timeout.
      const run = startCli(['bench', '--redis-url', server.url, '--rate', '10', '--window', '1m', '--time', '300']);
      const [, namespace] = (await run.waitFor(RUN_LINE)) as unknown as [string, string];
      await run.waitFor(/write throughput phase/);
      run.child.kill('SIGINT');
      expect((await run.exited).code).toBe(130);
      expect(await keysMatching(redis, `${namespace}:*`)).toEqual([]);
      expect(await digest(redis, pattern)).toEqual(before);
    });
  });

  it("a complete run: exit 0, other keys byte-identical, none of the run's keys remain", async () => {
    await withPrivateServer({}, async (server, redis) => {
      const pattern = await seedUserData(redis, uniqueName('user'));
      const before = await digest(redis, pattern);
      const result = await runCli(['bench', '--redis-url', server.url, '--rate', '10', '--window', '1m,3m', '--ops', '300']);
      expect(result.code).toBe(0);
      const namespace = /swc-bench:[0-9a-f]{8}/.exec(result.stderr)?.[0];
      expect(await keysMatching(redis, `${namespace}:*`)).toEqual([]);
      expect(await digest(redis, pattern)).toEqual(before);
    });
  });
});

// Each of these runs on a server of its own (a private one swc starts, or the test's): they run at once.
describe.concurrent('bench on servers of their own', () => {
  describe.concurrent('bench when a script fails after the memory phase', () => {
    it('exit 3; the memory table on stdout marked incomplete; on stderr the "-0" rejection named as verify names it, and the ways out', async () => {
      const dir = plantRefusedZero();
      const run = await runCli([
        'bench',
        '--scripts',
        dir,
        ...words('--layout stoplight-v6 --window 60 --rate 10 --failure-rate 0 --no-throughput --no-progress'),
      ]);
      expect(run.code).toBe(3);
      // The first phase after memory that calls the scripts again is commands per call.
      expect(run.stdout).toMatch(
        /^Server: a private redis-server that swc started and stopped\b.*\n\nINCOMPLETE: stoplight-v6's script failed in its commands-per-call phase \("-0" rejected\)/,
      );
      expect(run.stdout).toMatch(/Memory per light[\s\S]*1 min\s*│\s*10\s*│\s*600\s*│\s*\d+\.\d/);
      expect(run.stdout).not.toMatch(/not an integer/);
      expect(run.stderr).toMatch(/swc bench: incomplete: stoplight-v6's script failed in its commands-per-call phase: "-0" rejected/);
      expect(run.stderr).toMatch(/the server received: HINCRBY "stoplight:v6:[^"]*window_metrics" "total_failures" "-0"/);
      expect(run.stderr).toMatch(/ERR value is not an integer/);
      expect(run.stderr).toContain('ways out: --no-commands --no-accuracy to measure memory only');
      expect(run.stderr).toContain('--redis-server <a Redis 7.2+ build>');
      expect(run.stderr).toContain(`swc verify --scripts ${dir} --layout stoplight-v6`);
    });
  });

  describe.concurrent('bench when the server fails', () => {
    it('the server dies after the first cell: exit 3 from the closed connection, one line saying how far it got, no stack trace', async () => {
      const server = await startPrivateServer();
      const run = startBench(['--redis-url', server.url, '--preset', 'blog']);
      await run.firstCell;
      process.kill(server.pid, 'SIGKILL');
      const { code } = await run.exited;
      await server.stop();
      expect(code).toBe(3);
      // Stopped by the close, not by a command's reply timeout (30 s), whose line says "no reply within".
      expect(run.stderr()).not.toMatch(/no reply within/);
      expect(run.stderr()).toMatch(/^swc: .*Redis.*in cell \d+\/16 .* after [\d,]+ of [\d,]+ events/m);
      expect(run.stderr()).not.toMatch(/\n\s+at /);
    });

    it('maxmemory with noeviction and --allow-eviction: the OOM is one clear line naming the cell, exit 3, own keys removed', async () => {
      const server = await startPrivateServer({ settings: ['maxmemory=3mb', 'maxmemory-policy=noeviction'] });
      const own = await connect(server.url);
      try {
        await own.set('user:precious', 'x');
        const result = await runCli(['bench', '--redis-url', server.url, '--rate', '100', '--window', '10m', '--no-throughput', '--allow-eviction']);
        expect(result.code).toBe(3);
        expect(result.stderr).toMatch(/out of memory \(maxmemory reached\) in cell 1\/2/);
        const namespace = /swc-bench:[0-9a-f]{8}/.exec(result.stderr)?.[0];
        expect(namespace).toBeDefined();
        expect(await keysMatching(own, `${namespace}:*`)).toEqual([]);
        expect(await own.get('user:precious')).toBe('x');
      } finally {
        own.disconnect();
        await server.stop();
      }
    });

    // The undisturbed run both cases compare with: once, on a server of its own (the bytes
    // are listpacks', the same on every server of the build).
    const runArgs = (url: string) => ['bench', '--redis-url', url, ...words('--rate 2 --window 1m --lights 20 --json --no-progress --no-throughput')];
    let quietRun: Promise<CliResult> | undefined;
    const quietOnce = (): Promise<CliResult> =>
      (quietRun ??= withPrivateServer({}, async (server) => {
        const quiet = await runCli(runArgs(server.url));
        expect(quiet.code, quiet.stderr).toBe(0);
        return quiet;
      }));

    it.each([50, 5])(
      'SCRIPT FLUSH every %i ms: the same bytes per light as an undisturbed run, or (at 5 ms) exit 3 naming the script cache',
      async (everyMs) => {
        // A server of its own: flushing the shared one would disturb other test files.
        const server = await startPrivateServer();
        const own = await connect(server.url);
        const args = runArgs(server.url);
        const quietPending = quietOnce();
        const flusher = setInterval(() => void own.script('FLUSH').catch(() => undefined), everyMs);
        const flushed = await runCli(args).finally(async () => {
          clearInterval(flusher);
          own.disconnect();
          await server.stop();
        });
        const quiet = await quietPending;
        if (everyMs === 5 && flushed.code !== 0) {
          expect(flushed.code).toBe(3);
          expect(flushed.stderr).toMatch(/^swc: .*(script|cache)/m);
          return;
        }
        expect(flushed.code).toBe(0);
        const bytes = (out: string) => (JSON.parse(out) as { results: { memory: { bytesPerLight: number } }[] }).results.map((r) => r.memory.bytesPerLight);
        expect(bytes(flushed.stdout)).toEqual(bytes(quiet.stdout));
      },
    );
  });
});
