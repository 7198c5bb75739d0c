import { describe, expect, it } from 'vitest';
import { BUILTIN_DEFAULT_LAYOUT_NAMES, BUILTIN_LAYOUT_NAMES } from '../../../src/layouts/builtin-names.js';
import { defaultLayoutNames, layoutNames } from '../../../src/layouts/index.js';

// The integration lane shares one module cache between files, but puts the
// registry back after each (test/integration-setup.ts): here it holds what
// src/layouts/index.ts registers at start-up, nothing more.
describe('the built-in layout names help text shows', () => {
  it('are the layouts the registry holds at start-up, in its order', () => {
    expect(BUILTIN_LAYOUT_NAMES).toEqual([...layoutNames]);
  });

  it('and those bench runs by default, in its order', () => {
    expect(BUILTIN_DEFAULT_LAYOUT_NAMES).toEqual([...defaultLayoutNames]);
  });
});
