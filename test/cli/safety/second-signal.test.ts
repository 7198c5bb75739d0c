/**
 * #41: an impatient second Ctrl-C cuts the orderly clean-up short, but not
 * before the run's temporary ACL user (a password-authenticated account swc
 * made) is deleted; then swc says which keys of the run remain and the
 * command that removes them, and exits 130. The user's server pauses writes
 * (CLIENT PAUSE WRITE) before the first Ctrl-C, so the run's keys cannot be
 * deleted in time and the second Ctrl-C has something to report.
 */
import { describe, expect, it } from 'vitest';
import { digest, fileServers } from '../../helpers.js';
import { exampleCopy, LONG_RUN } from '../../hostile-manifests.js';
import { runCli, startCli } from '../run-cli.js';

const { dir, start } = fileServers('second-signal');

describe('a second Ctrl-C during the clean-up of a confined run', () => {
  it('deletes the temporary ACL user first, then names the keys left and the command that removes them; exit 130', async () => {
    const { redis, url } = await start();
    for (let i = 0; i < 20; i += 1) await redis.set(`app:user:${i}`, `user ${i}`);
    const before = await digest(redis, 'app:*');
    const run = startCli(['bench', '--layout', exampleCopy(dir, 'example'), ...LONG_RUN, '--no-progress', '--trust-scripts', '--redis-url', url]);
    const user = (await run.waitFor(/temporary ACL user (swc-run-[0-9a-f]{8})/))[1] as string;
    // Mid-cell on the user's server (after the rehearsal): the run has keys of its own there.
    const cellKeys = async (): Promise<string[]> => (await redis.keys('swc-bench:*')).filter((k) => !/:(run|alive)$/.test(k));
    while ((await cellKeys()).length === 0) {
      if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error(`swc ended before writing a key:\n${run.stderr()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await redis.call('ACL', 'USERS')).toContain(user);
    // Writes paused: the clean-up's deletes wait; ACL DELUSER and SCAN are not writes.
    await redis.call('CLIENT', 'PAUSE', '60000', 'WRITE');
    try {
      run.child.kill('SIGINT');
      await run.waitFor(/SIGINT: cleaning up/);
      run.child.kill('SIGINT');
      expect((await run.exited).code).toBe(130);
      const lines = run.stderr().split('\n');
      const removed = lines.findIndex((l) => l === `swc bench: removed the run's temporary ACL user ${user}`);
      const left = lines.findIndex((l) =>
        /^swc bench: \d+ key\(s\) of this run remain under swc-bench:[0-9a-f]{8}:\*; remove them with: swc clean --redis-url redis:\/\/127\.0\.0\.1:\d+\/0 --namespace swc-bench:[0-9a-f]{8} --yes$/.test(
          l,
        ),
      );
      expect(removed, run.stderr()).toBeGreaterThan(-1);
      expect(left, run.stderr()).toBeGreaterThan(removed);
      expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
      const remaining = Number(/(\d+) key\(s\) of this run remain/.exec(lines[left] as string)?.[1]);
      expect((await redis.keys('swc-bench:*')).length).toBe(remaining);
      await redis.call('CLIENT', 'UNPAUSE');
      // The command it named removes them.
      const command = /remove them with: swc (.*)$/.exec(lines[left] as string)?.[1]?.split(' ') ?? [];
      const cleaned = await runCli(command);
      expect(cleaned.code, cleaned.stderr).toBe(0);
      expect(await redis.keys('swc-bench:*')).toEqual([]);
      expect(await digest(redis, 'app:*')).toEqual(before);
    } finally {
      await redis.call('CLIENT', 'UNPAUSE');
    }
  });
});
