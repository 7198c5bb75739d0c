/**
 * Which error a red light's "why" may name. Stoplight keeps only the last
 * error (`last_error_json`, stamped `last_error_at`), not the one that tripped
 * the light. The last one is the tripping one, or one before it, when it is
 * no later than the breach (`breached_at`, within the second the breach was
 * recorded in); an error stored after the breach (a failed recovery probe)
 * is not, and the reason then says that the tripping error is not kept.
 */

const stamp = (value: string | undefined): number | null => {
  if (value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/** The class and time of a `last_error_json`, where it says them. */
function parsed(json: string | undefined): { cls: string | null; time: number | null } {
  if (json === undefined) return { cls: null, time: null };
  try {
    const value = JSON.parse(json) as { error?: { class?: unknown }; time?: unknown } | null;
    const cls = value?.error?.class;
    const time = value?.time;
    return { cls: typeof cls === 'string' && cls !== '' ? cls : null, time: typeof time === 'number' && Number.isFinite(time) ? time : null };
  } catch {
    return { cls: null, time: null };
  }
}

/**
 * The words after "breached after n consecutive errors" for a light breached
 * at `breached`: `: Timeout::Error` when the stored error can be the one that
 * tripped it, `; the error that tripped it is not kept (the last stored, X,
 * came n s after the breach)` when it came later, empty when none is stored.
 */
export function breachErrorText(fields: Readonly<Record<string, string>>, breached: number): string {
  const { cls, time } = parsed(fields.last_error_json);
  if (cls === null) return '';
  const at = stamp(fields.last_error_at) ?? time;
  // breached_at and the error's stamp are written in one call (or a second apart where stamps are whole seconds).
  if (at !== null && at > breached + 1) {
    return `; the error that tripped it is not kept (the last stored, ${cls}, came ${Math.round(at - breached)} s after the breach)`;
  }
  return `: ${cls}`;
}
