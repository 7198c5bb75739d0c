import type { ClientAdapter } from './types.js';
import { notYetDriven } from './not-yet.js';

/** `rolling-rate-limiter`: placeholder until its adapter lands (the facts below are to be checked against the package's own code). */
export const rollingRateLimiter: ClientAdapter = notYetDriven({ packageName: 'rolling-rate-limiter', name: 'rolling-rate-limiter', algorithm: 'sliding-log' });
