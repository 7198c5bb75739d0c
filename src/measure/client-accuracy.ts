/**
 * A package's decisions held against an exact sliding window with the same
 * limit: pure arithmetic over the decisions a run recorded (client id, time,
 * allowed or not). No Redis.
 */

/** One decision a package made. */
export interface ClientDecision {
  readonly id: string;
  /** Milliseconds on the run's clock: the injected one, or real time when the call was sent. */
  readonly atMs: number;
  readonly allowed: boolean;
}

/** How a package's decisions compare with the exact window's on one traffic. */
export interface ClientAccuracy {
  readonly sent: number;
  readonly allowed: number;
  /** What an exact sliding window with the same limit allows of the same traffic. */
  readonly exactAllowed: number;
  /** The largest number the package allowed one client in any window (of the window's length, anywhere in time). */
  readonly maxInWindow: number;
  /** maxInWindow over the limit (0 when within it). */
  readonly overLimit: number;
  /** Decisions allowed while the client already had `limit` allowed in the window before: more than an exact window lets through. */
  readonly overAdmitted: number;
  /** Decisions refused while the client had fewer than `limit` allowed in the window before: a lockout an exact window would not make. */
  readonly lockouts: number;
  /** Share of decisions that differ from the exact window's on the same traffic (each run on its own state). */
  readonly mismatchFraction: number;
}

/** For each client, its decisions in time order. */
function byClient(decisions: readonly ClientDecision[]): Map<string, ClientDecision[]> {
  const clients = new Map<string, ClientDecision[]>();
  for (const d of decisions) {
    const list = clients.get(d.id) ?? [];
    list.push(d);
    clients.set(d.id, list);
  }
  for (const list of clients.values()) list.sort((a, b) => a.atMs - b.atMs);
  return clients;
}

/** The allowed decisions of one client still within the window before a time (times ascending). */
class Trailing {
  private readonly times: number[] = [];
  private head = 0;
  constructor(private readonly windowMs: number) {}
  /** Allowed decisions within the window before `atMs`. */
  countBefore(atMs: number): number {
    while (this.head < this.times.length && (this.times[this.head] as number) <= atMs - this.windowMs) this.head += 1;
    return this.times.length - this.head;
  }
  add(atMs: number): void {
    this.times.push(atMs);
  }
}

/** Holds `decisions` against the exact sliding window: at most `limit` allowed in any `windowMs`. */
export function clientAccuracy(decisions: readonly ClientDecision[], limit: number, windowMs: number): ClientAccuracy {
  let allowed = 0;
  let exactAllowed = 0;
  let maxInWindow = 0;
  let overAdmitted = 0;
  let lockouts = 0;
  let mismatches = 0;
  for (const list of byClient(decisions).values()) {
    const own = new Trailing(windowMs);
    const exact = new Trailing(windowMs);
    for (const d of list) {
      const before = own.countBefore(d.atMs);
      const exactAllows = exact.countBefore(d.atMs) < limit;
      if (exactAllows) {
        exact.add(d.atMs);
        exactAllowed += 1;
      }
      if (exactAllows !== d.allowed) mismatches += 1;
      if (d.allowed) {
        if (before >= limit) overAdmitted += 1;
        own.add(d.atMs);
        allowed += 1;
        maxInWindow = Math.max(maxInWindow, before + 1);
      } else if (before < limit) lockouts += 1;
    }
  }
  const sent = decisions.length;
  return {
    sent,
    allowed,
    exactAllowed,
    maxInWindow,
    overLimit: Math.max(0, maxInWindow - limit),
    overAdmitted,
    lockouts,
    mismatchFraction: sent === 0 ? 0 : mismatches / sent,
  };
}
