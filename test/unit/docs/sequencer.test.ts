import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LONGEST } from '../../sequencer.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('the test run order (test/sequencer.ts)', () => {
  it('names only test files that exist, each once: a renamed file would silently lose its early start', () => {
    expect(LONGEST.filter((file) => !existsSync(ROOT + file))).toEqual([]);
    expect(new Set(LONGEST).size).toBe(LONGEST.length);
  });
});
