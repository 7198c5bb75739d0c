import type { ClientAdapter } from './types.js';
import { notYetDriven } from './not-yet.js';

/** `@upstash/ratelimit`: placeholder until its adapter lands (the facts below are to be checked against the package's own code). */
export const upstashRatelimit: ClientAdapter = notYetDriven({ packageName: '@upstash/ratelimit', name: 'upstash-ratelimit', algorithm: 'two-window' });
