import { describe, expect, it } from 'vitest';
import { renderQuietBench } from '../../../src/report/bench.js';
import { twoLayouts } from './fixtures.js';

describe('swc bench -q', () => {
  it('one line per window and rate: both layouts’ bytes per light and the ratio, whatever the width', () => {
    const lines = renderQuietBench(twoLayouts).trimEnd().split('\n');
    expect(lines).toHaveLength(new Set(twoLayouts.results.map((r) => `${r.windowSeconds}/${r.rate}`)).size);
    for (const line of lines) {
      expect(line).toMatch(/^1 min window, \d+ req\/s: stoplight-v5 [\d.]+ KB, stoplight-v6 [\d.]+ KB per light; ratio stoplight-v5\/stoplight-v6 [\d.]+×/);
    }
    expect(renderQuietBench(twoLayouts, 'markdown').split('\n')[0]).toMatch(/^- 1 min window/);
  });
});
