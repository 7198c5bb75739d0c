import { describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

// swc clean's refused patterns through the same program and error path as the
// CLI, in-process (port 1 refuses: exit 2, not 3, shows Redis was never
// contacted); test/cli/clean.test.ts keeps one spawn.
describe('swc clean --namespace', () => {
  it.each(['app:*', '*', 'swc-bench:*', 'swc-bench:1234', 'swc-bench:0123456789'])(
    'refuses --namespace %s (only swc-bench:<8 hex digits>) with exit 2 before connecting',
    async (pattern) => {
      const result = await runInProcess(['clean', '--redis-url', 'redis://127.0.0.1:1', '--namespace', pattern, '--yes']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^swc: --namespace: expected swc-bench:<8 hex digits>/m);
    },
  );
});
