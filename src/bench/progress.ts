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
  private readonly started: number;
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
    this.started = now;
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

  /** Estimated seconds left, from the pace so far; null before there is a pace. */
  etaSeconds(now = performance.now()): number | null {
    const { done, total } = this.estimate();
    const elapsed = (now - this.started) / 1000;
    if (done <= 0 || elapsed < 0.5) return null;
    return Math.max(0, ((total - done) * elapsed) / done);
  }
}
