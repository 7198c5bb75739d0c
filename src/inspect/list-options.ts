import { UsageError } from '../core/errors.js';
import { lightStates, type LightStateName } from '../layouts/inspection.js';

// The choices of `swc lights --sort` and `--state`, without the listing
// itself: the CLI defines its flags with them at start-up.

/** Orders of `swc lights --sort`. */
export const lightOrders = ['bytes', 'idle', 'events', 'name', 'rate', 'state'] as const;
export type LightOrder = (typeof lightOrders)[number];

/**
 * Parses `--state red,yellow`: each a state (`locked red` also as
 * `locked-red` or `locked_red`). Throws a UsageError naming the flag and the accepted values.
 */
export function parseStates(value: string): LightStateName[] {
  const out: LightStateName[] = [];
  for (const raw of value.split(',')) {
    const v = raw
      .trim()
      .toLowerCase()
      .replace(/[-_\s]+/g, ' ');
    const state = lightStates.find((s) => s === v);
    if (!state) throw new UsageError(`--state: expected a comma-separated list of ${lightStates.join(', ')}; got "${raw.trim()}"`);
    if (!out.includes(state)) out.push(state);
  }
  return out;
}

/** What an application's Redis can hold: Stoplight's layouts (swc's own designs only come with `--layout all`). */
export const APPLICATION_LAYOUTS = ['stoplight-v5', 'stoplight-v6'] as const;
