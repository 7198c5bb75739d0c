/** `swc bench --client`: rate-limiter packages driven through their own calls, beside the layouts. */
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { parseList, parseNumber } from '../../bench/values.js';
import { parser } from '../options.js';

/** The names `--client` takes (the registry's, kept here so `--help` loads no adapter). */
export const CLIENT_NAMES = ['rate-limiter-flexible', 'rate-limit-redis', 'fastify-rate-limit', 'upstash-ratelimit', 'ratelimiter', 'rolling-rate-limiter'] as const;

/** Package names that `--client` also takes, by the short name they stand for. */
const PACKAGE_NAMES: Readonly<Record<string, string>> = { '@fastify/rate-limit': 'fastify-rate-limit', '@upstash/ratelimit': 'upstash-ratelimit' };

/** One `--client` value: a name, a comma list, or `all`. */
export function parseClients(value: string, previous: readonly string[] = []): string[] {
  const names = parseList('--client', value, (part) => {
    if (part === 'all') return [...CLIENT_NAMES];
    const name = PACKAGE_NAMES[part] ?? part;
    if (!(CLIENT_NAMES as readonly string[]).includes(name)) throw new UsageError(`--client: expected one of ${CLIENT_NAMES.join(', ')} or all, got "${part}"`);
    return [name];
  }).flat();
  return [...new Set([...previous, ...names])];
}

/** `--limit`: decisions go one at a time through the package, so a run's traffic stays in the tens of thousands. */
export const CLIENT_LIMIT = { min: 1, max: 10_000, integer: true } as const;

/** --client, --limit. */
export function addClientOptions(command: Command): Command {
  return command
    .option(
      '--client <names>',
      `rate-limiter packages to drive through their own calls (loaded from this project's node_modules), repeatable or comma-separated: ${CLIENT_NAMES.join(', ')}, or all`,
      (value: string, previous: string[] | undefined) => parser((v: string) => parseClients(v, previous ?? []))(value),
    )
    .option(
      '--limit <n>',
      'with --client: decisions each package allows per window (default: --rate × --window)',
      parser((v) => parseNumber('--limit', v, CLIENT_LIMIT)),
    );
}
