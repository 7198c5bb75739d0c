import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const BASELINE = fileURLToPath(new URL('../../fixtures/baselines/small.json', import.meta.url));

// What compare says of a grown field, and bench --baseline's gate, run
// in-process on freshly benched files (test/integration/commands/compare-explain.test.ts);
// the built CLI compares the committed baseline with itself and refuses
// --format github without a baseline.
describe('compare and the memory gate (spawned)', () => {
  it('the same bytes as the baseline pass at 0 B; bench --format github without --baseline is refused', async () => {
    const [same, github] = await Promise.all([runCli(['compare', BASELINE, BASELINE, '--memory-tolerance', '0B']), runCli(['bench', '--format', 'github'])]);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/^ok: no regression in 8 cell\(s\) \(bytes per light, commands per call\)$/m);
    expect(github.code).toBe(2);
    expect(github.stderr).toMatch(/--format github: annotates a comparison; give --baseline <file>/);
  });
});
