/**
 * `swc bench --suggest`: which layout to pick for a window and rate, from a
 * bench report alone (a pure function: no Redis). Every figure it uses was
 * measured in the run: bytes per light (MEMORY USAGE), server µs per request
 * (INFO commandstats: the throughput phase's when it ran, else the accuracy
 * phase's probe) and the accuracy of the layout's own reads against the
 * exact window. Whether a layout counts as exact is what its reads showed
 * (zero error, no decision differing), never what it declares.
 */
import { APPROXIMATE_MAX_FLIPS, APPROXIMATE_MIN_SAVING, NEAR_TIE } from '../core/thresholds.js';
import type { BenchReport, CellResult } from '../measure/types.js';

// The rule's numbers (SUGGEST_RULE) live in core/ so report/suggest.ts can state them; re-exported for existing callers.
export { APPROXIMATE_MAX_FLIPS, APPROXIMATE_MIN_SAVING, NEAR_TIE, SUGGEST_RULE } from '../core/thresholds.js';

/** One layout of a suggestion. */
export interface SuggestRow {
  readonly layout: string;
  /** `measured`, or why it has no figures: it `failed` (its error), or was `skipped` (why). */
  readonly status: 'measured' | 'failed' | 'skipped';
  /** 1 for the pick; null when not measured. */
  readonly rank: number | null;
  readonly bytesPerLight: number | null;
  /** bytesPerLight / window seconds. */
  readonly bytesPerWindowSecond: number | null;
  /** bytesPerLight over the smallest measured layout's. */
  readonly ratioToSmallest: number | null;
  /** Server µs for a read plus a write; null when INFO commandstats was not readable. */
  readonly serverUsecPerRequest: number | null;
  /** Where the server time comes from: the throughput phase (median of rounds) or the accuracy phase's probe. */
  readonly serverUsecSource: 'throughput' | 'probe' | null;
  readonly maxAbsError: number | null;
  /** Share of reads deciding differently from the exact window at the threshold. */
  readonly decisionFlipFraction: number | null;
  readonly reads: number | null;
  /** Measured exact: zero error and no decision differing over every read. */
  readonly exact: boolean | null;
  /** `pick`, `runner-up`, `exact`, `approximate (within the rule)`, `approximate (…)`, `failed: …`, `skipped: …`. */
  readonly verdict: string;
  /** For a failed or skipped layout: why. */
  readonly reason?: string;
}

/** The suggestion for one window and rate. */
export interface Suggestion {
  readonly windowSeconds: number;
  readonly rate: number;
  readonly lights: number;
  readonly threshold: number | null;
  readonly pick: string | null;
  readonly runnerUp: string | null;
  /** Measured layouts best first, then failed and skipped ones. */
  readonly ranking: readonly SuggestRow[];
  /** One paragraph a person can paste. */
  readonly paragraph: string;
}

/** A layout that has no result in the report: it failed (its error) or was left out (why). */
export interface Unmeasured {
  readonly layout: string;
  readonly status: 'failed' | 'skipped';
  readonly reason: string;
  /** The window and rate it concerns; absent = every cell. */
  readonly windowSeconds?: number;
  readonly rate?: number;
}

/** What {@link suggest} needs besides the report. */
export interface SuggestInput {
  /** Layouts asked for, in order; one asked for without a result (and not in `unmeasured`) is named as not measured. */
  readonly layouts?: readonly string[];
  readonly unmeasured?: readonly Unmeasured[];
}

/** Server µs per request of a result: the throughput phase's, else the accuracy probe's. */
function serverTime(r: CellResult): { usec: number | null; source: SuggestRow['serverUsecSource'] } {
  const t = r.throughput?.request.serverUsecPerCall;
  if (t !== undefined && t !== null) return { usec: t, source: 'throughput' };
  if (r.serverCost) return { usec: r.serverCost.requestUsecPerCall, source: 'probe' };
  return { usec: null, source: null };
}

interface Candidate {
  readonly result: CellResult;
  readonly bytes: number;
  readonly usec: number | null;
  readonly source: SuggestRow['serverUsecSource'];
  readonly exact: boolean | null;
  readonly flips: number | null;
  /** 0: approximate within the rule, 1: exact, 2: approximate outside it, 3: accuracy not measured. */
  klass: number;
}

/** Fewer bytes first; near-ties (within NEAR_TIE) by server time (unknown last), then by name. */
function compare(a: Candidate, b: Candidate): number {
  if (a.klass !== b.klass) return a.klass - b.klass;
  const small = Math.min(a.bytes, b.bytes);
  if (Math.abs(a.bytes - b.bytes) > NEAR_TIE * small) return a.bytes - b.bytes;
  const ua = a.usec ?? Number.POSITIVE_INFINITY;
  const ub = b.usec ?? Number.POSITIVE_INFINITY;
  if (ua !== ub) return ua - ub;
  if (a.bytes !== b.bytes) return a.bytes - b.bytes;
  return a.result.layout < b.result.layout ? -1 : a.result.layout > b.result.layout ? 1 : 0;
}

const windowText = (s: number): string => (s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);
const pct = (share: number): string => `${(share * 100).toFixed(share > 0 && share < 0.001 ? 2 : 1)}%`;
const times = (x: number): string => (x >= 10 ? `${Math.round(x)}×` : `${x.toFixed(1)}×`);
const bytesText = (b: number): string => (b >= 1024 ? `${(b / 1024).toFixed(1)} KB` : `${Math.round(b)} B`);
const usecText = (u: number): string => `${u.toFixed(u >= 10 ? 0 : 1)} µs`;

/** What the accuracy showed, in words. */
function accuracyText(c: Candidate, threshold: number | null): string {
  const a = c.result.accuracy;
  if (!a) return 'accuracy not measured';
  if (c.exact) return `exact (all ${a.reads.toLocaleString('en-US')} reads matched the exact window)`;
  return `approximate (failure ratio off by up to ${a.maxAbsError.toFixed(3)}, ${pct(a.decisionMismatchFraction)} of reads deciding differently at ${threshold ?? a.threshold})`;
}

/** The pick against another layout: memory and server time, as ratios. */
function against(pick: Candidate, other: Candidate): string {
  const memory =
    other.bytes >= pick.bytes
      ? `${times(other.bytes / pick.bytes)} less memory than ${other.result.layout}`
      : `${times(pick.bytes / other.bytes)} the memory of ${other.result.layout}`;
  const time =
    pick.usec === null || other.usec === null
      ? ''
      : pick.usec <= other.usec
        ? `, ${times(other.usec / pick.usec)} less server time per request (${usecText(pick.usec)} vs ${usecText(other.usec)})`
        : `, ${times(pick.usec / other.usec)} its server time per request (${usecText(pick.usec)} vs ${usecText(other.usec)})`;
  return `${memory}${time}`;
}

function paragraphOf(
  windowSeconds: number,
  rate: number,
  lights: number,
  threshold: number | null,
  ranked: readonly Candidate[],
  unmeasured: readonly SuggestRow[],
): string {
  const head = `For a ${windowText(windowSeconds)} window at ${rate} req/s${lights > 1 ? ` (${lights} lights)` : ''}`;
  const notMeasured = unmeasured.length > 0 ? ` Not ranked: ${unmeasured.map((u) => `${u.layout} (${u.status}: ${u.reason ?? 'no result'})`).join(', ')}.` : '';
  const [pick, runnerUp] = ranked;
  if (!pick) return `${head}, no layout was measured, so there is nothing to pick.${notMeasured}`;
  const perSecond = pick.bytes / windowSeconds;
  const parts: string[] = [
    `${head}, pick ${pick.result.layout}: ${bytesText(pick.bytes)} per light (${perSecond.toFixed(perSecond >= 10 ? 0 : 1)} B per second of window), ${accuracyText(pick, threshold)}`,
  ];
  if (pick.usec !== null) parts.push(`${usecText(pick.usec)} of server time per request`);
  let text = `${parts.join(', ')}.`;
  if (pick.klass === 0) {
    text += ` It is approximate but at least ${APPROXIMATE_MIN_SAVING}× smaller than every exact layout and flips at most ${pct(APPROXIMATE_MAX_FLIPS)} of decisions, which the rule accepts.`;
  }
  if (runnerUp) {
    text += ` Runner-up: ${runnerUp.result.layout}, ${accuracyText(runnerUp, threshold)}; ${pick.result.layout} takes ${against(pick, runnerUp)}.`;
  }
  // The speed trade-off: an exact layout faster than the pick (and not the runner-up, already compared).
  const fastest = ranked.filter((c) => c.exact === true && c.usec !== null && c !== pick).sort((a, b) => (a.usec as number) - (b.usec as number))[0];
  if (fastest && fastest !== runnerUp && pick.usec !== null && (fastest.usec as number) < pick.usec) {
    text += ` The fastest exact layout, ${fastest.result.layout} (${usecText(fastest.usec as number)} per request), takes ${times(fastest.bytes / pick.bytes)} the memory.`;
  }
  // Smaller layouts the rule passed over, and why: the trade-off a reader asks about.
  const smaller = ranked.filter((c) => c !== pick && c.bytes < pick.bytes && c.klass > pick.klass);
  for (const c of smaller.slice(0, 2)) {
    const a = c.result.accuracy;
    const why = !a
      ? 'its accuracy was not measured'
      : c.flips !== null && c.flips > APPROXIMATE_MAX_FLIPS
        ? `it misjudges ${pct(c.flips)} of threshold decisions (the rule allows ${pct(APPROXIMATE_MAX_FLIPS)}; failure ratio off by up to ${a.maxAbsError.toFixed(3)})`
        : `it is approximate (off by up to ${a.maxAbsError.toFixed(3)}) and only ${times(pick.bytes / c.bytes)} smaller (the rule asks ${APPROXIMATE_MIN_SAVING}×)`;
    text += ` ${c.result.layout} is smaller still (${bytesText(c.bytes)}, ${times(pick.bytes / c.bytes)} less) but ${why}.`;
  }
  return text + notMeasured;
}

/**
 * Ranks the layouts of each window and rate of `report` and says which to
 * pick (see {@link SUGGEST_RULE}). Pure: the same report gives the same text.
 */
export function suggest(report: BenchReport, input: SuggestInput = {}): Suggestion[] {
  const cells: { windowSeconds: number; rate: number; results: CellResult[] }[] = [];
  for (const r of report.results) {
    let cell = cells.find((c) => c.windowSeconds === r.windowSeconds && c.rate === r.rate);
    if (!cell) cells.push((cell = { windowSeconds: r.windowSeconds, rate: r.rate, results: [] }));
    cell.results.push(r);
  }
  // A window and rate where every layout failed still gets its paragraph.
  for (const u of input.unmeasured ?? []) {
    if (u.windowSeconds !== undefined && u.rate !== undefined && !cells.some((c) => c.windowSeconds === u.windowSeconds && c.rate === u.rate)) {
      cells.push({ windowSeconds: u.windowSeconds, rate: u.rate, results: [] });
    }
  }
  return cells.map(({ windowSeconds, rate, results }) => {
    const candidates: Candidate[] = results.map((result) => {
      const { usec, source } = serverTime(result);
      const a = result.accuracy;
      return {
        result,
        bytes: result.memory.bytesPerLight,
        usec,
        source,
        exact: a ? a.maxAbsError === 0 && a.decisionMismatchFraction === 0 : null,
        flips: a ? a.decisionMismatchFraction : null,
        klass: a ? 1 : 3,
      };
    });
    const exactBytes = candidates.filter((c) => c.exact === true).map((c) => c.bytes);
    const smallestExact = exactBytes.length > 0 ? Math.min(...exactBytes) : null;
    for (const c of candidates) {
      if (c.exact !== false) continue;
      const saving = smallestExact === null ? Number.POSITIVE_INFINITY : smallestExact / c.bytes;
      c.klass = saving >= APPROXIMATE_MIN_SAVING && (c.flips ?? 1) <= APPROXIMATE_MAX_FLIPS ? 0 : 2;
    }
    const ranked = [...candidates].sort(compare);
    const smallest = candidates.length > 0 ? Math.min(...candidates.map((c) => c.bytes)) : null;
    const threshold = results.find((r) => r.accuracy)?.accuracy?.threshold ?? null;
    const lights = results[0]?.memory.lights ?? 1;

    const here = (u: Unmeasured): boolean => (u.windowSeconds === undefined || u.windowSeconds === windowSeconds) && (u.rate === undefined || u.rate === rate);
    const named = new Set(results.map((r) => r.layout));
    const unmeasuredRows: SuggestRow[] = [];
    const empty = {
      rank: null,
      bytesPerLight: null,
      bytesPerWindowSecond: null,
      ratioToSmallest: null,
      serverUsecPerRequest: null,
      serverUsecSource: null,
      maxAbsError: null,
      decisionFlipFraction: null,
      reads: null,
      exact: null,
    } as const;
    for (const u of (input.unmeasured ?? []).filter(here)) {
      if (named.has(u.layout)) continue;
      named.add(u.layout);
      unmeasuredRows.push({ layout: u.layout, status: u.status, ...empty, verdict: `${u.status}: ${u.reason}`, reason: u.reason });
    }
    for (const layout of input.layouts ?? []) {
      if (named.has(layout)) continue;
      named.add(layout);
      unmeasuredRows.push({ layout, status: 'skipped', ...empty, verdict: 'skipped: no result in this run', reason: 'no result in this run' });
    }

    const rows: SuggestRow[] = ranked.map((c, i) => {
      const a = c.result.accuracy;
      const verdict =
        i === 0
          ? 'pick'
          : i === 1
            ? 'runner-up'
            : c.klass === 1
              ? 'exact'
              : c.klass === 0
                ? 'approximate, within the rule'
                : c.klass === 3
                  ? 'accuracy not measured'
                  : (c.flips ?? 0) > APPROXIMATE_MAX_FLIPS
                    ? `approximate: ${pct(c.flips ?? 0)} flips > ${pct(APPROXIMATE_MAX_FLIPS)}`
                    : `approximate: under ${APPROXIMATE_MIN_SAVING}× smaller than the smallest exact`;
      return {
        layout: c.result.layout,
        status: 'measured',
        rank: i + 1,
        bytesPerLight: c.bytes,
        bytesPerWindowSecond: c.bytes / windowSeconds,
        ratioToSmallest: smallest ? c.bytes / smallest : null,
        serverUsecPerRequest: c.usec,
        serverUsecSource: c.source,
        maxAbsError: a ? a.maxAbsError : null,
        decisionFlipFraction: a ? a.decisionMismatchFraction : null,
        reads: a ? a.reads : null,
        exact: c.exact,
        verdict,
      };
    });
    return {
      windowSeconds,
      rate,
      lights,
      threshold,
      pick: ranked[0]?.result.layout ?? null,
      runnerUp: ranked[1]?.result.layout ?? null,
      ranking: [...rows, ...unmeasuredRows],
      paragraph: paragraphOf(windowSeconds, rate, lights, threshold, ranked, unmeasuredRows),
    };
  });
}
