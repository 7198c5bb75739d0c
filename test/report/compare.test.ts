import { describe, expect, it } from 'vitest';
import { compareReports } from '../../src/compare/diff.js';
import { renderCompare } from '../../src/report/compare.js';
import { twoLayouts, twoLayoutsLater } from './fixtures.js';

describe('renderCompare (colour off)', () => {
  it('a passing comparison: builds, tolerances, one row per figure, ok', () => {
    const verdict = compareReports(twoLayouts, twoLayouts);
    expect(verdict.ok).toBe(true);
    expect(renderCompare(verdict, { label: 'base.json', report: twoLayouts }, { label: 'this run', report: twoLayouts }, 'markdown', false)).toMatchInlineSnapshot(`
      "base.json: swc 0.1.0, Redis 7.0.15, jemalloc-5.3.0
      this run: swc 0.1.0, Redis 7.0.15, jemalloc-5.3.0
      memory tolerance +1.0% growth of bytes per light; throughput tolerance -25.0% of each ratio

      | cell | figure | baseline | current | change | status |
      | --- | --- | ---: | ---: | ---: | --- |
      | stoplight-v5 60 s @ 10/s | bytes per light | 76,186 | 76,186 | +0.0% | ok |
      | stoplight-v5 60 s @ 10/s | used_memory Δ per light | 76,286 | 76,286 | +0.0% | info |
      | stoplight-v5 60 s @ 10/s | write ops/s | 20,000 | 20,000 | +0.0% | info |
      | stoplight-v5 60 s @ 10/s | read ops/s | 22,000 | 22,000 | +0.0% | info |
      | stoplight-v5 60 s @ 10/s | request ops/s | 10,000 | 10,000 | +0.0% | info |
      | stoplight-v6 60 s @ 10/s | bytes per light | 11,059 | 11,059 | +0.0% | ok |
      | stoplight-v6 60 s @ 10/s | used_memory Δ per light | 11,159 | 11,159 | +0.0% | info |
      | stoplight-v6 60 s @ 10/s | write ops/s ratio (÷ stoplight-v5) | 1.050 | 1.050 | +0.0% | ok |
      | stoplight-v6 60 s @ 10/s | write ops/s | 21,000 | 21,000 | +0.0% | info |
      | stoplight-v6 60 s @ 10/s | read ops/s ratio (÷ stoplight-v5) | 1.045 | 1.045 | +0.0% | ok |
      | stoplight-v6 60 s @ 10/s | read ops/s | 23,000 | 23,000 | +0.0% | info |
      | stoplight-v6 60 s @ 10/s | request ops/s ratio (÷ stoplight-v5) | 1.050 | 1.050 | +0.0% | ok |
      | stoplight-v6 60 s @ 10/s | request ops/s | 10,500 | 10,500 | +0.0% | info |
      | stoplight-v5 60 s @ 100/s | bytes per light | 723,046 | 723,046 | +0.0% | ok |
      | stoplight-v5 60 s @ 100/s | used_memory Δ per light | 723,146 | 723,146 | +0.0% | info |
      | stoplight-v5 60 s @ 100/s | write ops/s | 19,000 | 19,000 | +0.0% | info |
      | stoplight-v5 60 s @ 100/s | read ops/s | 21,000 | 21,000 | +0.0% | info |
      | stoplight-v5 60 s @ 100/s | request ops/s | 9,500 | 9,500 | +0.0% | info |
      | stoplight-v6 60 s @ 100/s | bytes per light | 11,059 | 11,059 | +0.0% | ok |
      | stoplight-v6 60 s @ 100/s | used_memory Δ per light | 11,159 | 11,159 | +0.0% | info |
      | stoplight-v6 60 s @ 100/s | write ops/s ratio (÷ stoplight-v5) | 1.026 | 1.026 | +0.0% | ok |
      | stoplight-v6 60 s @ 100/s | write ops/s | 19,500 | 19,500 | +0.0% | info |
      | stoplight-v6 60 s @ 100/s | read ops/s ratio (÷ stoplight-v5) | 1.024 | 1.024 | +0.0% | ok |
      | stoplight-v6 60 s @ 100/s | read ops/s | 21,500 | 21,500 | +0.0% | info |
      | stoplight-v6 60 s @ 100/s | request ops/s ratio (÷ stoplight-v5) | 1.026 | 1.026 | +0.0% | ok |
      | stoplight-v6 60 s @ 100/s | request ops/s | 9,750 | 9,750 | +0.0% | info |

      ok: no regression in 4 cell(s)
      "
    `);
  });

  it('a failing comparison names the grown bytes and the fallen ratio against their tolerances', () => {
    const verdict = compareReports(twoLayouts, twoLayoutsLater);
    expect(verdict.ok).toBe(false);
    const text = renderCompare(verdict, { label: 'base.json', report: twoLayouts }, { label: 'this run', report: twoLayoutsLater }, 'table', false);
    expect(text.slice(text.indexOf('FAIL'))).toMatchInlineSnapshot(`
      "FAIL: 4 problem(s)
        stoplight-v6 60 s @ 10/s: bytes per light +5.0% (tolerance +1.0%)
        stoplight-v6 60 s @ 10/s: write ops/s ratio (÷ stoplight-v5) -33.3% (tolerance -25.0%)
        stoplight-v6 60 s @ 10/s: read ops/s ratio (÷ stoplight-v5) -30.4% (tolerance -25.0%)
        stoplight-v6 60 s @ 10/s: request ops/s ratio (÷ stoplight-v5) -33.3% (tolerance -25.0%)
      "
    `);
  });
});
