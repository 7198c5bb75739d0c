import type { ClientAdapter } from './types.js';
import { notYetDriven } from './not-yet.js';

/** `ratelimiter`: placeholder until its adapter lands (the facts below are to be checked against the package's own code). */
export const ratelimiter: ClientAdapter = notYetDriven({ packageName: 'ratelimiter', name: 'ratelimiter', algorithm: 'sliding-log' });
