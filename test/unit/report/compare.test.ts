import { describe, expect, it } from 'vitest';
import { compareReports } from '../../../src/compare/diff.js';
import { renderCompare } from '../../../src/report/compare.js';
import { twoLayouts, twoLayoutsLater } from './fixtures.js';

describe('renderCompare (colour off)', () => {
  it('a passing comparison: builds, tolerances, one row per figure, ok', () => {
    const verdict = compareReports(twoLayouts, twoLayouts);
    expect(verdict.ok).toBe(true);
    expect(renderCompare(verdict, { label: 'base.json', report: twoLayouts }, { label: 'this run', report: twoLayouts }, 'markdown', false))
      .toMatchInlineSnapshot(`
        "**ok: no regression in 4 cell(s) (bytes per light, throughput and server time)**

        - baseline base.json: swc 0.1.0, Redis 7.0.15, jemalloc-5.3.0
        - current this run: swc 0.1.0, Redis 7.0.15, jemalloc-5.3.0
        - gate: bytes per light may grow by 1.0% (MEMORY USAGE; used_memory Δ is shown only, and only where it moved past MEMORY USAGE by over 25% of a light's bytes); each layout's ops/s ratio to the cell's first layout may fall by 25.0%; server time per call may rise by 50.0% (CPU time per call when both results have it, else µs per call of each run's fastest round); with rounds in both runs a change counts only when no round of one run overlaps the other's

        | cell | figure | baseline | current | change | status |
        | --- | --- | ---: | ---: | ---: | --- |
        | stoplight-v5 60 s @ 10/s | bytes per light | 76,186 | 76,186 | +0.0% | ok |
        | stoplight-v5 60 s @ 10/s | write ops/s | 20,000 | 20,000 | +0.0% | info |
        | stoplight-v5 60 s @ 10/s | write server µs/call (fastest round) | 8.5 | 8.5 | +0.0% | ok |
        | stoplight-v5 60 s @ 10/s | read ops/s | 22,000 | 22,000 | +0.0% | info |
        | stoplight-v5 60 s @ 10/s | read server µs/call (fastest round) | 9.5 | 9.5 | +0.0% | ok |
        | stoplight-v5 60 s @ 10/s | request ops/s | 10,000 | 10,000 | +0.0% | info |
        | stoplight-v5 60 s @ 10/s | request server µs/request (fastest round) | 18.0 | 18.0 | +0.0% | ok |
        | stoplight-v6 60 s @ 10/s | bytes per light | 11,059 | 11,059 | +0.0% | ok |
        | stoplight-v6 60 s @ 10/s | write ops/s ratio (÷ stoplight-v5) | 1.050 | 1.050 | +0.0% | ok |
        | stoplight-v6 60 s @ 10/s | write ops/s | 21,000 | 21,000 | +0.0% | info |
        | stoplight-v6 60 s @ 10/s | write server µs/call (fastest round) | 8.5 | 8.5 | +0.0% | ok |
        | stoplight-v6 60 s @ 10/s | read ops/s ratio (÷ stoplight-v5) | 1.045 | 1.045 | +0.0% | ok |
        | stoplight-v6 60 s @ 10/s | read ops/s | 23,000 | 23,000 | +0.0% | info |
        | stoplight-v6 60 s @ 10/s | read server µs/call (fastest round) | 9.5 | 9.5 | +0.0% | ok |
        | stoplight-v6 60 s @ 10/s | request ops/s ratio (÷ stoplight-v5) | 1.050 | 1.050 | +0.0% | ok |
        | stoplight-v6 60 s @ 10/s | request ops/s | 10,500 | 10,500 | +0.0% | info |
        | stoplight-v6 60 s @ 10/s | request server µs/request (fastest round) | 18.0 | 18.0 | +0.0% | ok |
        | stoplight-v5 60 s @ 100/s | bytes per light | 723,046 | 723,046 | +0.0% | ok |
        | stoplight-v5 60 s @ 100/s | write ops/s | 19,000 | 19,000 | +0.0% | info |
        | stoplight-v5 60 s @ 100/s | write server µs/call (fastest round) | 8.5 | 8.5 | +0.0% | ok |
        | stoplight-v5 60 s @ 100/s | read ops/s | 21,000 | 21,000 | +0.0% | info |
        | stoplight-v5 60 s @ 100/s | read server µs/call (fastest round) | 9.5 | 9.5 | +0.0% | ok |
        | stoplight-v5 60 s @ 100/s | request ops/s | 9,500 | 9,500 | +0.0% | info |
        | stoplight-v5 60 s @ 100/s | request server µs/request (fastest round) | 18.0 | 18.0 | +0.0% | ok |
        | stoplight-v6 60 s @ 100/s | bytes per light | 11,059 | 11,059 | +0.0% | ok |
        | stoplight-v6 60 s @ 100/s | write ops/s ratio (÷ stoplight-v5) | 1.026 | 1.026 | +0.0% | ok |
        | stoplight-v6 60 s @ 100/s | write ops/s | 19,500 | 19,500 | +0.0% | info |
        | stoplight-v6 60 s @ 100/s | write server µs/call (fastest round) | 8.5 | 8.5 | +0.0% | ok |
        | stoplight-v6 60 s @ 100/s | read ops/s ratio (÷ stoplight-v5) | 1.024 | 1.024 | +0.0% | ok |
        | stoplight-v6 60 s @ 100/s | read ops/s | 21,500 | 21,500 | +0.0% | info |
        | stoplight-v6 60 s @ 100/s | read server µs/call (fastest round) | 9.5 | 9.5 | +0.0% | ok |
        | stoplight-v6 60 s @ 100/s | request ops/s ratio (÷ stoplight-v5) | 1.026 | 1.026 | +0.0% | ok |
        | stoplight-v6 60 s @ 100/s | request ops/s | 9,750 | 9,750 | +0.0% | info |
        | stoplight-v6 60 s @ 100/s | request server µs/request (fastest round) | 18.0 | 18.0 | +0.0% | ok |

        _used_memory Δ per light: 4 row(s) not shown, each within 25% of the light's bytes of what MEMORY USAGE moved (--json and --format csv list every row)_
        "
      `);
  });

  it('a failing comparison names the grown bytes and the fallen ratio against their tolerances', () => {
    const verdict = compareReports(twoLayouts, twoLayoutsLater);
    expect(verdict.ok).toBe(false);
    const text = renderCompare(verdict, { label: 'base.json', report: twoLayouts }, { label: 'this run', report: twoLayoutsLater }, 'table', false);
    // The answer first: the verdict, then each failure; the builds, the gate and the table after a blank line.
    expect(text.startsWith('FAIL')).toBe(true);
    expect(`${text.slice(0, text.indexOf('\n\n'))}\n`).toMatchInlineSnapshot(`
      "FAIL: bytes per light grew in 1 of 4 cells (up to +553 B, +5.0%); 3 throughput figure(s) regressed
        stoplight-v6 60 s @ 10/s: bytes per light +553 B, +5.0% (tolerance +1.0%)
          metrics: +553 B (11,059 B → 11,612 B)
        stoplight-v6 60 s @ 10/s: write ops/s ratio (÷ stoplight-v5) -33.3% (tolerance -25.0%)
        stoplight-v6 60 s @ 10/s: read ops/s ratio (÷ stoplight-v5) -30.4% (tolerance -25.0%)
        stoplight-v6 60 s @ 10/s: request ops/s ratio (÷ stoplight-v5) -33.3% (tolerance -25.0%)
      "
    `);
  });
});

describe('compare formats: improvements, csv, GitHub annotations, markdown that renders', () => {
  // 6.0 at 10/s shrank by 10%: an improvement beyond the 1% tolerance.
  const smaller = {
    ...twoLayouts,
    results: twoLayouts.results.map((r) =>
      r.layout === 'stoplight-v6' && r.rate === 10 ? { ...r, memory: { ...r.memory, bytesPerLight: r.memory.bytesPerLight * 0.9 } } : r,
    ),
  };
  const base = { label: 'fixtures/base.json', report: twoLayouts };

  it('an improvement passes and is named, with a hint to refresh the baseline', () => {
    const verdict = compareReports(twoLayouts, smaller);
    expect(verdict.ok).toBe(true);
    const text = renderCompare(verdict, base, { label: 'this run', report: smaller }, 'table', false);
    expect(text).toContain(
      'improved: 1 figure(s); consider refreshing the baseline\n  stoplight-v6 60 s @ 10/s: bytes per light −1,106 B, -10.0% (better than the tolerance +1.0%)',
    );
  });

  // GitHub decodes %25 back to % when it shows the annotation.
  it('--format github: ::error per failure on the baseline file, ::notice per improvement and for the verdict', () => {
    const failing = renderCompare(compareReports(twoLayouts, twoLayoutsLater), base, { label: 'this run', report: twoLayoutsLater }, 'github', false);
    // The verdict first: the line a reviewer reads on the pull request.
    expect(failing.split('\n')[0]).toBe(
      '::error file=fixtures/base.json,title=swc compare::FAIL: bytes per light grew in 1 of 4 cells (up to +553 B, +5.0%25); 3 throughput figure(s) regressed',
    );
    expect(failing.split('\n')[1]).toBe(
      '::error file=fixtures/base.json,title=swc regression::stoplight-v6 60 s @ 10/s: bytes per light +553 B, +5.0%25 (tolerance +1.0%25)%0A  metrics: +553 B (11,059 B → 11,612 B)',
    );
    const improved = renderCompare(
      compareReports(twoLayouts, smaller),
      { label: 'a,b:c%.json', report: twoLayouts },
      { label: 'x', report: smaller },
      'github',
      false,
    );
    expect(improved).toBe(
      '::notice file=a%2Cb%3Ac%25.json,title=swc compare::ok: no regression in 4 cell(s) (bytes per light, throughput and server time)\n' +
        '::notice file=a%2Cb%3Ac%25.json,title=swc improvement::stoplight-v6 60 s @ 10/s: bytes per light −1,106 B, -10.0%25 (better than the tolerance +1.0%25)\n',
    );
  });

  it('--format csv: one row per figure with raw numbers', () => {
    const csv = renderCompare(compareReports(twoLayouts, smaller), base, { label: 'x', report: smaller }, 'csv', false).trim().split('\n');
    expect(csv[0]).toBe('cell,layout,windowSeconds,rate,figure,reference,baseline,current,change,status');
    expect(csv).toContain('stoplight-v6 60 s @ 10/s,stoplight-v6,60,10,bytesPerLight,,11059,9953.1,-0.09999999999999998,improved');
  });

  it('markdown: no two text lines run together (each is a list item or its own paragraph)', () => {
    const md = renderCompare(compareReports(twoLayouts, twoLayoutsLater), base, { label: 'this run', report: twoLayoutsLater }, 'markdown', false);
    const lines = md.trimEnd().split('\n');
    lines.forEach((line, i) => {
      const next = lines[i + 1];
      // A plain text line followed directly by another plain text line would render as one paragraph.
      const plain = (l: string | undefined): boolean => l !== undefined && l !== '' && !/^(- |\| |\*\*)/.test(l);
      expect(plain(line) && plain(next), `${line} / ${next}`).toBe(false);
    });
    expect(md).toContain('- baseline fixtures/base.json: swc 0.1.0');
    expect(md).toContain(
      '**FAIL: bytes per light grew in 1 of 4 cells (up to +553 B, +5.0%); 3 throughput figure(s) regressed**\n\n' +
        '- stoplight-v6 60 s @ 10/s: bytes per light +553 B, +5.0% (tolerance +1.0%)\n  - metrics: +553 B (11,059 B → 11,612 B)',
    );
  });
});
