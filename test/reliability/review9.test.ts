import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, readFileSync, readlinkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/redis/connect.js';
import { startPrivateServer } from '../../src/redis/server.js';
import { digest, keysMatching } from './digest.js';
import { redisUrl } from '../helpers.js';
import { runCli, SWC_BIN } from '../cli/run-cli.js';
import { spawn } from 'node:child_process';

const LUA = fileURLToPath(new URL('../../lua/', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-review9-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('verify --scripts reads Lua files as input files', () => {
  it('refuses a FIFO in the scripts folder with exit 2 instead of blocking forever', async () => {
    const root = path.join(dir, 'scripts');
    const layout = path.join(root, 'stoplight-v6');
    mkdirSync(layout, { recursive: true });
    for (const name of readdirSync(path.join(LUA, 'stoplight-v6'))) copyFileSync(path.join(LUA, 'stoplight-v6', name), path.join(layout, name));
    mkdirSync(path.join(root, 'lib'));
    for (const name of readdirSync(path.join(LUA, 'lib'))) copyFileSync(path.join(LUA, 'lib', name), path.join(root, 'lib', name));
    // record_success.lua stays a file: the folder is recognised by it; the next script read is the FIFO.
    rmSync(path.join(layout, 'record_failure.lua'));
    execFileSync('mkfifo', [path.join(layout, 'record_failure.lua')]);
    // Before the fix the read of the FIFO never returned and ignored SIGTERM; runCli's timeout would kill it.
    const result = await runCli(['verify', '--layout', 'stoplight-v6', '--scripts', root, '--redis-url', redisUrl()], {}, 30_000);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/record_failure\.lua: a FIFO \(named pipe\), not a regular file/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('output paths that are not regular files', () => {
  const fifo = path.join(dir, 'out.fifo.svg');
  execFileSync('mkfifo', [fifo]);
  // A link to a device stands in for /dev/full: were it replaced, only the link would be lost.
  const device = path.join(dir, 'device.json');
  symlinkSync('/dev/null', device);
  const bench = ['bench', '--rate', '1', '--window', '60', '--lights', '1', '--no-throughput', '--redis-url', redisUrl()];

  it.each([
    ['bench --output to a FIFO', [...bench, '--output', fifo], /a FIFO \(named pipe\): --output writes only to a regular file/],
    ['bench --output to a device (used to be renamed over)', [...bench, '--output', device], /a character device: --output writes only to a regular file/],
    ['bench --chart-out to a FIFO (used to block past SIGINT)', [...bench, '--chart-out', fifo], /--chart-out writes only to a regular file/],
  ])('%s: exit 2 before connecting, the path left as it was', async (_name, args, message) => {
    const result = await runCli(args, {}, 60_000);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/swc bench: run /);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(device).isSymbolicLink()).toBe(true);
  });
});

describe('verify on a server where it would evict', () => {
  it('refuses naming its own way out (fewer --calls), not bench-only --allow-eviction; user keys byte-identical, no swc key', async () => {
    const server = await startPrivateServer({ settings: ['maxmemory=3mb', 'maxmemory-policy=allkeys-lru'] });
    const redis = await connect(server.url);
    try {
      for (let i = 0; i < 300; i += 1) await redis.set(`app:${i}`, `value ${i}`.repeat(4));
      const before = await digest(redis, 'app:*');
      const result = await runCli(['verify', '--calls', '20000', '--redis-url', server.url]);
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^swc: refusing to write to this server: maxmemory 3\.0 MB, .*\(allkeys-lru\) \(fewer --calls need less memory\)$/m);
      expect(result.stderr).not.toMatch(/--allow-eviction/);
      // verify has no such option: the hint it used to print was a usage error.
      expect((await runCli(['verify', '--allow-eviction', '--redis-url', server.url])).stderr).toMatch(/unknown option '--allow-eviction'/);
      expect(await digest(redis, 'app:*')).toEqual(before);
      expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });
});

describe('--redis-url values that are not URLs', () => {
  const SECRET = 'Pw0nlyS3cret';

  it('a pasted password alone is refused with exit 2 and never echoed, by every command', async () => {
    for (const args of [['lights'], ['doctor', '--json'], ['clean'], ['inspect', 'x'], ['verify']]) {
      const result = await runCli([...args, '--redis-url', SECRET]);
      expect(result.code).toBe(2);
      expect(result.stdout + result.stderr).not.toContain(SECRET);
      // The hint used to be mangled by the scrubber into "redis://***@]host".
      expect(result.stderr).toMatch(/^swc: --redis-url: not a URL \(value not shown.*with user:password@ before the host when needed\)$/m);
    }
    const fromEnv = await runCli(['lights'], { REDIS_URL: SECRET });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stdout + fromEnv.stderr).not.toContain(SECRET);
  });

  it('a bare host:port gets its fix', async () => {
    const result = await runCli(['lights', '--redis-url', '127.0.0.1:6379']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean redis://127.0.0.1:6379?');
  });

  it('?db=x is a usage error (exit 2), not a raw "ERR value is not an integer" from Redis (exit 3)', async () => {
    const url = new URL(redisUrl());
    url.search = `?db=x&password=${SECRET}`;
    const result = await runCli(['lights', '--redis-url', url.toString()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^swc: --redis-url: database must be a whole number \(\?db=0 to \?db=15 by default\), got "\?db=x"$/m);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });
});

describe('a renamed command is named for what it is', () => {
  it('INFO renamed away: bench exit 3 naming INFO, not "EVALSHA and SCRIPT LOAD"', async () => {
    const result = await runCli(['bench', '--rate', '1', '--window', '60', '--lights', '1', '--no-throughput', '--redis-server-arg', 'rename-command=INFO ""']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^swc: Redis does not offer the INFO command .*: swc needs INFO; use a server that allows it/m);
    expect(result.stderr).not.toMatch(/EVALSHA and SCRIPT LOAD/);
  });
});

/** True while `pid` is a live process (a zombie has stopped: it holds no port and no CPU). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

describe('SIGKILL of swc with a private server', () => {
  it('the watchdogs stop both private redis-servers (the run\'s and its accuracy lane\'s) and remove their folders (one used to run on with parent 1)', async () => {
    const child = spawn(process.execPath, [SWC_BIN, 'bench', '--rate', '100', '--window', '300', '--lights', '5', '--time', '5'], {
      env: { ...process.env, REDIS_URL: '', NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no run line: ${stderr}`)), 60_000);
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        // The private server's run shows no run line; the first cell's line means the server is up.
        if (/^swc bench: /m.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // The run's server and its accuracy lane's (a second private server, started before the first cell).
    const children = execFileSync('pgrep', ['-P', String(child.pid), '-x', 'redis-server'], { encoding: 'utf8' }).trim().split('\n');
    expect(children).toHaveLength(2);
    const servers = children.map((pid) => ({ pid: Number(pid), folder: readlinkSync(`/proc/${pid}/cwd`) }));
    for (const { folder } of servers) expect(folder).toMatch(/swc-redis-/);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const deadline = Date.now() + 20_000;
    const left = (): boolean => servers.some(({ pid, folder }) => alive(pid) || existsSync(folder));
    while (left() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const { pid, folder } of servers) {
      expect(alive(pid), `redis-server ${pid}`).toBe(false);
      expect(existsSync(folder), folder).toBe(false);
    }
  }, 120_000);
});

describe('an ACL user limited to ~app:* runs lights', () => {
  it('exit 3, the hint names the pattern lights reads (stoplight:*), not only the one a bench writes', async () => {
    const server = await startPrivateServer();
    const redis = await connect(server.url);
    try {
      await redis.call('ACL', 'SETUSER', 'apponly', 'on', '>pw-apponly', '~app:*', '+@all');
      await redis.hset('stoplight:v5:metadata:a', 'last_success_at', '1');
      const url = new URL(server.url);
      url.username = 'apponly';
      url.password = 'pw-apponly';
      const result = await runCli(['lights', '--redis-url', url.toString()]);
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^swc: Redis ACL denies .* \(NOPERM\): grant it \(e\.g\. ACL SETUSER <user> ~swc-bench:\* for a bench, %R~stoplight:\* for lights and inspect\)/m);
      expect(result.stdout + result.stderr).not.toContain('pw-apponly');
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });
});
