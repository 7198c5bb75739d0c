import { describe, expect, it } from 'vitest';
import { twoWindowModel } from '../../../src/clients/models/two-window.js';

const W = 60_000;
const settings = { prefix: 'p', limit: 10, windowMs: W };

/** How many of `count` decisions of client `id` at `atMs` the model allows. */
function allowedAt(model: ReturnType<typeof twoWindowModel>, id: string, atMs: number, count: number): number {
  let allowed = 0;
  for (let i = 0; i < count; i += 1) if (model.decide(id, atMs)) allowed += 1;
  return allowed;
}

describe('the weighted two-window model', () => {
  it('allows the limit in a fresh window, then denies; clients are apart', () => {
    const model = twoWindowModel(settings);
    expect(allowedAt(model, 'a', 5 * W + 10, 12)).toBe(10);
    expect(allowedAt(model, 'b', 5 * W + 20, 3)).toBe(3);
  });

  it("weights the previous window's count by the share of it still inside the sliding window", () => {
    const model = twoWindowModel(settings);
    expect(allowedAt(model, 'a', 5 * W, 10)).toBe(10);
    expect(allowedAt(model, 'a', 6 * W, 1)).toBe(0); // weight 1: 10 of 10
    expect(allowedAt(model, 'a', 6 * W + W / 4, 5)).toBe(3); // floor(7.5) = 7
    expect(allowedAt(model, 'a', 6 * W + W / 2, 5)).toBe(2); // floor(5) + 3 = 8
    // Two windows on, the window before the previous one no longer counts.
    expect(allowedAt(model, 'a', 8 * W + W / 2, 12)).toBe(10);
  });

  it('floors the weighted count in doubles as the package does: at 90 % into a window 10 weigh 0, not 1', () => {
    const model = twoWindowModel(settings);
    expect(allowedAt(model, 'a', 5 * W, 10)).toBe(10);
    expect((1 - (0.9 * W) / W) * 10).toBeLessThan(1);
    expect(allowedAt(model, 'a', 6 * W + 0.9 * W, 11)).toBe(10);
  });

  it('takes the window of a time before 0 as Lua does (t mod W is never negative)', () => {
    const model = twoWindowModel(settings);
    expect(allowedAt(model, 'a', -W - 1, 10)).toBe(10);
    // 1 ms into window -1 at -W + 1: almost all of window -2's count is still inside.
    expect(allowedAt(model, 'a', -W + 1, 2)).toBe(1);
  });
});
