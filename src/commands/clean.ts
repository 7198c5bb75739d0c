import { Command } from 'commander';
import { CleanupIncompleteError, listNamespaces, namespaceOf, purgeNamespace, type Namespace, type NamespaceUsage } from '../bench/namespace.js';
import { ExitCode } from '../errors.js';
import { redactUrl } from '../redis/connect.js';
import { SWC_VERSION } from '../version.js';
import { action } from './lifecycle.js';
import { addJsonOption, addRedisOptions, parser, printJson, sessionFromFlags, type RedisFlags } from './options.js';

/** Leftovers are on the server a bench ran against; there is no private server to clean. */
const DEFAULT_URL = 'redis://127.0.0.1:6379';

interface CleanFlags extends RedisFlags {
  namespace?: Namespace;
  yes?: boolean;
  json?: boolean;
}

/** `3 d 4 h`, `12 min`: how long ago a run started. */
function age(startedAt: number | null, now: number): string {
  if (startedAt === null) return 'unknown age (no run marker)';
  const seconds = Math.max(0, Math.round((now - startedAt) / 1000));
  if (seconds < 120) return `${seconds} s old`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes} min old`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min old` : `${Math.floor(hours / 24)} d ${hours % 24} h old`;
}

function describe(ns: NamespaceUsage, now: number): string {
  const size = ns.bytes === null ? 'bytes unavailable (MEMORY not allowed)' : `${(ns.bytes / 1024).toFixed(1)} KB`;
  const origin = ns.host ? `, from ${ns.host} pid ${ns.pid ?? '?'}` : '';
  return `${ns.prefix}  ${ns.keys} key(s), ${size}, ${age(ns.startedAt, now)}${origin}${ns.alive ? ', STILL RUNNING' : ''}`;
}

/** `swc clean`: list, and with --yes remove, what benchmark runs left on a server. */
export function cleanCommand(): Command {
  const command = new Command('clean')
    .description('list the swc-bench:* namespaces benchmark runs left on a Redis (age, keys, bytes); remove them with --yes')
    .option(
      '--namespace <prefix>',
      'only this run (swc-bench:<8 hex digits>, as swc bench prints it)',
      parser((value) => namespaceOf(value)),
    )
    .option('--yes', 'remove the namespaces listed (never a running one: its keys are refreshed within the last 15 s)');
  addRedisOptions(command, { privateServer: false });
  addJsonOption(command);
  command.addHelpText(
    'after',
    `
Only keys under swc-bench:<8 hex digits>: are ever listed or removed (SCAN, then
DEL grouped by hash slot; never KEYS, never FLUSHDB). A run still in progress (its alive
key exists) is listed but not removed.

Exit codes: 0 done (or nothing found), 1 something could not be removed or
is still running, 2 bad usage, 3 Redis unreachable.

Examples:
  swc clean --redis-url redis://127.0.0.1:6379/0
  swc clean --redis-url redis://127.0.0.1:6379/0 --namespace swc-bench:1a2b3c4d --yes`,
  );
  return command.action(
    action(async (flags: CleanFlags) => {
      const session = await sessionFromFlags(flags, DEFAULT_URL);
      const now = Date.now();
      const found = await listNamespaces(session.redis, flags.namespace);
      const removed: { prefix: string; keys: number }[] = [];
      const kept: { prefix: string; reason: string }[] = [];
      if (flags.yes) {
        for (const ns of found) {
          if (ns.alive) {
            kept.push({ prefix: ns.prefix, reason: 'still running' });
            continue;
          }
          try {
            removed.push({ prefix: ns.prefix, keys: await purgeNamespace(session.redis, namespaceOf(ns.prefix)) });
          } catch (err) {
            kept.push({ prefix: ns.prefix, reason: err instanceof CleanupIncompleteError ? err.message : String(err) });
          }
        }
      }
      const code = kept.length > 0 ? ExitCode.finding : ExitCode.ok;
      if (flags.json) {
        printJson({ schemaVersion: 1, swcVersion: SWC_VERSION, redis: { url: redactUrl(session.url) }, namespaces: found, removed, kept });
        return code;
      }
      const out: string[] = [];
      if (found.length === 0) out.push(flags.namespace ? `no keys under ${flags.namespace.pattern}` : 'no swc-bench:* namespaces on this server');
      for (const ns of found) out.push(describe(ns, now));
      for (const r of removed) out.push(`removed ${r.keys} key(s) under ${r.prefix}:*`);
      for (const k of kept) out.push(`kept ${k.prefix}: ${k.reason}`);
      if (!flags.yes && found.length > 0) out.push('', 'nothing removed: run again with --yes to remove them');
      process.stdout.write(`${out.join('\n')}\n`);
      return code;
    }),
  );
}
