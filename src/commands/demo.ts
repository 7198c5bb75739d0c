import { Command, Option } from 'commander';
import type { Shard } from '../run/open.js';
import { ExitCode, UsageError } from '../core/errors.js';
import { action, onShutdown, registerUrlSecrets } from './lifecycle.js';
import { addJsonOption, parser, printJson } from './options.js';

interface DemoFlags {
  redisUrl?: string;
  write?: boolean;
  then?: 'lights';
  json?: boolean;
}

/** `swc demo`: Stoplight lights to try `swc lights` and `swc inspect` on. */
export function demoCommand(): Command {
  const command = new Command('demo')
    .description('write a small Stoplight application (red, yellow, recovered, locked, default-config lights) to try lights and inspect on')
    .addOption(
      new Option(
        '--redis-url <url>',
        'write into this server instead of a private one (needs --write; names marked swc-demo:<id>:, removed by swc clean)',
      ).argParser(
        parser((value: string) => {
          registerUrlSecrets(value);
          return value;
        }),
      ),
    )
    .option('--write', 'with --redis-url: yes, write the demo lights into that server (refused if any of its keys exists)')
    .addOption(new Option('--then <command>', 'on the private server: run this listing and exit instead of serving').choices(['lights']));
  addJsonOption(command);
  command.addHelpText(
    'after',
    `
By default swc starts a private redis-server, writes 8 lights (4 of Stoplight
5.x, 4 of 6.0) with 4 minutes of traffic through swc's own writers, prints
the commands to try with its URL, and serves until Ctrl-C; the server and
its lights go with it. $REDIS_URL is never used: only --redis-url --write
writes into a server swc did not start, under names that carry
swc-demo:<8 hex>: and a marker swc-demo:<8 hex>:run listing every key;
swc clean --yes removes exactly those keys.

Exit codes: 0 written (or --then done), 2 bad usage, 3 Redis unreachable or
a demo key exists already, 130 Ctrl-C (the end of serving).

Examples:
  swc demo
  swc demo --then lights
  swc demo --redis-url redis://127.0.0.1:6379 --write --json
  swc clean --redis-url redis://127.0.0.1:6379 --yes`,
  );
  return command.action(
    action(async (flags: DemoFlags) => {
      if (flags.redisUrl !== undefined && !flags.write) {
        throw new UsageError('--redis-url: swc demo writes into a server of yours only with --write (or drop --redis-url for a private server)');
      }
      if (flags.write && flags.redisUrl === undefined) throw new UsageError('--write: needs --redis-url <url> (the server to write the demo lights into)');
      if (flags.then !== undefined && flags.redisUrl !== undefined) throw new UsageError('--then: runs on the private server only; drop --redis-url');
      const [{ openTarget }, { runDemo }, { demoDocument, demoLines }, { redactUrl }, { proseWidth, wrapText }] = await Promise.all([
        import('../run/open.js'),
        import('../demo/demo.js'),
        import('../report/demo.js'),
        import('../redis/url.js'),
        import('../report/width.js'),
      ]);
      const target = await openTarget(flags.redisUrl !== undefined ? { url: flags.redisUrl, flag: '--redis-url' } : { privateServer: {} });
      onShutdown(() => target.close());
      const { session } = target.shards[0] as Shard;
      const result = await runDemo(session.redis, { marked: !session.server });
      const where = { url: session.server ? session.url : redactUrl(session.url), private: Boolean(session.server) };
      if (flags.then === 'lights') {
        const { runList } = await import('./listing.js');
        return runList({ window: result.windowSeconds, progress: false, redisServerArg: [], ...(flags.json ? { json: true } : {}) }, undefined, target);
      }
      if (flags.json) printJson(demoDocument(result, where));
      else process.stdout.write(`${wrapText(demoLines(result, where).join('\n'), proseWidth(), 4)}\n`);
      if (!session.server) return ExitCode.ok;
      // Serve until a signal: its handler stops the private server (registered above) and exits 130.
      await new Promise<never>(() => setInterval(() => undefined, 1 << 30));
    }),
  );
}
