/**
 * The names of a run's keys: every key swc writes on a server lives under
 * one `swc-bench:<8 hex>` prefix, so clean-up, the probe and a confined run's
 * ACL user reach exactly the run's keys and nothing outside BENCH_ROOT. The
 * rest of a run's life on a server (its marker, taking turns, deleting its
 * keys) is src/run/namespace.ts.
 */
import { randomBytes } from 'node:crypto';
import { UsageError } from '../core/errors.js';

/** Every benchmark key starts with this; nothing outside it is ever deleted. */
export const BENCH_ROOT = 'swc-bench:';
/** `swc-bench:<8 hex>`: what a run's prefix looks like. */
export const PREFIX_SHAPE = /^swc-bench:[0-9a-f]{8}$/;

/** The prefix every key of one benchmark run lives under. */
export interface Namespace {
  /** `swc-bench:<8 hex>`: fixed length, so key sizes repeat from run to run. */
  readonly prefix: string;
  /** SCAN MATCH pattern covering every key of the run and nothing else. */
  readonly pattern: string;
}

export function createNamespace(): Namespace {
  return namespaceOf(`${BENCH_ROOT}${randomBytes(4).toString('hex')}`);
}

/**
 * The namespace of a prefix a user typed (`swc clean --namespace`); a
 * UsageError for anything that is not exactly `swc-bench:<8 hex>`, so no
 * pattern can reach keys outside swc's own.
 */
export function namespaceOf(prefix: string): Namespace {
  const trimmed = prefix.replace(/:\*?$/, '');
  if (!PREFIX_SHAPE.test(trimmed)) {
    throw new UsageError(`--namespace: expected swc-bench:<8 hex digits> (as swc bench prints it), got "${prefix}"`);
  }
  return { prefix: trimmed, pattern: `${trimmed}:*` };
}
