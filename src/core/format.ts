/** Formatting shared by every output: windows and durations as people say them, and text made safe to show. */

/** A window as people say it: `5 min`, `1 h`, `90 s`. */
export function formatWindow(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** `9 s`, `2 min 9 s`, `1 h 5 min`. */
export function durationText(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

/**
 * A moment of the JSON contract (docs/output.md): ISO 8601 in UTC, from Unix
 * seconds. A fraction is kept to the microsecond (an injected clock's stamps
 * are finer than a millisecond); whole seconds print without one.
 */
export function isoMoment(unixSeconds: number): string {
  const micros = Math.round(unixSeconds * 1e6);
  const whole = Math.floor(micros / 1e6);
  const fraction = String(micros - whole * 1e6)
    .padStart(6, '0')
    .replace(/0+$/, '');
  const base = new Date(whole * 1000).toISOString().replace('.000Z', '');
  return fraction === '' ? `${base}Z` : `${base}.${fraction}Z`;
}

/** The Unix seconds of a moment written by {@link isoMoment} (or any ISO 8601 text `Date` reads), its microseconds kept. */
export function unixSecondsOf(moment: string): number {
  const fraction = /\.(\d+)Z$/.exec(moment);
  if (!fraction) return Date.parse(moment) / 1000;
  return Date.parse(moment.slice(0, fraction.index) + 'Z') / 1000 + Number(`0.${fraction[1] ?? '0'}`);
}

/**
 * Bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to
 * U+202E, U+2066 to U+2069) and the line and paragraph separators (U+2028,
 * U+2029): a terminal or an editor reorders or breaks the text around them,
 * so `abc\u202egnp.exe` reads as `abcexe.png`.
 */
const FORMATTING = /[\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** C0 controls, DEL and C1 controls: what a terminal may act on instead of showing. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from Redis (key names, light names, stored values) made safe for a
 * terminal or a table: each control character (ESC, CR, BEL, …, DEL, C1) is
 * shown as `\xHH`, so `\x1b[2J` cannot clear the screen and `\r` cannot
 * overwrite a line; a bidirectional formatting character as `\uHHHH`, so
 * `\u202e` cannot reverse what follows. JSON output keeps the exact string
 * instead (written by {@link jsonText}).
 */
export function visible(text: string): string {
  return text
    .replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(FORMATTING, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** What JSON.stringify leaves raw that a terminal acts on: DEL, C1 controls and {@link FORMATTING}. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `value` as JSON text (indented by 2), with DEL, C1 controls and
 * bidirectional formatting characters written as `\uXXXX` escapes (JSON
 * already escapes C0): the same value to any parser, and nothing a terminal
 * acts on when the JSON is shown. Every `--json` document goes through here.
 */
export function jsonText(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
