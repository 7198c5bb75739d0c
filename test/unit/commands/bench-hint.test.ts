import { describe, expect, it } from 'vitest';
import { namespaceOf } from '../../../src/run/namespace.js';
import { cleanHint } from '../../../src/run/cleanup.js';

const ns = namespaceOf('swc-bench:1a2b3c4d');

describe('the clean-up hint a bench prints when it cannot remove its keys', () => {
  it.each([
    ['redis://10.0.0.5:6380/3', 'swc clean --redis-url redis://10.0.0.5:6380/3 --namespace swc-bench:1a2b3c4d --yes'],
    ['redis://cache.internal', 'swc clean --redis-url redis://cache.internal:6379/0 --namespace swc-bench:1a2b3c4d --yes'],
    ['rediss://[::1]:7000/2', 'swc clean --redis-url rediss://[::1]:7000/2 --namespace swc-bench:1a2b3c4d --yes'],
  ])('%s: names host, port, database and namespace', (url, hint) => {
    expect(cleanHint(url, ns)).toBe(hint);
  });

  it('never carries the password; a URL with credentials gets a note instead', () => {
    const hint = cleanHint('redis://alice:s3cr3t-pw@10.0.0.5:6380/1', ns);
    expect(hint).toBe('swc clean --redis-url redis://10.0.0.5:6380/1 --namespace swc-bench:1a2b3c4d --yes (add your user and password to the URL)');
    expect(hint).not.toMatch(/s3cr3t|alice/);
  });
});
