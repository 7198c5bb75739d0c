/**
 * The names `--client` takes, apart from the registry so a command's
 * definition (its `--help`) loads no adapter. test/unit/clients keeps the two equal.
 */
import { UsageError } from '../core/errors.js';

/** Every package's `--client` name, in the registry's order. */
export const CLIENT_NAMES = [
  'rate-limiter-flexible',
  'rate-limit-redis',
  'fastify-rate-limit',
  'upstash-ratelimit',
  'ratelimiter',
  'rolling-rate-limiter',
] as const;

/** Package names that `--client` also takes, by the name they stand for. */
const PACKAGE_NAMES: Readonly<Record<string, string>> = { '@fastify/rate-limit': 'fastify-rate-limit', '@upstash/ratelimit': 'upstash-ratelimit' };

/** One `--client` value (a name, a comma list, or `all`) added to the names given before; a UsageError names the accepted ones. */
export function parseClients(value: string, previous: readonly string[] = []): string[] {
  const parts = value.split(',').map((p) => p.trim());
  if (value.trim() === '' || parts.some((p) => p === '')) throw new UsageError(`--client: expected a comma-separated list of packages, got "${value}"`);
  const names = parts.flatMap((part) => {
    if (part === 'all') return [...CLIENT_NAMES];
    const name = PACKAGE_NAMES[part] ?? part;
    if (!(CLIENT_NAMES as readonly string[]).includes(name)) throw new UsageError(`--client: expected one of ${CLIENT_NAMES.join(', ')} or all, got "${part}"`);
    return [name];
  });
  return [...new Set([...previous, ...names])];
}
