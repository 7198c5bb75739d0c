/**
 * #41: trust in two. `--trust-scripts` runs scripts swc did not write on a
 * user's server confined to a temporary ACL user, or not at all: where the
 * server does not let swc create that user, it is refused (exit 2) in one
 * line naming `--unconfined-scripts`, and nothing of the run reaches the
 * server (MONITOR shows no call, load or key of the run's scripts; the user's
 * keys are identical). `--unconfined-scripts`, the dangerous one, runs them
 * there with the connection's own rights and says so in one line. The
 * library's take is in test/integration/library/guarded-bench.test.ts. Each case
 * has a server of its own: they run at once.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { digest, fileServers, monitor } from '../../helpers.js';
import { runCli } from '../run-cli.js';

const EXAMPLE = fileURLToPath(new URL('../../../fixtures/manifests/example/', import.meta.url));
const { dir, start } = fileServers('trust-split');

/** A string the script carries in its text: any load or call of it on the user's server shows it under MONITOR. */
const MARK = 'swc-trust-split-mark';

/** The example manifest in a folder of its own, its record.lua carrying {@link MARK}. */
function manifest(name: string): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE, folder, { recursive: true });
  const file = path.join(folder, 'record.lua');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\nreturn now\n$/, `\nlocal mark = '${MARK}'\nreturn now\n`));
  return path.join(folder, 'my-log.json');
}

/** A user's server whose default user may not run ACL (so swc cannot make its temporary user), with 40 keys of its own. */
async function noAclServer(): Promise<{ url: string; redis: Redis }> {
  const { url, redis } = await start({ settings: ['user=default on nopass ~* &* +@all -acl'], allowAnySetting: true });
  for (let i = 0; i < 20; i += 1) {
    await redis.set(`app:str:${i}`, `value ${i}`);
    await redis.hset(`app:hash:${i}`, 'f', String(i));
  }
  return { url, redis };
}

const benchArgs = ['--rate', '2', '--window', '30', '--lights', '1', '--no-throughput', '--no-progress'];

describe.concurrent('where swc may not create the temporary ACL user', () => {
  it.each(['bench', 'verify'] as const)(
    '%s --trust-scripts: refused, exit 2, one line naming --unconfined-scripts; nothing of the run sent, user keys identical',
    async (command) => {
      const { url, redis } = await noAclServer();
      const before = await digest(redis, '*');
      const watch = await monitor(url);
      const args = command === 'bench' ? benchArgs : ['--calls', '200', '--lights', '2'];
      const result = await runCli([command, '--layout', manifest(`refused-${command}`), ...args, '--trust-scripts', '--redis-url', url]);
      watch.stop();
      expect(result.code, result.stderr).toBe(2);
      const refusals = result.stderr.split('\n').filter((l) => /^swc: /.test(l));
      expect(refusals).toEqual([
        expect.stringMatching(
          /^swc: --trust-scripts: refused: .*record\.lua.* does not let swc create the temporary ACL user .*nothing of the run was sent.* pass --unconfined-scripts .*dangerous/,
        ),
      ]);
      // The preflight's checks ran (INFO, its probe keys); no load, call or key of the run's scripts did.
      expect(watch.seen.some((args) => args.some((a) => a.includes(MARK)))).toBe(false);
      const evalsOfRun = watch.seen.filter((args) => /^eval/i.test(args[0] ?? '') && !args.some((a) => a.includes('{probe}')));
      expect(evalsOfRun).toEqual([]);
      // No run marker, no turn taken: nothing of the run but the checks.
      expect(watch.seen.filter((args) => args.some((a) => /:(run|alive)$/.test(a)))).toEqual([]);
      expect(await digest(redis, '*')).toEqual(before);
    },
  );

  it("bench --unconfined-scripts: runs them with the connection's rights, saying so in one line; exit 0, no key left", async () => {
    const { url, redis } = await noAclServer();
    const before = await digest(redis, 'app:*');
    const result = await runCli(['bench', '--layout', manifest('unconfined'), ...benchArgs, '--unconfined-scripts', '--redis-url', url]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split('\n').filter((l) => /UNCONFINED/.test(l))).toEqual([
      expect.stringMatching(
        /^swc bench: --unconfined-scripts: running .*record\.lua.* UNCONFINED, with your connection's own rights, on redis:\/\/127\.0\.0\.1:\d+/,
      ),
    ]);
    expect(await digest(redis, 'app:*')).toEqual(before);
    expect(await redis.keys('swc-bench:*')).toEqual([]);
  });
});

describe('help', () => {
  it('names --unconfined-scripts as the dangerous one, in bench and verify', async () => {
    for (const command of ['bench', 'verify']) {
      const help = (await runCli([command, '--help'])).stdout.replace(/\s+/g, ' ');
      expect(help).toMatch(/--unconfined-scripts DANGEROUS: /);
      expect(help).toMatch(/--trust-scripts .*Refused where the server does not let swc create that user \(see --unconfined-scripts\)/);
    }
  });
});
