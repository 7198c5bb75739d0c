import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/redis/connect.js';
import { startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { alive, digest, keysMatching } from '../helpers.js';
import { runCli, RUN_LINE, startCli, type RunningCli } from './run-cli.js';

/** What one test opened and started, closed when it finishes (the tests run at once: each has servers of its own). */
interface Scope {
  readonly opened: { server: PrivateServer; redis: Redis[] }[];
  readonly started: RunningCli[];
}

function scope(onTestFinished: (fn: () => Promise<void>) => void): Scope {
  const own: Scope = { opened: [], started: [] };
  onTestFinished(async () => {
    for (const run of own.started.splice(0)) {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      await run.exited;
    }
    for (const { server, redis } of own.opened.splice(0)) {
      for (const r of redis) r.disconnect();
      await server.stop();
    }
  });
  return own;
}

/** A server of the test's own (pauses and BUSY scripts must not reach other test files), with user keys in it. */
async function server(
  { opened }: Scope,
  settings: string[] = [],
): Promise<{ url: string; port: number; redis: Redis; other: () => Promise<Redis>; before: Record<string, string> }> {
  const s = await startPrivateServer({ settings });
  const entry = { server: s, redis: [] as Redis[] };
  opened.push(entry);
  const other = async (): Promise<Redis> => {
    const r = await connect(s.url);
    entry.redis.push(r);
    return r;
  };
  const redis = await other();
  for (let i = 0; i < 50; i += 1) await redis.set(`{app}:k${i}`, `v${i}`);
  await redis.hset('{app}:h', { a: '1' });
  await redis.expire('{app}:h', 3600);
  return { url: s.url, port: s.port, redis, other, before: await digest(redis, '{app}:*') };
}

function bench({ started }: Scope, args: string[]): RunningCli {
  const run = startCli(['bench', ...args]);
  started.push(run);
  return run;
}

async function expectUntouched(redis: Redis, before: Record<string, string>, run?: RunningCli): Promise<void> {
  expect(await digest(redis, '{app}:*')).toEqual(before);
  expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
  if (run?.child.pid) expect(alive(run.child.pid)).toBe(false);
}

describe.concurrent('a cell disturbed while it runs fails instead of reporting a figure', () => {
  it('CLIENT PAUSE 500 WRITE from another client during a throughput phase: exit 3 naming the cell, the phase and the pause; no JSON', async ({
    onTestFinished,
  }) => {
    const own = scope(onTestFinished);
    const { url, redis, other, before } = await server(own);
    const run = bench(own, ['--redis-url', url, '--rate', '10', '--window', '60', '--layout', 'stoplight-v6', '--time', '2', '--json']);
    await run.waitFor(/write throughput phase/);
    await (await other()).call('CLIENT', 'PAUSE', '500', 'WRITE');
    const { code } = await run.exited;
    expect(code).toBe(3);
    expect(run.stdout()).toBe('');
    expect(run.stderr()).toMatch(
      /^swc: cell 1\/1 \(stoplight-v6, window 60 s at 10\/s\) failed during its (write|read) throughput phase: another client paused the server \(CLIENT PAUSE, 1×\)/m,
    );
    await expectUntouched(redis, before, run);
  });

  it('two runs at once on one server: the second waits for the first (saying so), then both finish with exit 0', async ({ onTestFinished }) => {
    const own = scope(onTestFinished);
    const { url, redis, before } = await server(own);
    const args = ['--redis-url', url, '--rate', '10', '--window', '60', '--layout', 'stoplight-v6', '--json'];
    const first = bench(own, [...args, '--time', '1']);
    const [, firstNs] = (await first.waitFor(RUN_LINE)) as unknown as [string, string];
    await first.waitFor(/write throughput phase/);
    // The first run is held (SIGSTOP) mid-cell until the second has met it: a new process's start took longer than the
    // first's throughput phases (3 × 3 s) at load 14. Its alive key lives 15 s unrefreshed, longer than such a start.
    first.child.kill('SIGSTOP');
    // Longer than the default 10 s: the first run's clean-up on a busy machine may take a while.
    const second = bench(own, [...args, '--time', '1', '--wait-for-runs', '120']);
    try {
      await second.waitFor(new RegExp(`another swc run is writing to this server \\(${firstNs}\\); waiting for it to end \\(at most 120 s\\)`));
    } finally {
      first.child.kill('SIGCONT');
    }
    const [a, b] = await Promise.all([first.exited, second.exited]);
    expect([a.code, b.code]).toEqual([0, 0]);
    // The second started writing only after the first had finished.
    expect(second.stderr()).not.toMatch(/throughput phase[\s\S]*waiting for it to end/);
    for (const run of [first, second]) expect(JSON.parse(run.stdout()).results).toHaveLength(1);
    await expectUntouched(redis, before, second);
  });

  it.for<[string, string[], number]>([
    ['bench', [], 10],
    ['bench', ['--wait-for-runs', '2'], 2],
    ['verify', ['--wait-for-runs', '2'], 2],
  ])(
    'another run that never ends (a live alive key): %s %j gives up after %i s, exit 3, naming it and how to proceed',
    async ([verb, extra, seconds], { onTestFinished }) => {
      const own = scope(onTestFinished);
      const { url, redis, other, before } = await server(own);
      const intruder = await other();
      await intruder.set('swc-bench:0badc0de:alive', `writing ${Date.now() - 40_000}`, 'EX', 60);
      const started = Date.now();
      const args =
        verb === 'bench'
          ? ['bench', '--redis-url', url, '--rate', '2', '--window', '30', '--layout', 'stoplight-v6', '--no-throughput', '--no-progress', ...extra]
          : ['verify', '--redis-url', url, '--layout', 'stoplight-v6', '--calls', '100', '--lights', '1', ...extra];
      const result = await runCli(args);
      const took = (Date.now() - started) / 1000;
      await intruder.del('swc-bench:0badc0de:alive');
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(
        new RegExp(
          `^swc: another swc run \\(swc-bench:0badc0de, writing, started \\d+ s ago\\) is using this server: swc waited ${seconds} s for it to end and did not start, .*run again once it is done, or wait longer with --wait-for-runs <seconds>`,
          'm',
        ),
      );
      // A lower bound (it did wait), which a busy machine only makes easier to meet; how long past it swc takes to
      // give up is not asserted: the line names the wait it was configured with.
      expect(took).toBeGreaterThanOrEqual(seconds);
      await expectUntouched(redis, before);
    },
  );

  it('a run that writes without taking turns (an alive key appears mid-cell): the cell fails with exit 3 naming that run', async ({ onTestFinished }) => {
    const own = scope(onTestFinished);
    const { url, redis, other, before } = await server(own);
    const run = bench(own, ['--redis-url', url, '--rate', '10', '--window', '60', '--layout', 'stoplight-v6', '--time', '1', '--json']);
    await run.waitFor(/write throughput phase/);
    // What an swc without turn-taking leaves while it writes: an alive key with a bare start time.
    const intruder = await other();
    await intruder.set('swc-bench:0badc0de:alive', String(Date.now()), 'EX', 60);
    const { code } = await run.exited;
    await intruder.del('swc-bench:0badc0de:alive');
    expect(code).toBe(3);
    expect(run.stdout()).toBe('');
    expect(run.stderr()).toMatch(
      /^swc: cell 1\/1 \(stoplight-v6, window 60 s at 10\/s\) failed: another swc run wrote to this server while it ran \(swc-bench:0badc0de\)/m,
    );
    await expectUntouched(redis, before, run);
  });
});

describe.concurrent('a used_memory figure another client moved is not reported', () => {
  it('a 16 MB user key deleted during a realtime cell: used_memory falls, the cell fails with exit 3 saying so', async ({ onTestFinished }) => {
    const own = scope(onTestFinished);
    const { url, other } = await server(own);
    const user = await other();
    await user.set('{app}:big', Buffer.alloc(16 * 1024 * 1024, 1));
    const run = bench(own, ['--redis-url', url, '--realtime', '--rate', '20', '--window', '60', '--duration', '3s', '--layout', 'stoplight-v6', '--json']);
    const [, namespace] = (await run.waitFor(RUN_LINE)) as unknown as [string, string];
    await run.waitFor(/real traffic for 3 s/);
    // The cell's first used_memory reading comes before its first write: wait for a key, then free memory.
    while ((await keysMatching(user, `${namespace}:stoplight:*`)).length === 0) await new Promise((r) => setTimeout(r, 20));
    await user.del('{app}:big');
    const { code } = await run.exited;
    expect(code).toBe(3);
    expect(run.stdout()).toBe('');
    expect(run.stderr()).toMatch(
      /^swc: cell 1\/1 \(stoplight-v6, window 60 s at 20\/s\) failed during its memory phase: used_memory fell by [\d,]+ KB while this run only added keys/m,
    );
    expect(await keysMatching(user, 'swc-bench:*')).toEqual([]);
  });
});

describe.concurrent('clean-up keeps working through server trouble and says what it left', () => {
  it('BUSY (another client runs a 2.5 s script): the run fails with exit 3, the clean-up waits the script out and removes every key', async ({
    onTestFinished,
  }) => {
    const own = scope(onTestFinished);
    const { url, redis, other, before } = await server(own);
    await redis.config('SET', 'busy-reply-threshold', '100');
    const run = bench(own, ['--redis-url', url, '--rate', '10', '--window', '60', '--layout', 'stoplight-v6', '--time', '10']);
    await run.waitFor(/write throughput phase/);
    const busy = (await other())
      .eval(
        "local t = redis.call('TIME'); local s = t[1] + t[2] / 1e6; " +
          "while true do local n = redis.call('TIME'); if n[1] + n[2] / 1e6 - s > 2.5 then break end end return 1",
        0,
      )
      .catch((err: unknown) => err);
    const { code } = await run.exited;
    expect(await busy).toBe(1);
    expect(code).toBe(3);
    expect(run.stderr()).toMatch(/BUSY/);
    expect(run.stderr()).toMatch(/removed \d+ key\(s\) of this run/);
    await expectUntouched(redis, before, run);
  });

  it('CROSSSLOT: a 6.0 bench of several lights on a cluster node deletes per slot and leaves nothing; 5.x is refused up front', async ({ onTestFinished }) => {
    const own = scope(onTestFinished);
    const s = await startPrivateServer({ settings: ['cluster-enabled=yes'] });
    const redis = await connect(s.url);
    own.opened.push({ server: s, redis: [redis] });
    await redis.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    for (let i = 0; i < 200 && !/cluster_state:ok/.test(String(await redis.call('CLUSTER', 'INFO'))); i += 1) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await redis.set('app:kept', 'yes');
    const result = await runCli(['bench', '--redis-url', s.url, '--layout', 'stoplight-v6', '--lights', '5', '--rate', '10', '--window', '60', '--ops', '100']);
    expect(result.stderr).not.toMatch(/CROSSSLOT/);
    // Each cell deletes its 5 lights' keys (5 slots) and the run its two markers (2 slots) in one call each.
    expect(result.code).toBe(0);
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
    expect(await redis.get('app:kept')).toBe('yes');
    // 5.x keys carry no hash tag: refused up front, naming the layout, rather than a CROSSSLOT mid-run.
    const both = await runCli(['bench', '--redis-url', s.url, '--rate', '10', '--window', '60', '--no-throughput']);
    expect(both.code).toBe(3);
    expect(both.stderr).toMatch(
      /^swc: refusing to write to this server: it runs in cluster mode, and stoplight-v5's scripts take keys in \d+ hash slots \(Redis would answer CROSSSLOT\); leave it out with --layout$/m,
    );
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
  });

  it('SIGTERM while writes are paused: exit 143, says how many keys were left and the swc clean command (host, port, db, namespace) that removes them', async ({
    onTestFinished,
  }) => {
    const own = scope(onTestFinished);
    const { url, port, redis, other, before } = await server(own);
    const run = bench(own, ['--redis-url', url, '--rate', '10', '--window', '60', '--layout', 'stoplight-v6', '--time', '20']);
    await run.waitFor(/write throughput phase/);
    const pauser = await other();
    await pauser.call('CLIENT', 'PAUSE', '30000', 'WRITE');
    run.child.kill('SIGTERM');
    const { code } = await run.exited;
    await pauser.call('CLIENT', 'UNPAUSE');
    expect(code).toBe(143);
    const hint = new RegExp(
      `could not remove (\\d+|some) key\\(s\\) of this run under (swc-bench:[0-9a-f]{8}):\\*: Redis did not finish the deletes .*\\(writes paused with CLIENT PAUSE, or a long script running\\); ` +
        `when Redis answers again, remove them with: (swc clean --redis-url redis://127\\.0\\.0\\.1:${port}/0 --namespace swc-bench:[0-9a-f]{8} --yes)$`,
      'm',
    ).exec(run.stderr());
    expect(hint, run.stderr()).not.toBeNull();
    const [, left, namespace, command] = hint as unknown as [string, string, string, string];
    expect(Number(left)).toBeGreaterThan(0);
    expect((await keysMatching(redis, `${namespace}:*`)).length).toBeGreaterThan(0);
    const clean = await runCli(command.split(' ').slice(1));
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(new RegExp(`removed \\d+ key\\(s\\) under ${namespace}:\\*`));
    await expectUntouched(redis, before, run);
  });
});
