// What the timing tools share: one swc run timed from spawn to exit, and a median.
import { spawnSync } from 'node:child_process';

/** Runs `node bin args`, timed from spawn to exit; a failed run stops the tool (named `tool`) with its exit code and stderr. */
export function timedSwc(tool: string, bin: string, args: readonly string[]): { seconds: number; stdout: string } {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) {
    process.stderr.write(`${tool}: ${bin} ${args.join(' ')} exited ${run.status}\n${run.stderr}`);
    process.exit(run.status ?? 3);
  }
  return { seconds, stdout: run.stdout };
}

/** The median of a non-empty list. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
