import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI (npm test builds before running vitest). */
export const SWC_BIN = fileURLToPath(new URL('../../bin/swc.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `swc …` as a user would, without a TTY, and collects its output. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SWC_BIN, ...args], {
      env: { ...process.env, REDIS_URL: '', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}
