import { UsageError } from '../core/errors.js';

/**
 * Parsers for flag and scenario values. Each throws a UsageError that names
 * the flag and what it accepts, so every caller reports bad input the same way.
 */

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };
/** Units people type that a duration spells shorter: `5 min` is `5m`. */
const UNIT_WORDS: Record<string, string> = {
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
  day: 'd',
  days: 'd',
};

/** Whether `word` names a unit of time (`min`, `s`, `hours`, …). */
export function isTimeUnit(word: string): boolean {
  const lower = word.toLowerCase();
  return UNIT_SECONDS[lower] !== undefined || UNIT_WORDS[lower] !== undefined;
}

/**
 * Why a duration with a unit did not parse, naming the unit: a space before
 * it, or a word swc spells shorter; undefined when `value` is no number and unit.
 */
export function durationUnitProblem(flag: string, value: string): string | undefined {
  const parts = /^(\d+(?:\.\d+)?)(\s*)([a-zµ]+)$/i.exec(value.trim());
  if (!parts) return undefined;
  const [, n, space, unit] = parts as unknown as [string, string, string, string];
  const lower = unit.toLowerCase();
  const short = UNIT_SECONDS[lower] !== undefined ? lower : UNIT_WORDS[lower];
  if (short === undefined)
    return `${flag}: unit "${unit}" is not one swc reads: use ms, s, m, h or d joined to the number (${n}s, ${n}m, ${n}h), got "${value}"`;
  if (short !== lower) return `${flag}: unit "${unit}" is written ${short}, joined to the number: ${n}${short}, got "${value}"`;
  return space ? `${flag}: no space between the number and its unit: ${n}${short}, got "${value}"` : undefined;
}

/** A number in [min, max]; `integer` rejects fractions. */
/** A decimal number as a user types one: `12`, `-0.5`, `.5`, `1e3`. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export function parseNumber(
  flag: string,
  value: string,
  { min, max, integer = false, minExclusive = false }: { min: number; max: number; integer?: boolean; minExclusive?: boolean },
): number {
  const text = value.trim();
  const range = `${minExclusive ? `more than ${min}` : min} to ${max}`;
  const what = integer ? 'a whole number' : 'a number';
  // Decimal only: Number() also reads 0x10, 0b1, 0o7 and "Infinity", which no flag means.
  const n = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag}: expected ${what} from ${range}, got "${value}"`);
  }
  if (n > max || n < min || (minExclusive && n === min)) {
    throw new UsageError(`${flag}: must be ${range}, got ${value}`);
  }
  return n;
}

/** `90`, `90s`, `1.5m`, `1h`, `500ms` as seconds, in [min, max]; `integer` rejects fractions of a second. */
export function parseDuration(flag: string, value: string, { min, max, integer = false }: { min: number; max: number; integer?: boolean }): number {
  const match = DURATION.exec(value.trim().toLowerCase());
  if (!match?.[1]) {
    throw new UsageError(durationUnitProblem(flag, value) ?? `${flag}: expected a duration such as 90, 90s, 5m or 1h, got "${value}"`);
  }
  const seconds = Number(match[1]) * (UNIT_SECONDS[match[2] ?? 's'] as number);
  if (seconds < min || seconds > max) {
    throw new UsageError(`${flag}: must be from ${min} s to ${max} s, got ${value} (${seconds} s)`);
  }
  if (integer && !Number.isInteger(seconds)) {
    throw new UsageError(`${flag}: must be a whole number of seconds from ${min} to ${max}, got ${value} (${seconds} s)`);
  }
  return seconds;
}

/** A comma-separated list of at least one item, each parsed by `item`; duplicates dropped. */
export function parseList<T>(flag: string, value: string, item: (part: string) => T): T[] {
  const parts = value.split(',').map((p) => p.trim());
  if (value.trim() === '' || parts.some((p) => p === '')) {
    throw new UsageError(`${flag}: expected a comma-separated list such as 10,100, got "${value}"`);
  }
  return [...new Set(parts.map(item))];
}

/** One of `choices`. */
export function parseChoice<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`${flag}: expected one of ${choices.join(', ')}, got "${value}"`);
  }
  return value as T;
}

/** Limits shared by flags and scenario files. */
export const LIMITS = {
  rate: { min: 0, max: 100_000, minExclusive: true },
  window: { min: 1, max: 86_400, integer: true },
  duration: { min: 1, max: 7 * 86_400 },
  failureRate: { min: 0, max: 1 },
  lights: { min: 1, max: 10_000, integer: true },
  seed: { min: 0, max: 4_294_967_295, integer: true },
  connections: { min: 1, max: 1_000, integer: true },
  rounds: { min: 1, max: 100, integer: true },
  pipeline: { min: 1, max: 10_000, integer: true },
  ops: { min: 1, max: 100_000_000, integer: true },
  time: { min: 0.1, max: 3_600 },
  /** Events one cell may write per layout: beyond this a run takes minutes and gigabytes. */
  eventsPerCell: 50_000_000,
  /** `--realtime`: real seconds per cell; longer is better done as a soak test than a benchmark. */
  realtimeSeconds: 3_600,
  /**
   * `--realtime`: events per second per cell (rate × lights). Above this one
   * Node.js client on a small machine cannot pace, so the run would measure
   * the client rather than the layout.
   */
  realtimeEventsPerSecond: 50_000,
  /**
   * Calls in flight at once in a throughput phase (connections × pipeline).
   * Each holds its encoded request, its reply and its bookkeeping in this
   * process until its batch answers: 1000 × 10000 ran the client out of heap.
   * At 50,000 (100 × 500) the client peaked at about 340 MB and a batch took
   * about 1.5 s to answer on a busy 2-core machine; at 100,000 batches
   * outlived the 10 s reply timeout there.
   */
  inFlightCalls: 50_000,
} as const;

/**
 * Refuses a throughput phase whose calls in flight (connections × pipeline)
 * exceed {@link LIMITS.inFlightCalls}; `names` are the two flags (or file
 * fields) to name in the message.
 */
export function checkInFlight(connections: number, pipeline: number, names: readonly [string, string] = ['--connections', '--pipeline']): void {
  const inFlight = connections * pipeline;
  if (inFlight > LIMITS.inFlightCalls) {
    const n = (v: number): string => v.toLocaleString('en-US');
    throw new UsageError(
      `${names[0]}/${names[1]}: ${n(connections)} connections × ${n(pipeline)} calls per batch = ${n(inFlight)} calls in flight; ` +
        `at most ${n(LIMITS.inFlightCalls)} (each waits in this process's memory for its reply)`,
    );
  }
}

/**
 * Refuses a cell that sends no event: the traffic generator sends
 * round(rate × seconds) events per light, and a cell of zero events would
 * report the bytes of empty keys as a layout's cost.
 */
export function checkCellEvents(rate: number, seconds: number, names = '--rate/--duration'): void {
  if (Math.round(rate * seconds) < 1) {
    throw new UsageError(`${names}: rate ${rate}/s for ${seconds} s rounds to 0 events per light; raise the rate or the duration (or window)`);
  }
}
