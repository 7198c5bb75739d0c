import { buildProgram, parseFailureCode } from '../../src/commands/program.js';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The run in progress: runs take turns, since each one swaps the process's stdout, stderr and environment. */
let turn: Promise<unknown> = Promise.resolve();

/**
 * Runs `swc …` inside the test process: the same program, exit codes and
 * one-line messages as the built CLI, without the ~300 ms of a spawn. In the
 * unit lane, for cases that fail before anything reaches Redis (validation,
 * exit 2); in the integration lane also against the lane's server. What a
 * process alone shows (a signal, a TTY, the exit of a failed connection, two
 * runs at once) belongs in test/cli with runCli. Calls made at once run one
 * after the other.
 */
export function runInProcess(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<InProcessResult> {
  const run = turn.then(() => runNow(args, env));
  turn = run.catch(() => undefined);
  return run;
}

async function runNow(args: readonly string[], env: NodeJS.ProcessEnv): Promise<InProcessResult> {
  const saved = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries({ REDIS_URL: '', NO_COLOR: '1', ...env })) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
  let stdout = '';
  let stderr = '';
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += chunk.toString()), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += chunk.toString()), true)) as typeof process.stderr.write;
  let code: number;
  try {
    const argv = ['node', 'swc', ...args];
    await (await buildProgram(argv)).parseAsync(argv);
    code = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0);
  } catch (err) {
    code = parseFailureCode(err);
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
    process.exitCode = undefined;
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  return { code, stdout, stderr };
}
