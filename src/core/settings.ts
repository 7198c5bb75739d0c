/** Server settings as text, shared by the sweep (which runs them) and its report (which prints them). */

/** `hash-max-listpack-value=64, zset-max-listpack-entries=128`. */
export function settingsLabel(settings: Readonly<Record<string, number>>): string {
  return Object.entries(settings)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

/** The settings of `settings` whose value differs from `base` (all of them when none does). */
export function changedSettings(settings: Readonly<Record<string, number>>, base: Readonly<Record<string, number>>): Record<string, number> {
  const changed = Object.fromEntries(Object.entries(settings).filter(([k, v]) => base[k] !== v));
  return Object.keys(changed).length > 0 ? changed : { ...settings };
}
