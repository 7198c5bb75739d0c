/**
 * docs/inspect.md and each command's --help name exactly the Redis commands
 * inspect and lights send, counted on a server of the file's own, with the
 * commands run in-process. test/cli/redis-commands.test.ts spawns one run of
 * each (that neither writes) and bench against a server without INFO.
 */
import { describe, expect, it } from 'vitest';
import { claimed, commandsServer } from '../../commands-sent.js';
import { runInProcess } from '../../unit/in-process.js';

const server = commandsServer();
const commandsOf = (args: readonly string[]): Promise<string[]> => server.commandsOf(runInProcess, args);

describe('the README names exactly the Redis commands inspect and lights send', () => {
  it('inspect (both layouts, with and without a window, and a name only a walk finds)', async () => {
    const sent = new Set([
      ...(await commandsOf(['inspect', 'checkout', '--window', '60'])),
      ...(await commandsOf(['inspect', 'checkout', '--json'])),
      ...(await commandsOf(['inspect', 'search'])),
    ]);
    expect([...sent].sort()).toEqual(claimed('inspect'));
  });

  it('lights (with a window, every format the same)', async () => {
    const sent = await commandsOf(['lights', '--window', '60']);
    expect(sent).toEqual(claimed('lights'));
  });

  it('each --help lists the same commands as the README', async () => {
    for (const command of ['inspect', 'lights']) {
      const help = (await runInProcess([command, '--help'])).stdout.replace(/\s+/g, ' ');
      const listed = /Commands sent: ([A-Z ,]+?)\.? \(|Commands sent: ([A-Z ,]+)\./.exec(help);
      const names = (listed?.[1] ?? listed?.[2] ?? '')
        .split(', ')
        .map((c) => c.trim().toLowerCase().replace(' ', '|'))
        .sort();
      expect(names, command).toEqual(claimed(command));
    }
  });
});
