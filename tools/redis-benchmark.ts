// redis-benchmark on one command, for the driver scripts (bench-driver.ts,
// bench-driver-floor.ts): the same arguments and the same reading of its
// --csv output in both.
import { spawn } from 'node:child_process';

/**
 * Runs `redis-benchmark -c connections -P pipeline -n ops --csv <command…>`
 * against 127.0.0.1:`port` and resolves with its requests per second.
 * `prefix` runs it through another program (e.g. ['taskset', '-c', '1']).
 */
/** What redis-benchmark sends: `-c`, `-P` and `-n`. */
export interface BenchmarkLoad {
  connections: number;
  pipeline: number;
  ops: number;
}

export function redisBenchmark(
  port: number,
  { connections, pipeline, ops }: BenchmarkLoad,
  command: readonly string[],
  prefix: readonly string[] = [],
): Promise<number> {
  const args = ['-h', '127.0.0.1', '-p', String(port), '-c', String(connections), '-P', String(pipeline), '-n', String(ops), '--csv', ...command];
  const [program = 'redis-benchmark', ...programArgs] = [...prefix, 'redis-benchmark', ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(program, programArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      // The data row: "<command> …","<rps>","<avg ms>",…
      const row = out.split('\n').find((line) => line.startsWith(`"${command[0]}`));
      const rps = row ? Number(row.split('","')[1]) : NaN;
      if (code !== 0 || !Number.isFinite(rps)) reject(new Error(`redis-benchmark failed (exit ${code}): ${err || out}`));
      else resolve(rps);
    });
  });
}
