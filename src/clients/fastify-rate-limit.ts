import type { ClientAdapter } from './types.js';
import { notYetDriven } from './not-yet.js';

/** `@fastify/rate-limit`: placeholder until its adapter lands (the facts below are to be checked against the package's own code). */
export const fastifyRateLimit: ClientAdapter = notYetDriven({ packageName: '@fastify/rate-limit', name: 'fastify-rate-limit', algorithm: 'fixed-window' });
