/**
 * The read-only ACL docs/operator.md gives runs lights, inspect and doctor
 * (exit 0), and doctor tells that user what it may use; a user with `+@read`
 * alone is told which grant it lacks.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { READ_ONLY_ACL } from '../../../src/redis/connect.js';
import type { PrivateServer } from '../../../src/redis/server.js';
import { HOUR_START, aclUserUrl, ownServer } from '../../helpers.js';
import { runCli } from '../run-cli.js';

let server: PrivateServer;
let redis: Redis;
ownServer((s, r) => {
  server = s;
  redis = r;
});

const OPERATOR = readFileSync(fileURLToPath(new URL('../../../docs/operator.md', import.meta.url)), 'utf8');

beforeAll(async () => {
  for (const [layout, name] of [
    [new StoplightV5(), 'orders'],
    [new StoplightV6(), 'checkout'],
  ] as const) {
    const client = await LayoutClient.open(redis, layout);
    await client.recordSuccess({ name }, { at: HOUR_START, windowSeconds: 60 });
    await client.recordFailure({ name }, { at: HOUR_START + 1, windowSeconds: 60, errorJson: '{"error":{"class":"E","message":"m"},"time":1}' });
  }
});

describe('a read-only user', () => {
  it('docs/operator.md gives the same rules swc names in its errors', () => {
    expect(OPERATOR).toContain(`ACL SETUSER swc-reader on >password ${READ_ONLY_ACL}`);
  });

  it('with the documented ACL: lights, inspect and doctor exit 0, and doctor names what it may use', async () => {
    const url = await aclUserUrl(redis, server.url, 'swc-reader', READ_ONLY_ACL.split(' '));
    const before = await redis.dbsize();
    const lights = await runCli(['lights', '--match', 'checkout', '--redis-url', url, '--json']);
    expect(lights.code, lights.stderr).toBe(0);
    const names = (JSON.parse(lights.stdout) as { lights: { name: string }[] }).lights.map((l) => l.name);
    expect(names).toEqual(['default/checkout']);
    const all = await runCli(['lights', '--redis-url', url]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/orders/);
    for (const light of ['orders', 'checkout']) {
      const inspect = await runCli(['inspect', light, '--redis-url', url]);
      expect(inspect.code, inspect.stderr).toBe(0);
    }
    const doctor = await runCli(['doctor', '--redis-url', url]);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/Redis 7|Redis 6\.2/);
    expect(doctor.stdout).not.toMatch(/may run every command/);
    expect(doctor.stdout).toMatch(/this user may use swc lights, inspect, doctor \(read commands only\); refused: bench/);
    expect(doctor.stdout).toMatch(/ready for lights, inspect, doctor/);
    const json = await runCli(['doctor', '--redis-url', url, '--json']);
    const access = (JSON.parse(json.stdout) as { access: { readOnly: boolean; allows: string[]; refuses: string[] } }).access;
    expect(access.readOnly).toBe(true);
    expect(access.allows).toEqual(['lights', 'inspect', 'doctor']);
    expect(access.refuses.some((r) => r.startsWith('bench'))).toBe(true);
    // Nothing was written by any of them.
    expect(await redis.dbsize()).toBe(before);
  });

  it('with +@read alone: the error names +ping (exit 3)', async () => {
    const url = await aclUserUrl(redis, server.url, 'reads-only', ['~*', '+@read', '-@write']);
    for (const command of [['lights'], ['inspect', 'orders'], ['doctor']]) {
      const result = await runCli([...command, '--redis-url', url]);
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/denies user "reads-only" the PING command: grant \+ping/);
      expect(result.stderr).toContain(READ_ONLY_ACL);
    }
  });

  it('without +time: lights names +time, doctor fails naming it', async () => {
    const url = await aclUserUrl(redis, server.url, 'no-clock', ['~*', '+@read', '+ping']);
    const lights = await runCli(['lights', '--redis-url', url]);
    expect(lights.code).not.toBe(0);
    expect(lights.stderr).toMatch(/the TIME command \(NOPERM\): grant it \(e\.g\. ACL SETUSER <user> \+time\)/);
    expect(lights.stderr).toContain(READ_ONLY_ACL);
    const doctor = await runCli(['doctor', '--redis-url', url]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/FAIL\s+access connection\s+may not run TIME .*grant \+time/);
  });

  it('a user that may write but not run ACL: doctor asks with forms that fail before they touch anything (nothing written, no script cached)', async () => {
    const url = await aclUserUrl(redis, server.url, 'no-acl', ['~*', '+@all', '-acl']);
    const before = await redis.dbsize();
    await redis.call('CONFIG', 'RESETSTAT');
    const doctor = await runCli(['doctor', '--redis-url', url]);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toMatch(/the server's NOPERM answers/);
    expect(await redis.dbsize()).toBe(before);
    // Every write-family probe reached the server and failed there (Redis 7 counts them in failed_calls).
    const stats = String(await redis.info('commandstats'));
    // Before Redis 7 commandstats has no failed_calls: the key count above is the check there.
    for (const command of /failed_calls/.test(stats) ? ['set', 'hincrby', 'zadd', 'expire', 'evalsha', 'script\\|load'] : []) {
      const line = new RegExp(`^cmdstat_${command}:calls=(\\d+),.*failed_calls=(\\d+)`, 'm').exec(stats);
      expect(line, command).not.toBeNull();
      expect({ command, calls: line?.[1], failed: line?.[2] }).toEqual({ command, calls: line?.[2], failed: line?.[1] });
    }
    expect(await redis.call('SCRIPT', 'EXISTS', '0'.repeat(40))).toEqual([0]);
  });
});
