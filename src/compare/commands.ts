import type { CommandsPerCall } from '../measure/commandstats.js';
import type { BenchReport, CellResult } from '../measure/types.js';
import type { CommandChange, CompareRow } from './rows.js';

/** The operations bench takes commands per call of. */
export const COMMAND_OPERATIONS = ['write', 'failure', 'read'] as const;

/** The commands whose mean count per call differs, by name. */
export function commandChanges(baseline: CommandsPerCall, current: CommandsPerCall): CommandChange[] {
  const names = new Set([...baseline.breakdown.map((c) => c.command), ...current.breakdown.map((c) => c.command)]);
  const mean = (cost: CommandsPerCall, name: string): number => cost.breakdown.find((c) => c.command === name)?.mean ?? 0;
  return [...names]
    .sort()
    .map((command) => ({ command, baseline: mean(baseline, command), current: mean(current, command) }))
    .filter((c) => c.baseline !== c.current);
}

/**
 * Rows of commands per call, gated exactly: more commands per call than the
 * baseline by more than `tolerance` (0 by default) is a regression, fewer an
 * improvement. A cell whose baseline has none is not gated: one `info` row
 * says so.
 */
export function commandRows(baseline: BenchReport, current: BenchReport, tolerance: number, cellName: (r: CellResult) => string): CompareRow[] {
  const now = new Map(current.results.map((r) => [cellName(r), r]));
  const rows: CompareRow[] = [];
  for (const b of baseline.results) {
    const c = now.get(cellName(b));
    if (!c) continue;
    for (const op of COMMAND_OPERATIONS) {
      const base = b.commands?.[op];
      const cur = c.commands?.[op];
      if (!base && !cur) continue;
      const before = base?.commands.mean ?? null;
      const after = cur?.commands.mean ?? null;
      let status: CompareRow['status'] = 'info';
      if (before !== null && after !== null) status = after - before > tolerance ? 'regressed' : before - after > tolerance ? 'improved' : 'ok';
      rows.push({
        cell: cellName(b),
        layout: b.layout,
        windowSeconds: b.windowSeconds,
        rate: b.rate,
        figure: `${op}CommandsPerCall`,
        baseline: before,
        current: after,
        changeFraction: before !== null && after !== null ? (before === after ? 0 : before === 0 ? Number.POSITIVE_INFINITY : after / before - 1) : null,
        status,
        ...(base && cur ? { commands: commandChanges(base, cur) } : {}),
      });
    }
  }
  return rows;
}
