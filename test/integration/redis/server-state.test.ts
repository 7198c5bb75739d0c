import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisUnavailableError, ScriptError, ServerStateError, type SwcError, type ServerStateKind } from '../../../src/core/errors.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { runLoad } from '../../../src/measure/load.js';
import { connect } from '../../../src/redis/connect.js';
import { classifyRedisError } from '../../../src/redis/errors.js';
import { parseInfo } from '../../../src/redis/info.js';
import { execPipeline, installScripts, runScript } from '../../../src/redis/scripts.js';
import { startPrivateServer, type PrivateServer } from '../../../src/redis/server.js';
import { runCli } from '../../cli/run-cli.js';
import { HOUR_START, uniqueName } from '../../helpers.js';

const v5 = new StoplightV5();
const v6 = new StoplightV6();
const write = () => v6.recordSuccess({ name: uniqueName('state') }, { windowSeconds: 60, at: HOUR_START + 1 });

/** A private server and a connection to it (scripts installed), both gone after the block's tests. */
function privateServer(settings: string[] = []): { server: () => PrivateServer; redis: () => Redis } {
  let server: PrivateServer;
  let redis: Redis;
  beforeAll(async () => {
    server = await startPrivateServer({ settings, allowAnySetting: true });
    redis = await connect(server.url);
    await installScripts(redis, [...v5.scripts, ...v6.scripts]);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });
  return { server: () => server, redis: () => redis };
}

/** What a promise rejected with. */
const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => expect.fail('expected a failure'),
    (err: unknown) => err,
  );

function expectState(err: unknown, kind: ServerStateKind, message: RegExp): void {
  expect(err).toBeInstanceOf(ServerStateError);
  expect((err as ServerStateError).kind).toBe(kind);
  expect((err as ServerStateError).exitCode).toBe(3);
  expect((err as Error).message).toMatch(message);
  // One line, and never blamed on a Lua file.
  expect((err as Error).message).not.toMatch(/\n|lua\//);
}

/** Polls until `check` holds, instead of sleeping a guessed time (the deadline is a guard against a hang, wide enough for a loaded machine). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Its cases run in order (the last one ends the blocking script); the describes run at once, each with servers of its own.
describe.concurrent('BUSY: another client runs a script past busy-reply-threshold', () => {
  const { server, redis } = privateServer(['busy-reply-threshold=50']);
  let blocker: Redis;
  let killer: Redis;
  let blocked: Promise<unknown>;
  beforeAll(async () => {
    blocker = await connect(server().url, { commandTimeoutMs: 120_000 });
    killer = await connect(server().url);
    blocked = blocker.eval('while true do end', 0).catch((err: unknown) => err);
    await until(
      () =>
        redis()
          .ping()
          .then(
            () => false,
            (err: Error) => err.message.startsWith('BUSY'),
          ),
      'the server to answer BUSY',
    );
  });
  afterAll(async () => {
    await killer.script('KILL').catch(() => undefined);
    await blocked;
    blocker.disconnect();
    killer.disconnect();
  });

  // The waited time in the line is the wall time swc measured: past its 0.3 s bound by one round trip on a quiet
  // machine, by more on a busy one, so the pattern takes any figure (a `0\.\d s` pattern would fail only under load).
  it.sequential('a script call waits within its bound, then says the server is busy and that swc waited', async () => {
    const err = await failure(runScript(redis(), write(), { busyWaitMs: 300 }));
    expectState(
      err,
      'busy',
      /^Redis is busy running a script from another client \(BUSY\): swc waited \d+\.\d s and tried \d+ times; it is still running; stop it with SCRIPT KILL/,
    );
  });

  it.sequential('LayoutClient.open (loading scripts) waits within its bound, then says the server is busy', async () => {
    const err = await failure(LayoutClient.open(redis(), v6, { busyWaitMs: 200 }));
    expectState(err, 'busy', /^Redis is busy running a script from another client \(BUSY\): swc waited \d+\.\d s and tried \d+ times/);
  });

  it.sequential('the load engine does not wait: it stops at once with the BUSY message', async () => {
    const err = await failure(runLoad({ connections: [redis()], pipeline: 4, stop: { ops: 100 }, nextCall: write }));
    // Its connection's opening PING meets BUSY first.
    expectState(
      err,
      'busy',
      /^Redis is busy running a script from another client \(BUSY\) while opening a load connection to Redis at 127\.0\.0\.1:\d+: swc did not wait/,
    );
  });

  it.sequential('a script call that hit BUSY runs once the blocking script is killed', async () => {
    const light = { name: uniqueName('waited') };
    const call = runScript(redis(), v6.recordSuccess(light, { windowSeconds: 60, at: HOUR_START + 1 }), { busyWaitMs: 60_000 });
    // Let it meet BUSY at least once before the block ends.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await killer.script('KILL');
    await call;
    const errors = parseInfo(await redis().info('errorstats')).errorstat_BUSY ?? '';
    expect(Number(/count=(\d+)/.exec(errors)?.[1])).toBeGreaterThan(0);
    const metrics = await runScript(redis(), v6.getMetrics(light, { windowSeconds: 60, at: HOUR_START + 1 }));
    expect(v6.parseMetrics(metrics).successes).toBe(1);
  });
});

describe.concurrent('OOM: maxmemory reached with noeviction', () => {
  const { redis } = privateServer(['maxmemory-policy=noeviction']);
  beforeAll(async () => {
    await redis().config('SET', 'maxmemory', '1');
  });
  afterAll(async () => {
    await redis().config('SET', 'maxmemory', '0');
  });

  it('a script call, a pipeline and the load engine each say Redis is out of memory', async () => {
    expectState(await failure(runScript(redis(), write())), 'oom', /^Redis is out of memory \(maxmemory reached\): it refuses writes; raise maxmemory/);
    const [[pipelined]] = (await execPipeline(redis(), [write()])) as [[Error | null, unknown]];
    expectState(pipelined, 'oom', /^Redis is out of memory/);
    const loaded = await failure(runLoad({ connections: [redis()], pipeline: 2, stop: { ops: 10 }, nextCall: write }));
    expectState(loaded, 'oom', /^Redis is out of memory \(maxmemory reached\) after 0 operations of the load: /);
  });
});

describe.concurrent('READONLY: a read-only replica', () => {
  const primary = privateServer();
  const replica = privateServer();
  beforeAll(async () => {
    await replica.redis().replicaof('127.0.0.1', primary.server().port);
    await until(async () => parseInfo(await replica.redis().info('replication')).master_link_status === 'up', 'the replica to sync');
    await installScripts(replica.redis(), v6.scripts);
  });

  it('says it is a replica and to point at the primary', async () => {
    expectState(
      await failure(runScript(replica.redis(), write())),
      'readonly',
      /^Redis is a read-only replica \(READONLY\): swc writes: point --redis-url at its primary/,
    );
  });
});

describe.concurrent('NOPERM: ACL users without a command or a key pattern', () => {
  const { server, redis } = privateServer();
  const as = (user: string) => connect(server().url.replace('redis://', `redis://${user}:pw@`));
  beforeAll(async () => {
    await redis().acl('SETUSER', 'noeval', 'on', '>pw', '~*', '+@all', '-evalsha');
    await redis().acl('SETUSER', 'noscript', 'on', '>pw', '~*', '+@all', '-script');
    await redis().acl('SETUSER', 'narrow', 'on', '>pw', '~allowed:*', '+@all');
  });

  it('names the EVALSHA command and the user it is denied to', async () => {
    const client = await as('noeval');
    try {
      expectState(
        await failure(runScript(client, write())),
        'noperm',
        /^Redis ACL denies user "noeval" the EVALSHA command \(NOPERM\): grant it \(e\.g\. ACL SETUSER noeval \+evalsha\)/,
      );
    } finally {
      client.disconnect();
    }
  });

  it('names SCRIPT LOAD when loading is denied', async () => {
    const client = await as('noscript');
    try {
      expectState(await failure(installScripts(client, v6.scripts)), 'noperm', /^Redis ACL denies user "noscript" the SCRIPT\|LOAD command \(NOPERM\)/);
    } finally {
      client.disconnect();
    }
  });

  it('swc lights names the denied command instead of an unexpected error', async () => {
    await redis().acl('SETUSER', 'noscan', 'on', '>pw', '~*', '+@all', '-scan');
    const result = await runCli(['lights', '--redis-url', server().url.replace('redis://', 'redis://noscan:pw@')]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^swc: Redis ACL denies the connected user the SCAN command \(NOPERM\): grant it \(e\.g\. ACL SETUSER <user> \+scan\)/m);
    expect(result.stderr).not.toMatch(/unexpected error|pw@/);
  });

  it('names the keys a user may not touch', async () => {
    const client = await as('narrow');
    try {
      const call = write();
      const err = await failure(runScript(client, call));
      expectState(err, 'noperm', /^Redis ACL denies user "narrow" access to ".*" .*\(NOPERM\): grant it \(e\.g\. ACL SETUSER narrow ~stoplight:\*\)/);
      expect((err as Error).message).toContain(JSON.stringify(call.keys[0]));
    } finally {
      client.disconnect();
    }
  });
});

describe.concurrent('maxclients reached', () => {
  const { server, redis } = privateServer(['maxclients=3']);

  it('the load engine says the server refused the connection, not that a Lua file failed', async () => {
    // With this connection and two more, the server is full.
    const others = [await connect(server().url), await connect(server().url)];
    try {
      const err = await failure(runLoad({ connections: [redis()], pipeline: 1, stop: { ops: 10 }, nextCall: write }));
      expectState(
        err,
        'maxclients',
        /^Redis refused the connection: max number of clients reached \(maxclients\) while opening a load connection to Redis at 127\.0\.0\.1:\d+: close idle clients or raise maxclients/,
      );
    } finally {
      for (const other of others) other.disconnect();
    }
  });
});

describe.concurrent('maxclients reached, through the CLI', () => {
  const { server, redis } = privateServer(['maxclients=3']);

  it('swc doctor and swc bench say the server is full and blame no Lua file', async () => {
    // With this connection and two more, the server is full before swc starts.
    const others = [await connect(server().url), await connect(server().url)];
    try {
      const doctor = await runCli(['doctor', '--write-check', '--redis-url', server().url]);
      expect(doctor.code).toBe(3);
      expect(doctor.stderr).toMatch(
        /^swc: Redis refused the connection: max number of clients reached \(maxclients\) at redis:\/\/127\.0\.0\.1:\d+\/?: close idle clients/m,
      );
      expect(doctor.stderr).not.toMatch(/lua\/|unexpected error/);
    } finally {
      for (const other of others) other.disconnect();
    }
    // Room for the memory phase, not for eight load connections.
    const bench = await runCli([
      'bench',
      '--redis-url',
      server().url,
      '--rate',
      '2',
      '--window',
      '1m',
      '--lights',
      '1',
      '--connections',
      '8',
      '--ops',
      '50',
      '--no-progress',
    ]);
    expect(bench.code).toBe(3);
    expect(bench.stderr).toMatch(
      /^swc: Redis refused the connection: max number of clients reached \(maxclients\) .*in cells 1-2\/2 \(stoplight-v5, stoplight-v6, window 60 s at 2\/s\)/m,
    );
    expect(bench.stderr).not.toMatch(/lua\/|unexpected error/);
    expect(await redis().keys('swc-bench:*')).toEqual([]);
  });
});

describe.concurrent('a renamed or disabled command', () => {
  const evalsha = privateServer(['rename-command=EVALSHA ""']);
  const script = privateServer(['rename-command=EVALSHA swc-renamed-evalsha']);

  it('names EVALSHA when it is disabled', async () => {
    expectState(await failure(runScript(evalsha.redis(), write())), 'unknown-command', /^Redis does not offer the EVALSHA command \(renamed or disabled/);
  });

  it('names EVALSHA when it is renamed, from the load engine too', async () => {
    const err = await failure(runLoad({ connections: [script.redis()], pipeline: 1, stop: { ops: 10 }, nextCall: write }));
    expectState(
      err,
      'unknown-command',
      /^Redis does not offer the EVALSHA command \(renamed or disabled, e\.g\. by rename-command\) after 0 operations of the load/,
    );
  });
});

describe.concurrent('NOREPLICAS: min-replicas-to-write not met', () => {
  const { redis } = privateServer();

  it('says writes need replicas', async () => {
    await redis().config('SET', 'min-replicas-to-write', '1');
    try {
      expectState(
        await failure(runScript(redis(), write())),
        'noreplicas',
        /^Redis refuses writes: not enough replicas are connected \(NOREPLICAS, min-replicas-to-write\)/,
      );
    } finally {
      await redis().config('SET', 'min-replicas-to-write', '0');
    }
  });
});

// In order: the cluster is down until the second case gives it every slot.
describe.concurrent('a cluster node', () => {
  const { redis } = privateServer(['cluster-enabled=yes']);

  it.sequential('says the cluster is down while no node serves the slot', async () => {
    expectState(
      await failure(runScript(redis(), write())),
      'cluster',
      /^Redis is a cluster node \(CLUSTERDOWN\): the cluster is down; swc talks to a single node/,
    );
  });

  it.sequential('names the keys that hash to different slots (CROSSSLOT)', async () => {
    await redis().call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    await until(async () => parseInfo((await redis().call('CLUSTER', 'INFO')) as string).cluster_state === 'ok', 'the cluster to be ok');
    const light = { name: uniqueName('slots') };
    // A 5.x read spans several hour keys with no hash tag.
    const call = v5.getMetrics(light, { windowSeconds: 7200, at: HOUR_START + 7000 });
    expect(call.keys.length).toBeGreaterThan(1);
    const err = await failure(runScript(redis(), call));
    expectState(
      err,
      'cluster',
      /^Redis is a cluster node \(CROSSSLOT\): the keys of one EVALSHA \(".*\) hash to different slots; swc talks to a single node: use a standalone server/,
    );
  });
});

describe.concurrent('classifyRedisError on replies no test server can be put into', () => {
  const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
  it.each([
    [
      'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.',
      'misconf',
      /^Redis refuses writes after a failed RDB save \(MISCONF\)/,
    ],
    ['LOADING Redis is loading the dataset in memory', 'loading', /^Redis is still loading its dataset \(LOADING\)/],
    ['MOVED 3999 10.0.0.2:6381', 'cluster', /^Redis is a cluster node \(MOVED\): slot 3999 \("k"\) is served by 10\.0\.0\.2:6381/],
    [
      "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
      'noreplicas',
      /^Redis is a replica that lost its primary \(MASTERDOWN\)/,
    ],
  ] as const)('%s', (message, kind, expected) => {
    expectState(classifyRedisError(reply(message), { keys: ['k'] }), kind, expected);
  });

  it('tells a lost connection from a server state and keeps typed errors as they are', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(classifyRedisError(reset)).toBeInstanceOf(RedisUnavailableError);
    const typed = new ScriptError('lua/x.lua: boom');
    expect(classifyRedisError(typed)).toBe(typed);
    const placed = classifyRedisError(reply('OOM command not allowed'), { where: 'in cell 1/2' });
    expect((placed as Error).message).toMatch(/^Redis is out of memory \(maxmemory reached\) in cell 1\/2: /);
    expect((placed as SwcError).at('later').message).toMatch(/^Redis is out of memory \(maxmemory reached\) in cell 1\/2 later: /);
  });
});

describe.concurrent('a server that refuses writes after a failed RDB save (MISCONF), for real', () => {
  let server: PrivateServer;
  let redis: Redis;
  beforeAll(async () => {
    // Save points on, then the folder gone: BGSAVE fails and stop-writes-on-bgsave-error refuses writes (and PING).
    server = await startPrivateServer({ settings: ['save=3600 1'], allowAnySetting: true });
    redis = await connect(server.url);
    await redis.set('user:kept', 'value');
    const [, dir] = (await redis.config('GET', 'dir')) as [string, string];
    const { rmSync } = await import('node:fs');
    rmSync(dir, { recursive: true, force: true });
    await redis.bgsave();
    for (;;) {
      const persistence = String(await redis.info('persistence'));
      if (/rdb_bgsave_in_progress:0/.test(persistence) && /rdb_last_bgsave_status:err/.test(persistence)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await expect(redis.set('probe', '1')).rejects.toThrow(/^MISCONF/);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('a script call is classified as misconf, naming the fix', async () => {
    expectState(await failure(runScript(redis, write())), 'misconf', /^Redis refuses writes after a failed RDB save \(MISCONF\)/);
  });

  it('doctor fails its write check, bench and verify refuse before any write (exit 3), lights and inspect still read', async () => {
    // The server takes no write from anyone: the five commands run at once.
    const [doctor, bench, verify, lights, inspect] = await Promise.all([
      runCli(['doctor', '--write-check', '--redis-url', server.url]),
      runCli(['bench', '--redis-url', server.url, '--rate', '2', '--window', '1m', '--no-throughput', '--no-progress']),
      runCli(['verify', '--redis-url', server.url, '--calls', '50']),
      runCli(['lights', '--redis-url', server.url, '--json']),
      runCli(['inspect', 'nobody', '--redis-url', server.url]),
    ]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/FAIL +write +the server refuses writes after a failed save \(MISCONF/);
    expect(bench.code).toBe(3);
    expect(bench.stderr).toMatch(/^swc: refusing to write to this server: the server refuses writes after a failed save \(MISCONF/m);
    expect(verify.code).toBe(3);
    expect(verify.stderr).toMatch(/^swc: refusing to write to this server: the server refuses writes after a failed save \(MISCONF/m);
    expect(lights.code).toBe(0);
    expect(JSON.parse(lights.stdout)).toHaveProperty('lights', []);
    expect(inspect.code).toBe(1);
    expect(inspect.stderr).toMatch(/^swc: light "nobody" not found/m);
    expect(await redis.keys('*')).toEqual(['user:kept']);
  });
});
