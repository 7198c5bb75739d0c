import { describe, expect, it } from 'vitest';
import { commandsServer } from '../commands-sent.js';
import { runCli } from './run-cli.js';

// The commands inspect and lights send, as docs/inspect.md and their help list
// them, are checked in-process in test/integration/commands/redis-commands.test.ts;
// one run of each is spawned here.
const server = commandsServer();

describe('inspect and lights as processes', () => {
  it('neither writes: no script, no write command, the keys unchanged', async () => {
    const before = await server.redis().dbsize();
    const sent = [...(await server.commandsOf(runCli, ['inspect', 'checkout'])), ...(await server.commandsOf(runCli, ['lights']))];
    expect(sent.filter((c) => /^(eval|evalsha|fcall|set|hset|hincrby|zadd|del|unlink|expire|hdel|zrem)/.test(c))).toEqual([]);
    expect(await server.redis().dbsize()).toBe(before);
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
