import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../../src/bench/scenario.js';
import { parseManifest } from '../../../src/layouts/manifest-zod.js';
import { schemaErrors } from '../../schema-check.js';

/** The .json files directly under a fixtures folder. */
function jsonFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(dir, f));
}

function read(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

describe('shipped fixtures validate against what reads them', () => {
  const baselines = jsonFiles('fixtures/baselines');

  it('there is a baseline to check (the README and docs/ci.md gate against fixtures/baselines/small.json)', () => {
    expect(baselines).toContain(join('fixtures/baselines', 'small.json'));
  });

  for (const file of baselines) {
    it(`${file} is a bench result of the current schema (schemas/bench.schema.json)`, () => {
      expect(schemaErrors('bench', read(file))).toEqual([]);
    });
  }

  for (const file of jsonFiles('fixtures/scenarios')) {
    it(`${file} is a scenario swc bench --scenario reads`, () => {
      expect(() => parseScenario(file, read(file))).not.toThrow();
    });
  }

  for (const file of [...jsonFiles('fixtures/manifests'), ...jsonFiles('fixtures/manifests/stoplight'), ...jsonFiles('fixtures/manifests/example')]) {
    it(`${file} is a layout manifest swc reads`, () => {
      expect(() => parseManifest(file, read(file))).not.toThrow();
    });
  }
});
