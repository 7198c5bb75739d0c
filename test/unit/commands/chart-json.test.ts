import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../../src/core/schema-version.js';
import { schemaErrors } from '../../schema-check.js';
import { result } from '../report/chart-fixtures.js';
import { runInProcess } from '../in-process.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-chart-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string): string => path.join(dir, name);
const saved = file('result.json');
writeFileSync(saved, JSON.stringify(result([60, 600], [10, 100], { published: true })));

describe('swc chart --json', () => {
  it('prints what --out wrote (the file, its format and size, the inputs and panels), valid against schemas/chart.schema.json', async () => {
    for (const [name, format] of [
      ['c.svg', 'svg'],
      ['c.png', 'png'],
    ] as const) {
      const out = file(name);
      const run = await runInProcess(['chart', saved, '--out', out, '--chart-panels', 'hero,latency', '--json']);
      expect(run.code, run.stderr).toBe(0);
      const json = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(schemaErrors('chart', json)).toEqual([]);
      expect(json).toMatchObject({ schemaVersion: SCHEMA_VERSION, inputs: [saved], panels: ['hero', 'latency'] });
      expect(json.files).toEqual([{ path: out, format, bytes: statSync(out).size }]);
      // The fixture has one round: the latency panel cannot be drawn, and says so in the JSON as on stderr.
      const notes = json.notes as string[];
      expect(notes.length).toBeGreaterThan(0);
      for (const note of notes) expect(run.stderr).toContain(note);
      expect(run.stderr).toContain(`swc chart: chart written to ${out}`);
    }
  });

  it('without --out there is no file to describe: exit 2 naming --out', async () => {
    const run = await runInProcess(['chart', saved, '--json']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('swc: --json: prints what --out wrote; give --out <file.svg|file.png>\n');
  });
});
