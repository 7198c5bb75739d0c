/**
 * addRegistry parses only values that open a JSON object (a million values
 * that throw in JSON.parse took seconds); a config led by JSON whitespace is
 * still read, and every other value is still the one-line problem.
 */
import { describe, expect, it } from 'vitest';
import { addRegistry, nameId, newNameBook } from '../../../src/layouts/stoplight/names.js';

const system = nameId('default');
const key = `stoplight:v6:${system}:lights`;
const config = (name: string): string => JSON.stringify({ meta: { version: 1 }, config: { id: nameId(name), name, threshold: 2, window_size: 60 } });

describe('registry values that are not a JSON object', () => {
  it('reads an object after JSON whitespace and reports each other value as a problem', () => {
    const book = newNameBook();
    const others = ['x', '1', '[1]', '"s"', 'null', 'true', '', ' ', '{', '{"config": 3}', ' [{"config":{}}]'];
    const fields = new Map<string, string>([
      [nameId('spaced'), ` \t\r\n${config('spaced')}`],
      [nameId('plain'), config('plain')],
      ...others.map((value, i): [string, string] => [`f${i}`, value]),
    ]);
    const problems = addRegistry(book, key, fields);
    expect(problems).toEqual(others.map((_, i) => `${key} field f${i}: not a light config naming that light id; ignored`));
    expect(book.lights.get(nameId('spaced'))).toBe('spaced');
    expect(book.configs.get(`${system}/${nameId('spaced')}`)).toEqual({ windowSeconds: 60, threshold: 2 });
    expect(book.lights.get(nameId('plain'))).toBe('plain');
  });
});
