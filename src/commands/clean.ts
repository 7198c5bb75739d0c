import { Command } from 'commander';
import { namespaceOf, type Namespace } from '../safety/namespace.js';
import { ExitCode } from '../core/errors.js';
import { action } from './lifecycle.js';
import { addClusterOptions, addJsonOption, addRedisOptions, parser, printJson, type ClusterFlags, type RedisFlags } from './options.js';

/** Leftovers are on the server a bench ran against; there is no private server to clean. */
const DEFAULT_URL = 'redis://127.0.0.1:6379';

interface CleanFlags extends RedisFlags, ClusterFlags {
  namespace?: Namespace;
  yes?: boolean;
  json?: boolean;
}

/** `swc clean`: list, and with --yes remove, what benchmark runs left on a server. */
export function cleanCommand(): Command {
  const command = new Command('clean')
    .description('list the swc-bench:* namespaces benchmark runs left on a Redis, and swc demo lights (age, keys, bytes); remove them with --yes')
    .option(
      '--namespace <prefix>',
      'only this run (swc-bench:<8 hex digits>, as swc bench prints it)',
      parser((value) => namespaceOf(value)),
    )
    .option('--yes', 'remove the namespaces listed (never a running one: its keys are refreshed within the last 15 s)');
  addRedisOptions(command, { privateServer: false });
  addClusterOptions(command, { privateCluster: false });
  addJsonOption(command);
  command.addHelpText(
    'after',
    `
Only keys under swc-bench:<8 hex digits>: are ever listed or removed (SCAN,
then DEL grouped by hash slot; never KEYS, never FLUSHDB). A run still in
progress (its alive key exists) is listed but not removed. The lights of
swc demo --write are removed by their marker swc-demo:<8 hex>:run: exactly
the keys it lists that carry the demo's id, then the marker.

Exit codes: 0 done (or nothing found), 1 something could not be removed or
is still running, 2 bad usage, 3 Redis unreachable.

On Redis Cluster (--cluster, or several --redis-url seeds): SCAN on every
primary, each DEL sent to the primary that owns its slot; each namespace says how many of
its keys each node holds (JSON: "nodes").

Examples:
  swc clean --redis-url redis://127.0.0.1:6379/0
  swc clean --redis-url redis://127.0.0.1:6379/0 \\
    --namespace swc-bench:1a2b3c4d --yes
  swc clean --cluster --redis-url redis://10.0.0.5:7000 --yes`,
  );
  return command.action(
    action(async (flags: CleanFlags) => {
      const [{ cleanServer }, { cleanDocument, cleanLines }, { primariesOf, readTargetFromFlags }, { redactUrl }, { shown }, { proseWidth, wrapText }] =
        await Promise.all([
          import('../clean/clean.js'),
          import('../report/clean.js'),
          import('./cluster-read.js'),
          import('../redis/url.js'),
          import('../safety/text.js'),
          import('../report/width.js'),
        ]);
      const session = await readTargetFromFlags(flags, DEFAULT_URL, 'clean');
      const now = Date.now();
      const result = await cleanServer(session, { ...(flags.namespace ? { namespace: flags.namespace } : {}), remove: Boolean(flags.yes) });
      const code = result.failed ? ExitCode.finding : ExitCode.ok;
      if (flags.json) {
        printJson(cleanDocument(result, { url: redactUrl(session.url), ...(session.cluster ? { primaries: primariesOf(session) } : {}) }));
        return code;
      }
      const where = session.cluster ? `on the ${session.cluster.shards.length} primaries of this cluster` : 'on this server';
      const lines = cleanLines(result, {
        now,
        where,
        ...(flags.namespace ? { pattern: flags.namespace.pattern } : {}),
        removing: Boolean(flags.yes),
        escape: shown,
      });
      process.stdout.write(`${wrapText(lines.join('\n'), proseWidth())}\n`);
      return code;
    }),
  );
}
