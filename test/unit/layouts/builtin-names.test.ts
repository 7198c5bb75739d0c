import { describe, expect, it, vi } from 'vitest';
import { BUILTIN_LAYOUT_NAMES } from '../../../src/layouts/builtin-names.js';

describe('the built-in layout names help text shows', () => {
  it('are the layouts the registry holds at start-up, in its order', async () => {
    // A fresh module graph: another test may have registered a variant or a manifest layout already.
    vi.resetModules();
    const { layoutNames } = await import('../../../src/layouts/index.js');
    expect(BUILTIN_LAYOUT_NAMES).toEqual([...layoutNames]);
  });
});
