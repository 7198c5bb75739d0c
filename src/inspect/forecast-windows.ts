/**
 * `lights --forecast … --windows <file>`: each light's window, by name or
 * glob. One rule a line, `<name or glob> <window>` (`checkout 60`,
 * `payments-* 5m`, `billing/* 1h`); `#` starts a comment, blank lines are
 * skipped; the first rule that matches a light wins. A light of a 6.0 system
 * is matched as `light` and as `system/light`.
 */
import { UsageError } from '../core/errors.js';
import { readInputFile } from '../core/json-file.js';
import { parseDuration } from '../run/values.js';
import type { LightListing } from '../layouts/inspection.js';

/** The longest window a rule may give: 5.x keeps a day of events. */
const MAX_RULE_SECONDS = 86_400;

/** One line of a windows file. */
export interface WindowRule {
  /** The name or glob as written. */
  readonly pattern: string;
  readonly windowSeconds: number;
  /** The file and line it came from, for messages. */
  readonly source: string;
  readonly matches: (name: string) => boolean;
}

function globMatcher(glob: string): (name: string) => boolean {
  if (!/[*?]/.test(glob)) return (name) => name === glob;
  const pattern = glob
    .split('')
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const re = new RegExp(`^${pattern}$`);
  return (name) => re.test(name);
}

/** The rules of a windows file's text; a bad line is exit 2 naming the file and line. */
export function parseWindowsText(file: string, text: string): WindowRule[] {
  const rules: WindowRule[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    const where = `${file}:${i + 1}`;
    const parts = line.split(/\s+/);
    if (parts.length !== 2)
      throw new UsageError(`--windows: ${where}: expected "<light name or glob> <window>" (e.g. "checkout 60" or "payments-* 5m"), got "${line}"`);
    const [pattern, window] = parts as [string, string];
    const windowSeconds = parseDuration(`--windows: ${where}`, window, { min: 1, max: MAX_RULE_SECONDS, integer: true });
    rules.push({ pattern, windowSeconds, source: where, matches: globMatcher(pattern) });
  }
  if (rules.length === 0) throw new UsageError(`--windows: ${file}: no rule in it (one "<light name or glob> <window>" a line)`);
  return rules;
}

/** The rules of the windows file `file`. */
export function readWindowsFile(file: string): WindowRule[] {
  return parseWindowsText(file, readInputFile(file));
}

/** The names a light is matched by: its name, and `system/light` for a 6.0 light in a known system. */
function namesOf(light: LightListing): string[] {
  const name = light.lightName ?? light.light;
  const system = light.systemName;
  return [...new Set([name, light.name, ...(system !== null ? [`${system}/${name}`] : [])])];
}

/** The first rule that matches `light`, if any. */
export function ruleFor(rules: readonly WindowRule[], light: LightListing): WindowRule | undefined {
  const names = namesOf(light);
  return rules.find((r) => names.some((n) => r.matches(n)));
}
