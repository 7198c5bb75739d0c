import { describe, expect, it } from 'vitest';
import { durationUnitProblem } from '../../../src/run/values.js';
import { runInProcess } from '../in-process.js';

// `--window 5 min` used to say only "too many arguments": the unit is what is wrong, and the message names it.
describe('a duration whose unit is split off or spelled out: exit 2 naming the unit and the way to write it', () => {
  it.each([
    [['bench', '--window', '5', 'min'], 'swc: --window: unit "min" is written m, joined to the number: 5m, got "5 min"'],
    [['lights', '--window', '5', 'minutes'], 'swc: --window: unit "minutes" is written m, joined to the number: 5m, got "5 minutes"'],
    [['bench', '--window', '5', 'm'], 'swc: --window: no space between the number and its unit: 5m, got "5 m"'],
    [['bench', '--window', '5min'], 'swc: --window: unit "min" is written m, joined to the number: 5m, got "5min"'],
    [
      ['bench', '--window', '10 fortnights'],
      'swc: --window: unit "fortnights" is not one swc reads: use ms, s, m, h or d joined to the number (10s, 10m, 10h), got "10 fortnights"',
    ],
  ])('swc %j', async (args, line) => {
    const result = await runInProcess(args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(line);
  });

  it('a stray word that is no unit keeps the general message, naming the word and what came before it', async () => {
    const result = await runInProcess(['bench', '--rate', '100', 'extra']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`swc: too many arguments for 'bench'. Expected 0 arguments but got 1: "extra" (after --rate 100); see swc bench --help`);
  });

  it('a number alone, or a unit swc reads, is no unit problem', () => {
    expect(durationUnitProblem('--window', '300')).toBeUndefined();
    expect(durationUnitProblem('--window', '5m')).toBeUndefined();
  });
});
