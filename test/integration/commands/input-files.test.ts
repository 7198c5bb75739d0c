/**
 * A UTF-8 byte-order mark at the start of an input file is accepted, in a
 * scenario and in a result: bench against the lane's server and compare, in
 * the test process. What swc refuses to read is in
 * test/unit/commands/input-files.test.ts, and what could block or grow without
 * end stays a spawn in test/cli/input-files.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { redisUrl } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';

const BASELINE = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (name: string): string => path.join(dir, name);

describe('input files (in-process)', () => {
  it('a UTF-8 byte-order mark is accepted in a scenario and in a result', async () => {
    const bomScenario = at('bom-scenario.json');
    writeFileSync(bomScenario, `\uFEFF${JSON.stringify({ windows: [10], rates: [1], throughput: false })}`);
    const bench = await runInProcess(['bench', '--redis-url', redisUrl(), '--scenario', bomScenario, '--json', '--no-progress']);
    // The only stderr line is the run's own (namespace and clean-up command): nothing about the file.
    expect(bench.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^swc bench: run swc-bench:[0-9a-f]{8}\b/)]);
    expect(bench.code).toBe(0);
    expect((JSON.parse(bench.stdout) as { options: { windows: number[] } }).options.windows).toEqual([10]);
    const bomResult = at('bom-result.json');
    writeFileSync(bomResult, `\uFEFF${readFileSync(BASELINE, 'utf8')}`);
    const compare = await runInProcess(['compare', bomResult, BASELINE]);
    expect(compare.stderr).toBe('');
    expect(compare.code).toBe(0);
  });
});
