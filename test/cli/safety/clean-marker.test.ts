/** `swc clean` removes only namespaces whose run marker proves swc wrote them. */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { namespaceOf } from '../../../src/run/namespace.js';
import { startPrivateCluster } from '../../../src/redis/cluster.js';
import { connect } from '../../../src/redis/connect.js';
import { confineRun, hasRunMarker } from '../../../src/safety/acl.js';
import type { PrivateServer } from '../../../src/redis/server.js';
import { runCli } from '../run-cli.js';
import { digest, keysMatching, ownServer } from '../../helpers.js';

let server: PrivateServer;
let redis: Redis;
ownServer((s, r) => {
  server = s;
  redis = r;
});

describe('swc clean and run markers', () => {
  it("lists keys that only look like swc's as not swc's and leaves them, while removing a real run's leftovers", async () => {
    // A user's keys in swc's shape: no marker, a marker of another type, a hash that is no swc marker, a forged run id.
    await redis.set('swc-bench:deadbeef:stoplight:v6:x', 'user data');
    await redis.hset('swc-bench:deadbeef:orders', { a: '1' });
    await redis.set('swc-bench:0badc0de:run', 'a string, not a marker');
    await redis.set('swc-bench:0badc0de:data', 'user data');
    await redis.hset('swc-bench:12345678:run', { note: 'mine' });
    await redis.set('swc-bench:12345678:data', 'user data');
    await redis.hset('swc-bench:87654321:run', { origin: 'swc', runId: 'ffffffff', startedAt: String(Date.now()) });
    await redis.set('swc-bench:87654321:data', 'user data');
    const users = await digest(redis, 'swc-bench:*');

    // Make leftovers of a marked run by hand, as markRun writes them.
    await redis.hset('swc-bench:a1b2c3d4:run', {
      origin: 'swc',
      runId: 'a1b2c3d4',
      startedAt: String(Date.now() - 60_000),
      host: 'h',
      pid: '1',
      swcVersion: '0.1.0',
    });
    await redis.set('swc-bench:a1b2c3d4:stoplight:v6:k', 'left');

    const listed = await runCli(['clean', '--redis-url', server.url]);
    expect(listed.code).toBe(0);
    for (const id of ['deadbeef', '0badc0de', '12345678', '87654321']) {
      expect(listed.stdout).toMatch(new RegExp(`^swc-bench:${id}  \\d+ key\\(s\\), not swc's \\(no run marker\\): left alone$`, 'm'));
    }
    expect(listed.stdout).toMatch(/^swc-bench:a1b2c3d4 {2}2 key\(s\), .* old, from h pid 1$/m);

    const cleaned = await runCli(['clean', '--redis-url', server.url, '--yes', '--json']);
    expect(cleaned.code).toBe(0);
    const out = JSON.parse(cleaned.stdout) as {
      removed: { prefix: string }[];
      kept: { prefix: string; reason: string }[];
      namespaces: { prefix: string; marked: boolean }[];
    };
    expect(out.removed.map((r) => r.prefix)).toEqual(['swc-bench:a1b2c3d4']);
    expect(out.kept.map((k) => [k.prefix, k.reason]).sort()).toEqual(
      ['0badc0de', '12345678', '87654321', 'deadbeef'].map((id) => [`swc-bench:${id}`, "not swc's (no run marker)"]),
    );
    expect(await keysMatching(redis, 'swc-bench:a1b2c3d4:*')).toEqual([]);
    expect(await digest(redis, 'swc-bench:*')).toEqual(users);
  });

  it('a bench run writes a marker with origin, run id and start time', async () => {
    const { createNamespace, markRun, runKey } = await import('../../../src/run/namespace.js');
    const ns = createNamespace();
    const handle = await markRun(redis, ns);
    handle.stop();
    const marker = await redis.hgetall(runKey(ns));
    expect(marker).toMatchObject({ origin: 'swc', runId: ns.prefix.slice('swc-bench:'.length) });
    expect(Number(marker.startedAt)).toBeGreaterThan(Date.now() - 60_000);
    await redis.del(runKey(ns), `${ns.prefix}:alive`);
  });

  it('lists the temporary ACL user of a run that is gone (with the marker swc writes), removes it with --yes, and leaves other users alone', async () => {
    // What confineRun leaves after a SIGKILL: the user with swc's marker.
    const made = await confineRun(redis, namespaceOf('swc-bench:0a0b0c0d'));
    expect(made?.name).toBe('swc-run-0a0b0c0d');
    made?.scripts.disconnect();
    expect(await hasRunMarker(redis, 'swc-run-0a0b0c0d')).toBe(true);
    await redis.call('ACL', 'SETUSER', 'app-user', 'on', '>y', '~app:*');
    // An operator's user named like swc's, without swc's marker: never swc's to delete.
    await redis.call('ACL', 'SETUSER', 'swc-run-deadbeef', 'on', '>z', '~swc-bench:deadbeef:*', '&other-channel');
    expect(await hasRunMarker(redis, 'swc-run-deadbeef')).toBe(false);
    const listed = await runCli(['clean', '--redis-url', server.url]);
    expect(listed.stdout).toMatch(/^swc-run-0a0b0c0d {2}temporary ACL user of a run that is gone$/m);
    expect(listed.stdout).not.toMatch(/swc-run-deadbeef/);
    const cleaned = await runCli(['clean', '--redis-url', server.url, '--yes']);
    expect(cleaned.code).toBe(0);
    expect(cleaned.stdout).toMatch(/removed the temporary ACL user swc-run-0a0b0c0d/);
    expect(((await redis.call('ACL', 'USERS')) as string[]).sort()).toEqual(['app-user', 'default', 'swc-run-deadbeef']);
    await redis.call('ACL', 'DELUSER', 'app-user', 'swc-run-deadbeef');
  });

  it("on a cluster, removes swc's marked users from every primary and keeps a look-alike", async () => {
    const cluster = await startPrivateCluster({ shards: 3 });
    const nodes = await Promise.all(cluster.urls.map((u) => connect(u)));
    try {
      for (const node of nodes) {
        const made = await confineRun(node, namespaceOf('swc-bench:0a0b0c0e'));
        made?.scripts.disconnect();
        await node.call('ACL', 'SETUSER', 'swc-run-deadbeef', 'on', '>z', '~swc-bench:deadbeef:*');
      }
      const cleaned = await runCli(['clean', '--cluster', '--redis-url', cluster.urls[0] as string, '--yes']);
      expect(cleaned.code).toBe(0);
      expect(cleaned.stdout).toMatch(/removed the temporary ACL user swc-run-0a0b0c0e/);
      for (const node of nodes) expect(((await node.call('ACL', 'USERS')) as string[]).sort()).toEqual(['default', 'swc-run-deadbeef']);
    } finally {
      for (const node of nodes) node.disconnect();
      await cluster.stop();
    }
  });
});
