import type { ClientAdapter } from './types.js';
import { notYetDriven } from './not-yet.js';

/** `rate-limiter-flexible`: placeholder until its adapter lands (the facts below are to be checked against the package's own code). */
export const rateLimiterFlexible: ClientAdapter = notYetDriven({
  packageName: 'rate-limiter-flexible',
  name: 'rate-limiter-flexible',
  algorithm: 'fixed-window',
});
