import { performance } from 'node:perf_hooks';

/** Seconds per event of the fill, assumed until the run has measured its own. */
const ASSUMED_SECONDS_PER_EVENT = 20e-6;
/** Operations per second assumed for an --ops phase, to weigh it against the fill. */
const ASSUMED_OPS_PER_SECOND = 20_000;

/**
 * Where a run is in time: the fill's events and the throughput phases'
 * rounds, each weighed by the seconds it should take, the fill's speed
 * learnt as it goes. `fraction` moves with time rather than with events,
 * so a bar built on it does not stall in the throughput phases; `etaSeconds`
 * is the estimated time left.
 */
export class RunClock {
  private written = 0;
  private fillSeconds = 0;
  private lastTick: number;
  private filling = true;
  private groupsDone = 0;
  private cellsDone = 0;
  private inGroup = 0;
  private readonly rounds: number;
  /** When the first cell started: start-up before it is no rate of the run's. */
  private firstCellStart: number | null = null;
  /** Estimated seconds of one round of one layout in one phase. */
  private readonly roundSeconds: number;
  private readonly groupSeconds: number;

  constructor(
    private readonly totalEvents: number,
    private readonly groups: number,
    private readonly layouts: number,
    throughput: { seconds: number; ops?: number; rounds?: number; appViewMs?: number } | undefined,
    now = performance.now(),
  ) {
    this.lastTick = now;
    const rounds = throughput?.rounds ?? 1;
    this.rounds = rounds;
    const perPhase = throughput ? (throughput.ops !== undefined ? throughput.ops / ASSUMED_OPS_PER_SECOND : throughput.seconds) : 0;
    this.roundSeconds = perPhase / rounds;
    // Three phases per layout, and the app view's tinybench time (plus its warm-up) per layout.
    this.groupSeconds = throughput ? layouts * (3 * perPhase + ((throughput.appViewMs ?? 0) * 1.25) / 1000) : 0;
  }

  private tick(now: number): void {
    if (this.filling) this.fillSeconds += now - this.lastTick;
    this.lastTick = now;
  }

  private secondsPerEvent(): number {
    return this.written > 1000 && this.fillSeconds > 0 ? this.fillSeconds / 1000 / this.written : ASSUMED_SECONDS_PER_EVENT;
  }

  /** Events written so far (the fill is running). */
  events(written: number, now = performance.now()): void {
    this.tick(now);
    this.filling = true;
    this.written = written;
  }

  /** A cell's fill starts. */
  cellStart(now = performance.now()): void {
    // Start-up before the first cell (server, scripts, warm-up) is no fill time.
    if (this.firstCellStart === null) {
      this.firstCellStart = now;
      this.lastTick = now;
    }
    this.tick(now);
    this.filling = true;
  }

  /** A throughput round is `fraction` done. */
  round(phase: number, round: number, target: number, fraction: number, now = performance.now()): void {
    this.tick(now);
    this.filling = false;
    this.inGroup = ((phase * this.rounds + round) * this.layouts + target + fraction) * this.roundSeconds;
  }

  /** A cell finished; the last cell of a window×rate group ends the group's throughput phases. */
  cellDone(now = performance.now()): void {
    this.tick(now);
    this.cellsDone += 1;
    if (this.cellsDone % this.layouts === 0) {
      this.groupsDone += 1;
      this.inGroup = 0;
    }
  }

  /** Estimated seconds of work done and in all. */
  private estimate(): { done: number; total: number } {
    const perEvent = this.secondsPerEvent();
    const done = this.written * perEvent + this.groupsDone * this.groupSeconds + Math.min(this.inGroup, this.groupSeconds);
    const total = this.totalEvents * perEvent + this.groups * this.groupSeconds;
    return { done, total: Math.max(total, done) };
  }

  /** 0..1 of the run, by estimated time. */
  fraction(): number {
    const { done, total } = this.estimate();
    return total > 0 ? Math.min(1, done / total) : 0;
  }

  /**
   * Seconds left, from the rates this run measured ({@link measuredEta}):
   * null until the first cell has finished, since before that nothing but
   * start-up and one partial fill has been timed.
   */
  etaSeconds(now = performance.now()): number | null {
    if (this.firstCellStart === null) return null;
    const sinceFirst = (now - this.firstCellStart) / 1000;
    return measuredEta({
      eventsDone: this.written,
      eventsTotal: this.totalEvents,
      cellsDone: this.cellsDone,
      cellsTotal: this.groups * this.layouts,
      fillSeconds: this.fillSeconds / 1000,
      otherSeconds: Math.max(0, sinceFirst - this.fillSeconds / 1000),
    });
  }
}

/** What a run has measured of itself so far, for {@link measuredEta}. */
export interface RunPace {
  readonly eventsDone: number;
  readonly eventsTotal: number;
  readonly cellsDone: number;
  readonly cellsTotal: number;
  /** Seconds spent writing events (the fills). */
  readonly fillSeconds: number;
  /** Seconds since the first cell started that were not fill: settling, measuring, the throughput and accuracy phases. */
  readonly otherSeconds: number;
}

/**
 * Seconds left: the measured time per event times the events left, plus the
 * measured time per finished cell spent outside the fill times the cells
 * left. Null before the first cell has finished (no rate measured yet).
 */
export function measuredEta(pace: RunPace): number | null {
  if (pace.cellsDone <= 0 || pace.eventsDone <= 0) return null;
  const perEvent = pace.fillSeconds / pace.eventsDone;
  const perCell = pace.otherSeconds / pace.cellsDone;
  const left = perEvent * Math.max(0, pace.eventsTotal - pace.eventsDone) + perCell * Math.max(0, pace.cellsTotal - pace.cellsDone);
  return Math.max(0, left);
}
