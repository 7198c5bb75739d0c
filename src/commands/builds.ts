import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import type { Command } from 'commander';
import { EnvironmentError, ExitCode, SwcError, UsageError } from '../core/errors.js';
import type { BuildIdentity } from '../run/open.js';
import { SWC_VERSION } from '../core/version.js';
import { onShutdown } from './lifecycle.js';
import { parser } from './options.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';

/** Flags of a command that can run on several server builds. */
export interface BuildsFlags {
  /** Every `--redis-server` given, in order. */
  redisServer?: string[];
}

/** A `--redis-server` path: an executable file, or bad usage. */
function checkBinary(value: string): string {
  try {
    if (!statSync(value).isFile()) throw new Error('not a file');
    accessSync(value, constants.X_OK);
  } catch {
    throw new UsageError(`--redis-server: not an executable file: "${value}" (give the path of a redis-server or valkey-server binary)`);
  }
  return value;
}

/** Adds `--redis-server <path>`, repeatable: each build runs on a private server of its own with the same settings. */
export function addBuildsOption(command: Command): Command {
  return command.option(
    '--redis-server <path>',
    'run on a private server of this build (redis-server or valkey-server binary); repeat to run every build in turn, same settings, one column group per build',
    (value: string, previous: string[] | undefined) => [...(previous ?? []), parser(checkBinary)(value)],
  );
}

/**
 * What to do with the builds given: none or one runs in this process (one
 * build's output is the single-build output, unchanged); several run one
 * after another in child processes. Returns the builds for the latter.
 */
export function buildsToRun(flags: BuildsFlags & { redisUrl?: string }): string[] | undefined {
  const builds = flags.redisServer ?? [];
  if (builds.length > 0 && flags.redisUrl !== undefined) {
    throw new UsageError('--redis-server/--redis-url: --redis-server starts private servers of that build; drop one of them');
  }
  // Every private server of this process (sweep, lane, cluster nodes) starts from this binary.
  if (builds.length === 1) process.env.SWC_REDIS_SERVER = builds[0];
  return builds.length > 1 ? builds : undefined;
}

/** Flags that take a value, as the child command line is rebuilt around them. */
const VALUED = new Set(['--redis-server', '--format', '--output', '--chart-out', '--seed', '--baseline']);

/** The command line without the given flags (and their values), in both `--flag value` and `--flag=value` forms. */
export function withoutFlags(argv: readonly string[], drop: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (drop.includes(name)) {
      if (VALUED.has(name) && !arg.includes('=')) i += 1;
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** One build's child run. */
export interface ChildRun {
  readonly label: string;
  readonly build: BuildIdentity;
  readonly code: number;
  readonly stdout: string;
}

let current: ChildProcess | undefined;
let hooked = false;

/** Runs `swc <args>` with `binary` as the private server's build; its stderr lines go to ours, prefixed with the build's label. */
function runChild(args: readonly string[], binary: string, label: string): Promise<{ code: number; stdout: string }> {
  if (!hooked) {
    hooked = true;
    // A stopped parent stops the build's run too: its clean-up (private server, keys) runs in the child.
    onShutdown(async () => {
      const child = current;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
    });
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [process.argv[1] as string, ...args], {
      // REDIS_URL would send the child to that server instead of its private one.
      env: { ...process.env, SWC_REDIS_SERVER: binary, REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    current = child;
    let stdout = '';
    let pending = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => {
      pending += d.toString();
      const lines = pending.split(/\r?\n|\r/);
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') process.stderr.write(`[${label}] ${line}\n`);
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (pending.trim() !== '') process.stderr.write(`[${label}] ${pending}\n`);
      current = undefined;
      resolve({ code: code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : ExitCode.runtime), stdout });
    });
  });
}

/**
 * Runs the same command once per build, one after another (two builds at
 * once would share the machine's cores and disturb each other's figures),
 * each in a child swc whose private servers start from that build.
 */
export async function runAcrossBuilds(binaries: readonly string[], args: readonly string[]): Promise<ChildRun[]> {
  // The build probe (it starts each redis-server) loads with the first run across builds.
  const { probeBuild, uniqueLabels } = await import('../run/open.js');
  const builds: BuildIdentity[] = [];
  // Every build is started once first: a binary that does not run fails before any measurement.
  for (const binary of binaries) {
    try {
      builds.push(await probeBuild(binary));
    } catch (err) {
      if (err instanceof SwcError) throw err.at(`starting --redis-server ${binary}`);
      throw err;
    }
  }
  const labels = uniqueLabels(builds);
  const runs: ChildRun[] = [];
  for (const [i, build] of builds.entries()) {
    const label = labels[i] as string;
    process.stderr.write(`swc: build ${i + 1}/${builds.length}: ${label} (${build.path})\n`);
    const { code, stdout } = await runChild(args, build.path, label);
    runs.push({ label, build, code, stdout });
    // A signal stops every build, not only the one it interrupted.
    if (code === 130 || code === 143) break;
  }
  return runs;
}

/** Parses a child's JSON output; undefined when it printed none (it failed). */
export function childJson(run: ChildRun): unknown {
  if (run.stdout.trim() === '') return undefined;
  try {
    return JSON.parse(run.stdout) as unknown;
  } catch {
    throw new EnvironmentError(`${run.label}: its run printed output that is not JSON`);
  }
}

/** The JSON of a multi-build run: one entry per build, keyed by its label. */
export function buildsJson(
  runs: readonly { label: string; build: BuildIdentity; code: number }[],
  results: readonly unknown[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    ...extra,
    builds: Object.fromEntries(runs.map((r, i) => [r.label, { build: r.build, exitCode: r.code, result: results[i] ?? null }])),
  };
}
