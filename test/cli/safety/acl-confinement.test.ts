/**
 * On a server swc did not start, scripts swc did not write run as a
 * temporary ACL user confined to the run's namespace: a script that passes
 * the probe and breaks out later is denied (NOPERM) and reported as a
 * finding (exit 1); where swc may not create users they are refused, with
 * --trust-scripts too, unless --unconfined-scripts. Redis's own promise, that `redis.call` inside a script
 * obeys the calling user's ACL, is checked on every build at hand.
 * Every test has servers of its own: the describes run at once.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import { connect } from '../../../src/redis/connect.js';
import { startPrivateCluster } from '../../../src/redis/cluster.js';
import { confineRun, DENIAL, DENIED_TO_RUN_USER } from '../../../src/safety/acl.js';
import { exampleCopy, LONG_RUN } from '../../hostile-manifests.js';
import { runCli } from '../run-cli.js';
import { startCli } from '../run-cli.js';
import { digest, fileServers } from '../../helpers.js';

const EXAMPLE = fileURLToPath(new URL('../../../fixtures/manifests/example/', import.meta.url));
const { dir, start } = fileServers('acl');

const server = (settings: string[] = [], binary?: string): Promise<{ url: string; redis: Redis }> =>
  start({ settings, allowAnySetting: true, ...(binary ? { binary } : {}) });

/**
 * The example manifest whose record.lua behaves during swc's probe (a dozen
 * calls per light) and, from its 16th call on a light, writes a user's key:
 * a probe cannot see it, the ACL must stop it.
 */
function sleeper(name: string): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE, folder, { recursive: true });
  const file = path.join(folder, 'record.lua');
  const late = "if redis.call('HINCRBY', KEYS[2], 'calls', 1) > 15 then redis.call('SET', 'app:user:1', 'pwned') end";
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\nreturn now\n$/, `\n${late}\nreturn now\n`));
  return path.join(folder, 'my-log.json');
}

const benchArgs = ['--rate', '2', '--window', '30', '--lights', '1', '--no-throughput', '--no-progress'];

describe.concurrent("a script that passes the probe and breaks out on the user's server", () => {
  it.each([
    ['bench', (m: string) => ['bench', '--layout', m, ...benchArgs]],
    ['verify', (m: string) => ['verify', '--layout', m, '--calls', '300', '--lights', '1']],
  ])('%s: denied by the ACL (NOPERM), a finding naming the key, exit 1; user keys unchanged, the temporary user removed', async (_verb, args) => {
    const { url, redis } = await server();
    for (let i = 0; i < 20; i += 1) await redis.set(`app:user:${i}`, `user ${i}`);
    const before = await digest(redis, '*');
    const result = await runCli([...args(sleeper(`sleeper-${_verb}`)), '--trust-scripts', '--redis-url', url]);
    expect(result.stderr).toMatch(/run as the temporary ACL user swc-run-[0-9a-f]{8}: keys swc-bench:[0-9a-f]{8}:\* only/);
    expect(result.stderr).toMatch(/denied by swc's confinement: .*record\.lua:\d+ tried key "app:user:1"/);
    expect(result.code).toBe(1);
    expect(await digest(redis, '*')).toEqual(before);
    expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
  });
});

describe.concurrent('on a Redis Cluster swc did not start', () => {
  it.each([
    ['bench', (m: string) => ['bench', '--layout', m, '--rate', '2', '--window', '30', '--lights', '3', '--no-throughput', '--no-progress']],
    ['verify', (m: string) => ['verify', '--layout', m, '--calls', '300', '--lights', '1']],
  ])('%s: the temporary user is made on every primary; a breakout is denied there (exit 1), user keys unchanged, every user removed', async (verb, args) => {
    const cluster = await startPrivateCluster({ shards: 3 });
    const nodes = await Promise.all(cluster.urls.map((u) => connect(u)));
    try {
      // A user key on every primary (hash tags owned by different nodes): the one the script writes by name is among them.
      for (const node of nodes) await node.set('app:user:1', 'keep').catch(() => undefined);
      const seeded = await Promise.all(nodes.map((n) => digest(n, 'app:*')));
      expect(seeded.some((d) => Object.keys(d).length > 0)).toBe(true);
      const result = await runCli([...args(sleeper(`cluster-${verb}`)), '--trust-scripts', '--cluster', '--redis-url', cluster.urls[0] as string]);
      expect(result.stderr).toMatch(/run as the temporary ACL user swc-run-[0-9a-f]{8}: keys swc-bench:[0-9a-f]{8}:\* only/);
      expect(result.stderr).toMatch(/denied by swc's confinement: .*record\.lua:\d+ tried /);
      expect(result.code).toBe(1);
      expect(await Promise.all(nodes.map((n) => digest(n, 'app:*')))).toEqual(seeded);
      for (const node of nodes) expect(await node.call('ACL', 'USERS')).toEqual(['default']);
      for (const node of nodes) expect(await node.keys('swc-bench:*')).toEqual([]);
    } finally {
      for (const node of nodes) node.disconnect();
      await cluster.stop();
    }
  });
});

describe.concurrent('the temporary user is removed on every way out', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s mid-bench: exit %i, no temporary user and no key left', async (signal, code) => {
    const { url, redis } = await server();
    const run = startCli(['bench', '--layout', exampleCopy(dir, `signal-${signal}`), ...LONG_RUN, '--trust-scripts', '--redis-url', url]);
    await run.waitFor(/temporary ACL user swc-run-/);
    // Mid-cell: the cell has written keys of its own (besides the run's markers). The cell's own line, [1/1],
    // comes only at its end, a moment before the run removes its user and ends: waiting for it raced the end.
    const cellKeys = async (): Promise<string[]> => (await redis.keys('swc-bench:*')).filter((k) => !/:(run|alive)$/.test(k));
    while ((await cellKeys()).length === 0) {
      if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error(`swc ended before writing a key:\n${run.stderr()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(((await redis.call('ACL', 'USERS')) as string[]).some((u) => u.startsWith('swc-run-'))).toBe(true);
    run.child.kill(signal);
    expect((await run.exited).code).toBe(code);
    expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
    expect(await redis.keys('swc-bench:*')).toEqual([]);
  });
});

describe.concurrent('where swc may not create users (the default user lacks +acl)', () => {
  it('refuses scripts swc did not write (exit 2, before any write), with --trust-scripts too (#41); only --unconfined-scripts runs them, saying so in one line', async () => {
    const { url, redis } = await server(['user=default on nopass ~* &* +@all -acl']);
    const folder = path.join(dir, 'plain');
    cpSync(EXAMPLE, folder, { recursive: true });
    const manifest = path.join(folder, 'my-log.json');
    // Each run under a namespace of its own: at once.
    const [refused, trusted, unconfined] = await Promise.all([
      runCli(['bench', '--layout', manifest, ...benchArgs, '--redis-url', url]),
      runCli(['bench', '--layout', manifest, ...benchArgs, '--trust-scripts', '--redis-url', url]),
      runCli(['bench', '--layout', manifest, ...benchArgs, '--unconfined-scripts', '--redis-url', url]),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--trust-scripts: refused: .*record\.lua.* not byte-identical to the installed swc's lua\/.* pass --trust-scripts/);
    expect(trusted.code).toBe(2);
    expect(trusted.stderr).toMatch(/^swc: --trust-scripts: refused: .*does not let swc create the temporary ACL user .*pass --unconfined-scripts/m);
    expect(unconfined.code, unconfined.stderr).toBe(0);
    expect(unconfined.stderr.split('\n').filter((l) => /UNCONFINED/.test(l))).toEqual([
      expect.stringMatching(
        /^swc bench: --unconfined-scripts: running .*record\.lua.* UNCONFINED, with your connection's own rights, on redis:\/\/127\.0\.0\.1:\d+/,
      ),
    ]);
    expect(await redis.keys('swc-bench:*')).toEqual([]);
  });
});

const BUILDS = [
  ['redis-server on PATH', undefined],
  ['Redis 7.4.1', '/work/builds/redis-7.4.1/src/redis-server'],
  ['Valkey 8.0.1', '/work/builds/valkey-8.0.1/src/valkey-server'],
] as const;

describe.each(BUILDS.filter(([, binary]) => binary === undefined || existsSync(binary)))('redis.call inside a script obeys the ACL (%s)', (_label, binary) => {
  it('the run user may touch its namespace only, and none of the denied commands', async () => {
    const { redis } = await server([], binary);
    await redis.set('app:user:1', 'keep');
    const ns = createNamespace();
    const user = await confineRun(redis, ns);
    expect(user).not.toBeNull();
    const confined = (user as NonNullable<typeof user>).scripts;
    const script = (body: string) => confined.eval(body, 1, `${ns.prefix}:k`);
    await expect(script("return redis.call('SET', KEYS[1], 'mine')")).resolves.toBe('OK');
    await expect(script("return redis.call('SET', 'app:user:1', 'pwned')")).rejects.toThrow(DENIAL);
    await expect(script("return redis.call('DEL', 'app:user:1')")).rejects.toThrow(DENIAL);
    for (const command of ['FLUSHALL', 'FLUSHDB', 'KEYS', 'SCAN', 'SELECT', 'SWAPDB', 'MOVE']) {
      const args = { FLUSHALL: '', FLUSHDB: '', KEYS: ", '*'", SCAN: ", '0'", SELECT: ', 1', SWAPDB: ', 0, 1', MOVE: ', KEYS[1], 1' }[command];
      await expect(script(`return redis.call('${command}'${args})`), command).rejects.toThrow(DENIAL);
    }
    // And directly, not only from scripts.
    await expect(confined.call('CONFIG', 'GET', 'maxmemory')).rejects.toThrow(/NOPERM/);
    expect(DENIED_TO_RUN_USER).toEqual(expect.arrayContaining(['flushall', 'flushdb', 'swapdb', 'move', 'keys', 'scan', 'config']));
    expect(await redis.get('app:user:1')).toBe('keep');
    await (user as NonNullable<typeof user>).remove();
    expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
  });
});
