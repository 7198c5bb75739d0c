import { EnvironmentError } from '../core/errors.js';
import type { ClientAdapter, ClientAlgorithm } from './types.js';

/** An adapter whose package swc cannot drive yet: it is listed, and opening it fails with a clear line. */
export function notYetDriven(id: { packageName: string; name: string; algorithm: ClientAlgorithm }): ClientAdapter {
  return {
    ...id,
    clock: { kind: 'real-time', source: 'unknown', why: 'not yet driven by swc' },
    ttlSlackMs: 0,
    defaultPrefix: '',
    open: () => Promise.reject(new EnvironmentError(`--client ${id.name}: swc cannot drive ${id.packageName} yet`)),
    clientOfKey: () => null,
  };
}
