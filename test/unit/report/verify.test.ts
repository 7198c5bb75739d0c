import { describe, expect, it } from 'vitest';
import { renderVerify } from '../../../src/report/verify.js';
import type { VerifyResult } from '../../../src/verify/types.js';

const fields = { successes: 0, failures: 0, consecutiveSuccesses: 1, consecutiveErrors: 0, lastSuccessAt: 100, lastErrorAt: null, lastErrorJson: null };

const clean: VerifyResult = {
  layout: 'stoplight-v5',
  seed: 1,
  calls: 20_000,
  compared: 5_543,
  lights: 8,
  windows: [1, 7200, 60, 7200],
  largestEviction: 4_100,
  disagreements: [],
  lightsDisagreeing: 0,
  scriptErrors: [],
  lightsWithErrors: 0,
  deviationMisses: [],
  deviations: [{ id: 'hour-key-of-window-end', description: 'a read in the first second of an hour …', observed: 12 }],
  keysWithoutTtl: [],
  unreproduced: [],
  crossSlot: [],
  slots: { lightsChecked: 8, lightsSpanningSlots: 8, oneSlotPerLight: false },
  shrink: { replays: 0, budgetExhausted: false },
  durationSeconds: 1.234,
  findings: 0,
};

describe('renderVerify', () => {
  it('a clean run: the counts, ok, the deviation apart from findings, the slot note', () => {
    expect(renderVerify([clean], false)).toBe(
      [
        // The answer first, in one line.
        'ok: stoplight-v5 agrees with the model (20,000 calls, 5,543 replies compared)',
        'stoplight-v5: 20,000 calls on 8 lights (windows 1 s, 1 min, 2 h), 5,543 replies compared, largest eviction 4,100 buckets in one call, 1.2 s',
        '  ok: every reply agrees with the model, no script error, every key has a TTL',
        '  deviation (declared, not a finding): hour-key-of-window-end: seen 12 time(s) exactly as declared. a read in the first second of an hour …',
        '  cluster: the keys of 8 of 8 lights span several slots (a multi-key script fails with CROSSSLOT on Redis Cluster)',
        '',
      ].join('\n'),
    );
  });

  it('a problem a replay at once did not show: a note apart from findings, naming its window and the stall', () => {
    const text = renderVerify([{ ...clean, deviations: [], unreproduced: [{ kind: 'disagreement', windowSeconds: 1, calls: 287, pauseSeconds: 2.3 }] }], false);
    expect(text).toContain('  ok: every reply agrees with the model but those not reproduced below');
    expect(text).toContain(
      "  not reproduced (not a finding): a disagreement on a 1 s window went away when the light's 287 calls were replayed at once: it waited 2.3 s before that call, and the server expired keys on its own clock meanwhile",
    );
  });

  it('findings: each with the differing fields and its reproduction as offsets from the first call', () => {
    const text = renderVerify(
      [
        {
          ...clean,
          layout: 'stoplight-v6',
          deviations: [],
          slots: { lightsChecked: 8, lightsSpanningSlots: 0, oneSlotPerLight: true },
          disagreements: [
            {
              windowSeconds: 60,
              op: 'read',
              expected: fields,
              actual: { ...fields, successes: 1 },
              fields: ['successes'],
              reproduction: [
                { op: 'success', at: 1000.25 },
                { op: 'read', at: 1060 },
              ],
              originalLength: 300,
            },
          ],
          lightsDisagreeing: 3,
          scriptErrors: [{ windowSeconds: 7, op: 'failure', error: 'ERR planted', reproduction: [{ op: 'failure', at: 5 }], originalLength: 9 }],
          lightsWithErrors: 1,
          keysWithoutTtl: [{ key: 'stoplight:v6:x:{y}:window_metrics:ts_idx', light: 2 }],
          findings: 5,
        },
      ],
      false,
    );
    expect(text).toContain('  disagreement on a read (window 1 min): expected successes 0; got successes 1\n');
    expect(text).toContain('        1. success at +0.000 s\n        2. read    at +59.750 s\n');
    expect(text).toContain('  … 2 more light(s) disagreed\n');
    expect(text).toContain('  script error on a failure (window 7 s): ERR planted\n');
    expect(text).toContain('  no TTL: stoplight:v6:x:{y}:window_metrics:ts_idx\n');
    expect(text).toContain("  cluster: every light's keys share one slot\n");
    expect(text).not.toContain('ok:');
    // The answer first, in one line, before the findings that support it.
    expect(text.split('\n')[0]).toBe(
      'FAIL: 5 finding(s) in 1 of 1 layout(s) (stoplight-v6: 3 light(s) disagreeing with the model, 1 light(s) with script errors, 1 key(s) without a TTL)',
    );
  });

  it('a long reproduction shows its first and last 12 calls', () => {
    const reproduction = Array.from({ length: 40 }, (_, i) => ({ op: 'success' as const, at: i }));
    const text = renderVerify(
      [
        {
          ...clean,
          disagreements: [{ windowSeconds: 1, op: 'read', expected: fields, actual: fields, fields: [], reproduction, originalLength: 40 }],
          lightsDisagreeing: 1,
          findings: 1,
        },
      ],
      false,
    );
    expect(text).toContain('       12. success at +11.000 s\n      … 16 more calls …\n       29. success at +28.000 s\n');
    expect(text).toContain('       40. success at +39.000 s\n');
  });
});
