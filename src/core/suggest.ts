/**
 * Edits between two texts: insertions, deletions, substitutions and swaps of
 * two neighbouring characters (optimal string alignment), by code point.
 * Stops early and returns `limit + 1` once the distance must exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i += 1) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= t.length; j += 1) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d = Math.min(d, (before[j - 2] as number) + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return previous[t.length] as number;
}

/** Suggestions shown at most. */
const MAX_SUGGESTIONS = 3;

/**
 * The known names closest to what was typed, closest first (then by name):
 * those within a third of the typed length in edits (at least one, at most
 * four), or equal but for case. The typed text itself is never suggested.
 */
export function closestNames(typed: string, known: Iterable<string>): string[] {
  const length = [...typed].length;
  const limit = Math.min(4, Math.max(1, Math.floor(length / 3)));
  const scored: { name: string; distance: number }[] = [];
  for (const name of new Set(known)) {
    if (name === typed || name === '') continue;
    const distance = name.toLowerCase() === typed.toLowerCase() ? 0 : editDistance(typed, name, limit);
    if (distance <= limit && distance < Math.max(length, 2)) scored.push({ name, distance });
  }
  return scored
    .sort((x, y) => x.distance - y.distance || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
    .slice(0, MAX_SUGGESTIONS)
    .map((s) => s.name);
}

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`. */
export function orList(names: readonly string[]): string {
  const quoted = names.map((n) => JSON.stringify(n));
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1] as string}`;
}
