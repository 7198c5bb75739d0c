import { describe, expect, it } from 'vitest';
import { memoryGrid, renderBench, throughputRatioGrid } from '../../../src/report/bench.js';
import { threeLayouts, twoLayouts } from './fixtures.js';

describe('renderBench (colour off)', () => {
  it('table: memory with the "first / second" ratio, throughput, throughput ratios, footer', () => {
    expect(renderBench(twoLayouts, 'table', false)).toMatchInlineSnapshot(`
      "Memory per light (KB = 1024 bytes, MEMORY USAGE … SAMPLES 0 summed over the light's keys)
      ratio = stoplight-v5 / stoplight-v6; cost = stoplight-v6 / stoplight-v5 server µs per request
      ┌────────┬───────┬───────────┬──────────────┬──────────────┬───────┬───────┐
      │ window │ req/s │ events in │ stoplight-v5 │ stoplight-v6 │ ratio │  cost │
      │        │       │    window │           KB │           KB │       │       │
      ├────────┼───────┼───────────┼──────────────┼──────────────┼───────┼───────┤
      │ 1 min  │    10 │       600 │         74.4 │         10.8 │ 6.89× │ 1.00× │
      │ 1 min  │   100 │     6,000 │        706.1 │         10.8 │ 65.4× │ 1.00× │
      └────────┴───────┴───────────┴──────────────┴──────────────┴───────┴───────┘
      What it means: across 2 cells a stoplight-v6 light takes 6.89×–65.4× less memory than stoplight-v5, and costs the server
        1.00× the time per request.

      Encodings
      ┌────────┬───────┬──────────────┬──────────────────────┐
      │ window │ req/s │ layout       │ encoding of each key │
      ├────────┼───────┼──────────────┼──────────────────────┤
      │ 1 min  │    10 │ stoplight-v5 │ metrics skiplist     │
      │ 1 min  │    10 │ stoplight-v6 │ metrics listpack     │
      │ 1 min  │   100 │ stoplight-v5 │ metrics skiplist     │
      │ 1 min  │   100 │ stoplight-v6 │ metrics listpack     │
      └────────┴───────┴──────────────┴──────────────────────┘

      Engine capacity (steady state, injected clock, 4 connection(s) × pipeline 1 in flight)
      ┌────────┬───────┬──────────────┬─────────┬────────┬────────┬────────┬──────────┬─────────┐
      │ window │ req/s │ layout       │ op      │  ops/s │ p50 ms │ p99 ms │ p99.9 ms │  server │
      │        │       │              │         │        │        │        │          │ µs/call │
      ├────────┼───────┼──────────────┼─────────┼────────┼────────┼────────┼──────────┼─────────┤
      │ 1 min  │    10 │ stoplight-v5 │ write   │ 20,000 │  0.210 │  0.520 │    1.400 │     8.5 │
      │ 1 min  │    10 │ stoplight-v5 │ read    │ 22,000 │  0.210 │  0.520 │    1.400 │     9.5 │
      │ 1 min  │    10 │ stoplight-v5 │ request │ 10,000 │  0.210 │  0.520 │    1.400 │    18.0 │
      │ 1 min  │    10 │ stoplight-v6 │ write   │ 21,000 │  0.210 │  0.520 │    1.400 │     8.5 │
      │ 1 min  │    10 │ stoplight-v6 │ read    │ 23,000 │  0.210 │  0.520 │    1.400 │     9.5 │
      │ 1 min  │    10 │ stoplight-v6 │ request │ 10,500 │  0.210 │  0.520 │    1.400 │    18.0 │
      │ 1 min  │   100 │ stoplight-v5 │ write   │ 19,000 │  0.210 │  0.520 │    1.400 │     8.5 │
      │ 1 min  │   100 │ stoplight-v5 │ read    │ 21,000 │  0.210 │  0.520 │    1.400 │     9.5 │
      │ 1 min  │   100 │ stoplight-v5 │ request │  9,500 │  0.210 │  0.520 │    1.400 │    18.0 │
      │ 1 min  │   100 │ stoplight-v6 │ write   │ 19,500 │  0.210 │  0.520 │    1.400 │     8.5 │
      │ 1 min  │   100 │ stoplight-v6 │ read    │ 21,500 │  0.210 │  0.520 │    1.400 │     9.5 │
      │ 1 min  │   100 │ stoplight-v6 │ request │  9,750 │  0.210 │  0.520 │    1.400 │    18.0 │
      └────────┴───────┴──────────────┴─────────┴────────┴────────┴────────┴──────────┴─────────┘
      instructions/call: not counted; opt-in with --instructions (under valgrind, it adds 30 s or more to a run)

      Throughput ratios (median of per-round ratios; --wide for the range): stoplight-v6 / stoplight-v5
      ┌────────┬───────┬─────────────┬────────────┬─────────┬────────────┐
      │ window │ req/s │ write ops/s │ read ops/s │ request │     server │
      │        │       │             │            │   ops/s │ µs/request │
      ├────────┼───────┼─────────────┼────────────┼─────────┼────────────┤
      │ 1 min  │    10 │       1.05× │      1.05× │   1.05× │      1.00× │
      │ 1 min  │   100 │       1.03× │      1.02× │   1.03× │      1.00× │
      └────────┴───────┴─────────────┴────────────┴─────────┴────────────┘

      Redis 7.0.15, jemalloc-5.3.0 (private server); hash-max-listpack-entries=128 zset-max-listpack-entries=128;
      4 connection(s), pipeline 1
      "
    `);
  });

  it('markdown: the same tables, ready to paste', () => {
    expect(renderBench(twoLayouts, 'markdown', false)).toMatchInlineSnapshot(`
      "**Memory per light (KB = 1024 bytes, MEMORY USAGE … SAMPLES 0 summed over the light's keys)**

      | window | req/s | events in window | stoplight-v5 KB | stoplight-v6 KB | stoplight-v5 / stoplight-v6 | stoplight-v6 / stoplight-v5 cost | encodings |
      | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |
      | 1 min | 10 | 600 | 74.4 | 10.8 | 6.89× | 1.00× | stoplight-v5: metrics skiplist \\| stoplight-v6: metrics listpack |
      | 1 min | 100 | 6,000 | 706.1 | 10.8 | 65.4× | 1.00× | stoplight-v5: metrics skiplist \\| stoplight-v6: metrics listpack |

      What it means: across 2 cells a stoplight-v6 light takes 6.89×–65.4× less memory than stoplight-v5, and costs the server 1.00× the time per request.

      **Engine capacity (steady state, injected clock, 4 connection(s) × pipeline 1 in flight)**

      | window | req/s | layout | op | ops/s | p50 ms | p99 ms | p99.9 ms | server µs/call |
      | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |
      | 1 min | 10 | stoplight-v5 | write | 20,000 | 0.210 | 0.520 | 1.400 | 8.5 |
      | 1 min | 10 | stoplight-v5 | read | 22,000 | 0.210 | 0.520 | 1.400 | 9.5 |
      | 1 min | 10 | stoplight-v5 | request | 10,000 | 0.210 | 0.520 | 1.400 | 18.0 |
      | 1 min | 10 | stoplight-v6 | write | 21,000 | 0.210 | 0.520 | 1.400 | 8.5 |
      | 1 min | 10 | stoplight-v6 | read | 23,000 | 0.210 | 0.520 | 1.400 | 9.5 |
      | 1 min | 10 | stoplight-v6 | request | 10,500 | 0.210 | 0.520 | 1.400 | 18.0 |
      | 1 min | 100 | stoplight-v5 | write | 19,000 | 0.210 | 0.520 | 1.400 | 8.5 |
      | 1 min | 100 | stoplight-v5 | read | 21,000 | 0.210 | 0.520 | 1.400 | 9.5 |
      | 1 min | 100 | stoplight-v5 | request | 9,500 | 0.210 | 0.520 | 1.400 | 18.0 |
      | 1 min | 100 | stoplight-v6 | write | 19,500 | 0.210 | 0.520 | 1.400 | 8.5 |
      | 1 min | 100 | stoplight-v6 | read | 21,500 | 0.210 | 0.520 | 1.400 | 9.5 |
      | 1 min | 100 | stoplight-v6 | request | 9,750 | 0.210 | 0.520 | 1.400 | 18.0 |

      _instructions/call: not counted; opt-in with --instructions (under valgrind, it adds 30 s or more to a run)_

      **Throughput ratios (median and range of per-round ratios): stoplight-v6 / stoplight-v5**

      | window | req/s | write ops/s | read ops/s | request ops/s | server µs/request |
      | --- | ---: | ---: | ---: | ---: | ---: |
      | 1 min | 10 | 1.05× | 1.05× | 1.05× | 1.00× |
      | 1 min | 100 | 1.03× | 1.02× | 1.03× | 1.00× |

      _Redis 7.0.15, jemalloc-5.3.0 (private server); hash-max-listpack-entries=128 zset-max-listpack-entries=128; 4 connection(s), pipeline 1_
      "
    `);
  });

  it('csv: one flat row per result', () => {
    expect(renderBench(twoLayouts, 'csv', false)).toMatchInlineSnapshot(`
      "layout,windowSeconds,rate,durationSeconds,eventsInWindow,events,bytesPerLight,usedMemoryDeltaPerLight,encodings,publishedKb,publishedDiff,writeOpsPerSec,writeP50Ms,writeP99Ms,writeP999Ms,writeServerUsecPerCall,readOpsPerSec,readP50Ms,readP99Ms,readP999Ms,readServerUsecPerCall,requestOpsPerSec,requestP50Ms,requestP99Ms,requestP999Ms,requestServerUsecPerCall,realtimeRequestedRate,realtimeAchievedRate,realtimeSeconds,realtimeEvents,realtimeLateP99Ms,realtimeLateMaxMs,realtimeWriteP50Ms,realtimeWriteP99Ms,realtimeWriteP999Ms,accuracyReads,accuracyMaxAbsError,accuracyMeanAbsError,accuracyThreshold,accuracyDecisionMismatchFraction,serverWriteUsecPerCall,serverReadUsecPerCall,writeCommandsPerCall,writeCommandsMin,writeCommandsMax,writeReplyBytesPerCall,writeRequestBytesPerCall,writeCommands,failureCommandsPerCall,failureCommandsMin,failureCommandsMax,failureReplyBytesPerCall,failureRequestBytesPerCall,failureCommands,readCommandsPerCall,readCommandsMin,readCommandsMax,readReplyBytesPerCall,readRequestBytesPerCall,readCommands,writeInstructionsPerCall,writeInstructionsSpread,writeInstructionsRatio,readInstructionsPerCall,readInstructionsSpread,readInstructionsRatio,requestInstructionsPerCall,requestInstructionsSpread,requestInstructionsRatio
      stoplight-v5,60,10,60,600,600,76186,76286,hash:skiplist,,,20000,0.21,0.52,1.4,8.5,22000,0.21,0.52,1.4,9.5,10000,0.21,0.52,1.4,18,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,
      stoplight-v6,60,10,60,600,600,11059,11159,hash:listpack,,,21000,0.21,0.52,1.4,8.5,23000,0.21,0.52,1.4,9.5,10500,0.21,0.52,1.4,18,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,
      stoplight-v5,60,100,60,6000,6000,723046,723146,hash:skiplist,,,19000,0.21,0.52,1.4,8.5,21000,0.21,0.52,1.4,9.5,9500,0.21,0.52,1.4,18,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,
      stoplight-v6,60,100,60,6000,6000,11059,11159,hash:listpack,,,19500,0.21,0.52,1.4,8.5,21500,0.21,0.52,1.4,9.5,9750,0.21,0.52,1.4,18,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,
      "
    `);
  });

  it('three layouts: one memory ratio column per layout against the first, in plan order', () => {
    expect(memoryGrid(threeLayouts).head).toEqual([
      'window',
      'req/s',
      'events in window',
      'stoplight-v5 KB',
      'stoplight-v6 KB',
      'my-window KB',
      'stoplight-v5 / stoplight-v6',
      'stoplight-v5 / my-window',
      'encodings',
    ]);
    expect(renderBench(threeLayouts, 'markdown', false)).toMatchInlineSnapshot(`
      "**Memory per light (KB = 1024 bytes, MEMORY USAGE … SAMPLES 0 summed over the light's keys)**

      | window | req/s | events in window | stoplight-v5 KB | stoplight-v6 KB | my-window KB | stoplight-v5 / stoplight-v6 | stoplight-v5 / my-window | encodings |
      | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
      | 5 min | 10 | 3,000 | 355.4 | 82.8 | 4.0 | 4.29× | 88.8× | stoplight-v5: metrics skiplist \\| stoplight-v6: metrics listpack \\| my-window: metrics listpack |

      What it means: at a 5 min window and 10 req/s, a stoplight-v6 light takes 82.8 KB against 355.4 KB: 4.29× less memory than stoplight-v5.
      What it means: at a 5 min window and 10 req/s, a my-window light takes 4.0 KB against 355.4 KB: 88.8× less memory than stoplight-v5.

      _Redis 7.0.15, jemalloc-5.3.0 (private server); hash-max-listpack-entries=128 zset-max-listpack-entries=128_
      "
    `);
  });

  it('published and diff columns appear only beside the layouts the preset has figures for', () => {
    const withPublished = {
      ...threeLayouts,
      results: threeLayouts.results.map((r) => (r.layout === 'my-window' ? r : { ...r, published: { kb: 350, bytes: 358_400, diff: 0.0154 } })),
    };
    expect(memoryGrid(withPublished).head).toEqual([
      'window',
      'req/s',
      'events in window',
      'stoplight-v5 KB',
      'published',
      'diff',
      'stoplight-v6 KB',
      'published',
      'diff',
      'my-window KB',
      'stoplight-v5 / stoplight-v6',
      'stoplight-v5 / my-window',
      'encodings',
    ]);
    expect(memoryGrid(withPublished).rows[0]?.slice(9, 10)).toEqual(['4.0']);
  });

  it('throughput ratios name the pair: in the caption for two layouts, a column for more', () => {
    expect(throughputRatioGrid(twoLayouts)?.caption).toBe('stoplight-v6 / stoplight-v5');
    const three = {
      ...twoLayouts,
      results: [...twoLayouts.results, ...twoLayouts.results.filter((r) => r.layout === 'stoplight-v6').map((r) => ({ ...r, layout: 'my-window' }))],
    };
    const grid = throughputRatioGrid(three);
    expect(grid?.caption).toBeUndefined();
    expect(grid?.rows.map((r) => r[2])).toEqual([
      'stoplight-v6 / stoplight-v5',
      'my-window / stoplight-v5',
      'stoplight-v6 / stoplight-v5',
      'my-window / stoplight-v5',
    ]);
  });
});

describe('tables that fit', () => {
  const published = {
    ...twoLayouts,
    results: twoLayouts.results.map((r) => ({ ...r, published: { kb: 74.9, bytes: 76_698, diff: -0.006 } })),
  };
  const widest = (text: string): number => Math.max(...text.split('\n').map((l) => [...l].length));

  it('the default table fits 120 columns, even with the published figures; --wide does not have to', () => {
    expect(widest(renderBench(published, 'table', false))).toBeLessThanOrEqual(120);
    expect(widest(renderBench(twoLayouts, 'table', false))).toBeLessThanOrEqual(120);
    const wide = renderBench(published, 'table', false, { wide: true });
    expect(wide).toContain('stoplight-v5: metrics skiplist | stoplight-v6: metrics listpack');
  });

  it('one unit per column, right-aligned: KB cells are bare numbers under a KB header', () => {
    const lines = renderBench(published, 'table', false).split('\n');
    const row = lines.find((l) => l.startsWith('│ 1 min  │   100 │'));
    expect(row).toMatch(/│ +706\.1 │/);
    expect(row).not.toMatch(/ KB| B /);
  });
});
