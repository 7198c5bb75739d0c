/**
 * The traffic a client run sends through a package: per client id, decision
 * times in milliseconds from the start of a phase. Pure and deterministic.
 * Ids are fixed-width tokens (`<tag>-0001`) so none is a substring of another
 * and a key can be told by the id it names.
 */

/** One decision to ask for: client `id` at `atMs` from the phase's start. */
export interface ClientEvent {
  readonly id: string;
  readonly atMs: number;
}

/** The id of client `index` of group `tag`. */
export function clientId(tag: string, index: number): string {
  return `${tag}-${String(index).padStart(4, '0')}`;
}

/** Every client of `tag`'s events, merged in time order (ties by id). */
function merged(events: ClientEvent[]): ClientEvent[] {
  return events.sort((a, b) => a.atMs - b.atMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * `perWindow` decisions per window per client, evenly spaced, for `windows`
 * windows; client `i` starts a fraction of a spacing after client `i - 1`.
 */
export function steadyTraffic(tag: string, clients: number, perWindow: number, windowMs: number, windows: number): ClientEvent[] {
  const count = Math.max(1, Math.round(perWindow * windows));
  const spacing = (windowMs * windows) / count;
  const events: ClientEvent[] = [];
  for (let c = 0; c < clients; c += 1) {
    const offset = (spacing * c) / clients;
    for (let i = 0; i < count; i += 1) events.push({ id: clientId(tag, c), atMs: offset + i * spacing });
  }
  return merged(events);
}

/**
 * A burst straddling a window boundary, for one client: one decision opens a
 * window at 0, `limit` come in the last `edge` share of that window, and `limit`
 * more just after it ends (a window timed from its first decision ends at `windowMs`).
 * An exact sliding window allows `limit` in any window; a fixed window allows up to
 * about twice that across the boundary.
 */
export function boundaryBurst(tag: string, limit: number, windowMs: number, edge = 0.1): ClientEvent[] {
  const id = clientId(tag, 0);
  const gap = (windowMs * edge) / Math.max(1, limit);
  const events: ClientEvent[] = [{ id, atMs: 0 }];
  for (let i = 0; i < limit; i += 1) events.push({ id, atMs: windowMs * (1 - edge) + i * gap * 0.5 });
  for (let i = 0; i < limit; i += 1) events.push({ id, atMs: windowMs * (1 + edge / 2) + i * gap * 0.5 });
  return merged(events);
}

/** Several phases' events as one timeline (each already in time order). */
export function together(...timelines: readonly ClientEvent[][]): ClientEvent[] {
  return merged(timelines.flat());
}
