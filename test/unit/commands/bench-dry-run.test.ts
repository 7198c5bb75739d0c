import { describe, expect, it } from 'vitest';
import { hasValgrind } from '../../helpers.js';
import { runInProcess } from '../in-process.js';

// In-process: the plan and its estimate are made before anything connects, so
// nothing here needs a process of its own (exit codes and stderr lines are the
// program's own, through test/unit/in-process.ts).

/** Nothing listens here: a command that connected would fail (exit 3). */
const NOWHERE = 'redis://127.0.0.1:1';

describe('swc bench --dry-run', () => {
  it('prints the cells, their phases and the estimate without touching Redis', async () => {
    const r = await runInProcess(['bench', '--dry-run', '--rate', '10,100', '--window', '300', '--redis-url', NOWHERE], { COLUMNS: '80' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // One window for every cell: it moves into the title at 80 columns.
    expect(r.stdout).toMatch(/^Plan: 4 cell\(s\); --dry-run sends nothing to Redis — window 5 min\n/);
    expect(r.stdout).toMatch(/│ +100 │ stoplight-v6 │ +30,000 │ +37,500 │/);
    expect(r.stdout).toMatch(/fill, accuracy, write\/read\/request throughput × 5 rounds, app view/);
    // No server of swc's own: no start in the estimate.
    expect(r.stdout).toMatch(/^estimated \d+ s: fill [\d.]+ s, accuracy [\d.]+ s, throughput [\d.]+ s, app view/m);
    expect(r.stdout.split('\n').filter((l) => [...l].length > 80)).toEqual([]);
  });

  it('--json: the same plan as data', async () => {
    const r = await runInProcess(['bench', '--dry-run', '--json', '--no-throughput', '--layout', 'stoplight-v6', '--window', '60', '--rate', '10']);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as {
      dryRun: boolean;
      cells: { events: number; accuracyEvents: number; phases: string[] }[];
      phases: { phase: string; estimatedSeconds: number; beside?: boolean }[];
      estimatedSeconds: number;
    };
    expect(plan.dryRun).toBe(true);
    // swc's own server: the commands-per-call probe runs there, and is counted.
    expect(plan.cells).toEqual([
      { layout: 'stoplight-v6', windowSeconds: 60, rate: 10, events: 600, accuracyEvents: 750, phases: ['fill', 'accuracy', 'commands per call'] },
    ]);
    expect(plan.phases.map((p) => p.phase)).toEqual(['server start', 'fill', 'accuracy', 'commands per call', 'cells']);
    // No throughput phase: the accuracy phase runs beside the others on a second server, and the run takes the longer side.
    const seconds = (name: string): number => plan.phases.find((p) => p.phase === name)?.estimatedSeconds ?? 0;
    expect(plan.phases.find((p) => p.phase === 'accuracy')?.beside).toBe(true);
    const own = seconds('fill') + seconds('commands per call') + seconds('cells');
    expect(plan.estimatedSeconds).toBeCloseTo(seconds('server start') + Math.max(own, seconds('accuracy')), 6);
  });

  it.skipIf(!hasValgrind)('--instructions: the count under valgrind is a phase of its own, tens of seconds for one cell', async () => {
    const r = await runInProcess(['bench', '--dry-run', '--json', '--instructions', '--window', '30', '--rate', '1']);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { phases: { phase: string; estimatedSeconds: number }[]; estimatedSeconds: number };
    const counted = plan.phases.find((p) => p.phase === 'instructions');
    // Measured: 24 s of counting in a 35 s run of this plan at a load average of 15 (docs/output.md).
    expect(counted?.estimatedSeconds).toBeGreaterThan(15);
    expect(plan.estimatedSeconds).toBeGreaterThan(17.5);
    expect(plan.estimatedSeconds).toBeLessThan(70);
  });

  it('a run estimated over a minute says so in its first stderr line, before it connects', async () => {
    const r = await runInProcess(['bench', '--suggest', '--window', '1m,10m', '--rate', '10,100', '--redis-url', NOWHERE]);
    expect(r.code).toBe(3);
    const first = r.stderr.split('\n')[0];
    expect(first).toMatch(/^swc bench: estimated \d+ min( \d+ s)? \(over a minute\); --dry-run shows the cells and phases$/);
    const short = await runInProcess(['bench', '--window', '60', '--rate', '10', '--no-throughput', '--redis-url', NOWHERE]);
    expect(short.code).toBe(3);
    expect(short.stderr).not.toMatch(/estimated/);
  });
});
