/** `swc bench`'s progress on stderr: a bar on a terminal, a line per cell and phase otherwise. */
import { plannedEvents, type BenchPlan } from '../../bench/plan.js';
import { RunClock } from '../../bench/progress.js';
import type { BenchProgress } from '../../bench/run.js';
import type { CellResult } from '../../measure/types.js';
import type { Cell } from '../../bench/plan.js';
import { formatWindow } from '../../report/bench.js';
import { kb } from '../../report/style.js';
import { proseWidth, wrapText } from '../../report/width.js';
import { onShutdown } from '../lifecycle.js';
import { barText, clearStatus, showStatus } from '../status-line.js';

const etaText = (seconds: number | null): string =>
  seconds === null ? '…' : seconds < 60 ? `${Math.ceil(seconds)} s` : `${Math.floor(seconds / 60)} min ${Math.ceil(seconds % 60)} s`;

/** The time left, said only once the run has measured its own pace (after its first cell). */
const etaLeft = (seconds: number | null): string => (seconds === null ? 'time left known after the first cell' : `about ${etaText(seconds)} left`);

const PHASES = ['write', 'read', 'request'] as const;

/**
 * Progress on stderr: a bar on a TTY that follows time (fill and throughput
 * phases weighed by how long they take) with an estimate of the time left,
 * one line per cell and phase otherwise. `stop` clears the bar; call it
 * before printing results.
 */
export function progressReporter(enabled: boolean, plan: BenchPlan): { hooks: BenchProgress; stop: () => void } {
  if (!enabled) return { hooks: {}, stop: () => undefined };
  const realtime = plan.realtime === true;
  const clock = new RunClock(plannedEvents(plan), plan.windows.length * plan.rates.length, plan.layouts.length, plan.throughput);
  if (process.stderr.isTTY) {
    let stopped = false;
    let cell = '';
    let drawnAt = 0;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      clearStatus();
    };
    onShutdown(async () => stop());
    // Redrawn at most 10 times a second (events arrive by the thousand), and at once when the cell or phase changes.
    const show = (payload: { cell?: string } = {}): void => {
      if (stopped) return;
      const now = performance.now();
      if (payload.cell === undefined && now - drawnAt < 100) return;
      drawnAt = now;
      if (payload.cell !== undefined) cell = payload.cell;
      const fraction = clock.fraction();
      showStatus(`swc bench ${barText(fraction, 20)} ${Math.round(fraction * 100)}% | ${etaText(clock.etaSeconds())} left | ${cell}`);
    };
    show({ cell: '' });
    const where = (cell: { layout: string; windowSeconds: number; rate: number }): string =>
      `${cell.layout} ${formatWindow(cell.windowSeconds)} @ ${cell.rate}/s`;
    const hooks: BenchProgress = {
      onCellStart: (cell) => {
        clock.cellStart();
        show({ cell: `${where(cell)}: filling` });
      },
      onEvents: (written: number) => {
        clock.events(written);
        show();
      },
      onThroughput: (group, p) => {
        clock.round(PHASES.indexOf(p.phase), p.round, p.target, p.fraction);
        const cell = group[p.target] ?? group[0];
        show(cell ? { cell: `${where(cell)}: ${p.phase} round ${p.round + 1}` } : {});
      },
      onCellDone: () => {
        clock.cellDone();
        show();
      },
    };
    return { hooks, stop };
  }
  // Each cell's number, from its start: a throughput phase names the cells of its group, not the last cell started.
  const numbers = new Map<Cell, number>();
  let total = 0;
  const cellsOf = (group: readonly Cell[]): string => {
    const known = group.map((c) => numbers.get(c)).filter((n): n is number => n !== undefined);
    if (known.length === 0) return '';
    const [lo, hi] = [Math.min(...known), Math.max(...known)];
    return `[${lo === hi ? lo : `${lo}-${hi}`}/${total}] `;
  };
  // Progress lines off a TTY fit COLUMNS when it is set (a log keeps them whole otherwise).
  const width = proseWidth({ stream: process.stderr });
  const say = (line: string): void => void process.stderr.write(`${wrapText(line, width, 4)}\n`);
  const hooks: BenchProgress = {
    onCellStart: (cell, i: number, n: number) => {
      clock.cellStart();
      numbers.set(cell, i + 1);
      total = n;
      const at = `${i + 1}/${n}`;
      // Real traffic takes real time: say when each cell's starts.
      if (realtime) {
        say(`swc bench: [${at}] ${cell.layout} window ${formatWindow(cell.windowSeconds)} at ${cell.rate}/s: real traffic for ${cell.durationSeconds} s`);
      }
    },
    // One line per phase: a log (or a test) sees where a long run is.
    onEvents: (written: number) => clock.events(written),
    onThroughput: (_group, p) => clock.round(PHASES.indexOf(p.phase), p.round, p.target, p.fraction),
    onPhase: (cell, phase: string, group) =>
      say(
        `swc bench: ${cellsOf(group)}${group.map((c) => c.layout).join(', ')} window ${formatWindow(cell.windowSeconds)} at ${cell.rate}/s: ${phase} throughput phase` +
          (group.length > 1 ? ' (layouts alternating round by round)' : '') +
          `; ${etaLeft(clock.etaSeconds())}`,
      ),
    onCellDone: (r: CellResult, i: number, n: number) => {
      clock.cellDone();
      say(
        `swc bench: [${i + 1}/${n}] ${r.layout} window ${formatWindow(r.windowSeconds)} at ${r.rate}/s: ` +
          `${kb(r.memory.bytesPerLight)} KB per light` +
          (r.throughput ? `, request ${Math.round(r.throughput.request.opsPerSec).toLocaleString('en-US')} ops/s` : '') +
          (r.realtime
            ? `, sent ${r.realtime.achievedRate.toFixed(1)}/s per light (asked ${r.realtime.requestedRate}), write p99 ${r.realtime.write.p99Ms.toFixed(2)} ms`
            : ''),
      );
    },
  };
  return { hooks, stop: () => undefined };
}
