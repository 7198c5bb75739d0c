/**
 * Round 5's two ways past the time guard, end to end on a user's server
 * (`--trust-scripts --redis-url`), each hidden until after swc's probe (the
 * script counts its calls per light; the probe makes a dozen):
 *
 * - a write, then a loop after a comment that ends at a bare CR: Lua reads
 *   the loop as code, the old hand tokenizer as comment, so it ran
 *   unguarded and left the server BUSY and UNKILLABLE after swc exited;
 * - straight-line slow calls and no loop at all: the old guard checked loops
 *   only, so 300 such calls held the server for seconds.
 *
 * Each now ends by the guard within its call: exit 3, one line naming the
 * script's line, the server answering PING at once, user keys unchanged.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { digest, fileServers } from '../../helpers.js';
import { runCli, words } from '../run-cli.js';

const EXAMPLE = fileURLToPath(new URL('../../../fixtures/manifests/example/', import.meta.url));
const { dir, start } = fileServers('guard-grammar');

/** The user's server, with a busy threshold of 200 ms: a call's budget is 50 ms. */
const server = (): Promise<{ url: string; redis: Redis }> => start({ settings: ['lua-time-limit=200'], allowAnySetting: true });

/** The example manifest, record.lua running `tail` (after its writes) once a light has had 15 calls. */
function manifest(name: string, tail: string): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE, folder, { recursive: true });
  const file = path.join(folder, 'record.lua');
  const text = readFileSync(file, 'utf8').replace(/\nreturn now\n$/, `\nif redis.call('HINCRBY', KEYS[2], 'calls', 1) > 15 then\n${tail}\nend\nreturn now\n`);
  writeFileSync(file, text);
  return path.join(folder, 'my-log.json');
}

const bench = (layout: string, url: string) =>
  runCli(['bench', '--layout', layout, ...words('--rate 2 --window 30 --lights 1 --no-throughput --no-progress --trust-scripts'), '--redis-url', url]);

describe.concurrent('ways past the old time guard, after the probe, on a user server', () => {
  it.each([
    ['a loop after a comment ended by a bare CR', "redis.call('SET', KEYS[2] .. ':x', 1) -- the comment ends here\rwhile true do end"],
    [
      '300 slow string.find calls in a row, no loop',
      `local s = string.rep('a', 2000)\n${Array.from({ length: 300 }, () => "string.find(s, '.-b')").join('\n')}`,
    ],
  ])('%s: ended by the guard in its call in the rehearsal, exit 3, one line naming record.lua and its line; PING answers at once', async (label, tail) => {
    const { url, redis } = await server();
    for (let i = 0; i < 10; i += 1) await redis.set(`app:user:${i}`, `user ${i}`);
    const before = await digest(redis, 'app:*');
    const result = await bench(manifest(label.replace(/\W+/g, '-'), tail), url);
    expect(await redis.ping()).toBe('PONG');
    // The guard ends the call in swc's rehearsal on a private server (the user's busy threshold copied), before the first write on the user's.
    expect(result.stderr).toMatch(
      /^swc: refused before the first write: \S*record\.lua ran past its budget of 50 ms in one call in swc's rehearsal of this run on a private redis [\d.]+ at 127\.0\.0\.1:\d+; the time guard swc puts into scripts it did not write \(--trust-scripts\) ended that call at \S*record\.lua:\d+.*nothing of the run was sent to redis:\/\/127\.0\.0\.1:\d+/m,
    );
    expect(result.stderr).not.toMatch(/UNKILLABLE|ran over|clock wrapper/);
    expect(result.code).toBe(3);
    expect(await digest(redis, 'app:*')).toEqual(before);
    expect(await redis.keys('swc-bench:*')).toEqual([]);
  });
});

describe('a script the guard cannot read as Lua 5.1', () => {
  it('is refused before the probe and before anything reaches the user server: exit 2, one line naming the file and line', async () => {
    const { url, redis } = await server();
    const folder = path.join(dir, 'unreadable');
    cpSync(EXAMPLE, folder, { recursive: true });
    const file = path.join(folder, 'record.lua');
    // Lua 5.2's goto: Redis's Lua 5.1 cannot compile it either.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\nreturn now\n$/, '\ngoto done\n::done::\nreturn now\n'));
    const result = await bench(path.join(folder, 'my-log.json'), url);
    expect(result.stderr).toMatch(
      /record\.lua:\d+: refused: swc cannot read this script as Lua 5\.1 \(.*\), so it cannot put its time guard in; nothing was sent/,
    );
    expect(result.code).toBe(2);
    expect(await redis.dbsize()).toBe(0);
    expect(String(await redis.info('commandstats'))).not.toMatch(/cmdstat_(evalsha|script)/);
  });
});
