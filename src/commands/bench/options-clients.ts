/** `swc bench --client`: rate-limiter packages driven through their own calls, beside the layouts. */
import type { Command } from 'commander';
import { CLIENT_NAMES, parseClients } from '../../clients/names.js';
import { parseNumber } from '../../run/values.js';
import { parser } from '../options.js';

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
