import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

// A stand-in for redis-server that records every start (and starts nothing:
// this lane has none). The same program and error path as the CLI, in-process;
// test/cli/private-server.test.ts keeps one spawn per command.
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-server-args-'));
const starts = path.join(dir, 'starts');
const recorder = path.join(dir, 'redis-server');
writeFileSync(recorder, `#!/bin/sh\necho "$$" >> '${starts}'\nexit 1\n`);
chmodSync(recorder, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const serversStarted = (): number => {
  try {
    return readFileSync(starts, 'utf8').trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

describe("settings that would make the private server not swc's alone are refused before anything starts", () => {
  it.each([
    ['daemonize=yes', 'daemonize'],
    ['DAEMONIZE=yes', 'daemonize'],
    ['--daemonize=yes', 'daemonize'],
    ['bind=0.0.0.0', 'bind'],
    ['protected-mode=no', 'protected-mode'],
    ['port=6379', 'port'],
    ['tls-port=6380', 'tls-port'],
    ['unixsocket=/tmp/swc.sock', 'unixsocket'],
    ['dir=/tmp', 'dir'],
    ['dbfilename=dump.rdb', 'dbfilename'],
    ['appendonly=yes', 'appendonly'],
    ['save=900 1', 'save'],
    ['logfile=/tmp/swc.log', 'logfile'],
    ['pidfile=/tmp/swc.pid', 'pidfile'],
    ['include=/etc/redis/redis.conf', 'include'],
    ['loadmodule=/tmp/module.so', 'loadmodule'],
    ['replicaof=10.0.0.1 6379', 'replicaof'],
    ['aclfile=/tmp/users.acl', 'aclfile'],
    ['supervised=systemd', 'supervised'],
    ['maxmemory=100mb --daemonize yes', 'maxmemory'],
  ])('--redis-server-arg %s: exit 2 naming %s, no server started', async (setting, name) => {
    for (const command of [['doctor'], ['bench', '--rate', '1', '--window', '10', '--no-throughput']]) {
      const result = await runInProcess([...command, '--redis-server-arg', setting], { SWC_REDIS_SERVER: recorder });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^swc: --redis-server-arg: ${name}\\b`));
    }
    expect(serversStarted()).toBe(0);
  });
});
