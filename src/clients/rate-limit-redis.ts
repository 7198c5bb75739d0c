import type { ClientAdapter } from './types.js';
import { notYetDriven } from './not-yet.js';

/** `rate-limit-redis`: placeholder until its adapter lands (the facts below are to be checked against the package's own code). */
export const rateLimitRedis: ClientAdapter = notYetDriven({ packageName: 'rate-limit-redis', name: 'rate-limit-redis', algorithm: 'fixed-window' });
