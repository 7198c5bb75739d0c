import { describe, expect, it } from 'vitest';
import { addRegistry, nameId, newNameBook } from '../../../src/layouts/stoplight/names.js';

const system = nameId('default');
const key = `stoplight:v6:${system}:lights`;
/** A registry entry as Stoplight 6.0's Registry writes it: meta, then the ConfigSerializer's config. */
const entry = (config: Record<string, unknown>): string => JSON.stringify({ meta: { version: 1, registered_at: 1764450000 }, config });

describe("a 6.0 registry's light configs", () => {
  it("reads threshold, window and the traffic control from Stoplight's serialised config ({ strategy: <name> })", () => {
    const book = newNameBook();
    const problems = addRegistry(
      book,
      key,
      new Map([
        [
          nameId('checkout'),
          entry({
            id: nameId('checkout'),
            name: 'checkout',
            threshold: 0.4,
            window_size: 300,
            traffic_control: { strategy: 'error_rate' },
            traffic_recovery: { strategy: 'consecutive_successes' },
          }),
        ],
        [
          nameId('search'),
          entry({ id: nameId('search'), name: 'search', threshold: 3, window_size: null, traffic_control: { strategy: 'consecutive_errors' } }),
        ],
        [nameId('odd'), entry({ id: nameId('odd'), name: 'odd', threshold: 3, window_size: 60, traffic_control: { strategy: 'latency' } })],
      ]),
    );
    expect(problems).toEqual([]);
    expect(book.configs.get(`${system}/${nameId('checkout')}`)).toEqual({ windowSeconds: 300, threshold: 0.4, trafficControl: 'error_rate' });
    expect(book.configs.get(`${system}/${nameId('search')}`)).toEqual({ windowSeconds: null, threshold: 3, trafficControl: 'consecutive_errors' });
    // A strategy swc does not know: no light is judged against a rule it may not use.
    expect(book.configs.get(`${system}/${nameId('odd')}`)).toEqual({ windowSeconds: 60, threshold: 3 });
    expect(book.lights.get(nameId('checkout'))).toBe('checkout');
  });

  it('reads the earlier registry that keyed each config by the light name and kept no id or name in it', () => {
    const book = newNameBook();
    const problems = addRegistry(book, key, new Map([['payments', entry({ threshold: 0.5, window_size: 120, traffic_control: { strategy: 'error_rate' } })]]));
    expect(problems).toEqual([]);
    expect(book.lights.get(nameId('payments'))).toBe('payments');
    expect(book.configs.get(`${system}/${nameId('payments')}`)).toEqual({ windowSeconds: 120, threshold: 0.5, trafficControl: 'error_rate' });
  });

  it('still refuses an entry whose name does not hash to its field', () => {
    const book = newNameBook();
    const problems = addRegistry(book, key, new Map([[nameId('a'), entry({ id: nameId('a'), name: 'b', threshold: 1, window_size: 60 })]]));
    expect(problems).toEqual([`${key} field ${nameId('a')}: not a light config naming that light id; ignored`]);
    expect(book.configs.size).toBe(0);
  });
});
