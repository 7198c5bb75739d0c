import { execFile } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { EnvironmentError, ExitCode, SwcError } from '../core/errors.js';

/**
 * The function whose calls are counted: redis-server's `call()` runs one
 * command (an EVALSHA, and again for each redis.call inside it), from its
 * lookup to its reply in the client's buffer. Reading the request, writing
 * the reply to the socket, the event loop and serverCron stay outside it.
 * Measured on 7.0.15: every instruction of a dump lies under `call()`
 * (nothing from aeMain or serverCron), and the commands a script runs
 * through redis.call are counted too (they enter `call()` again, which
 * callgrind keeps as the recursion `call'2` inside the outer one).
 */
export const COUNTED_FUNCTION = 'call';

/** The valgrind tools swc needs, found on PATH. */
export interface ValgrindTools {
  readonly valgrind: string;
  readonly control: string;
}

/** The refusal when valgrind is not installed: one line, naming the package. */
export class ValgrindMissingError extends SwcError {
  constructor(missing: string) {
    super(`--instructions: ${missing} not found on PATH; install Debian's valgrind package (apt-get install -y valgrind)`, ExitCode.runtime);
  }
}

function onPath(name: string, pathEnv: string): string | undefined {
  for (const dir of pathEnv.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here: the next folder.
    }
  }
  return undefined;
}

/** valgrind and callgrind_control on `pathEnv` (default PATH); throws {@link ValgrindMissingError} (exit 3) when either is missing. */
export function findValgrind(pathEnv: string = process.env.PATH ?? ''): ValgrindTools {
  const valgrind = onPath('valgrind', pathEnv);
  if (!valgrind) throw new ValgrindMissingError('valgrind');
  const control = onPath('callgrind_control', pathEnv);
  if (!control) throw new ValgrindMissingError('callgrind_control (part of valgrind)');
  return { valgrind, control };
}

/** The file callgrind writes its dumps to, in the server's folder; each dump adds `.<n>`. */
const OUT_FILE = 'callgrind.out';
const VGDB_PREFIX = 'vgdb-pipe';

/**
 * The wrapper a private server runs under: callgrind with collection off
 * until `call` is entered, and instrumentation off at start (a fill runs
 * about 5× slower instead of 40×; {@link CallgrindControl.instrument} turns
 * it on before the counted calls).
 */
export function callgrindWrapper(tools: ValgrindTools): string[] {
  return [
    tools.valgrind,
    '--tool=callgrind',
    '--collect-atstart=no',
    `--toggle-collect=${COUNTED_FUNCTION}`,
    '--instr-atstart=no',
    `--callgrind-out-file={dir}/${OUT_FILE}`,
    // vgdb's pipes in the server's folder, not /tmp: removed with it, also after a SIGKILL of swc.
    `--vgdb-prefix={dir}/${VGDB_PREFIX}`,
    // valgrind's own messages would only fill the pipe swc keeps for start-up errors.
    '-q',
  ];
}

/** Functions of one dump: self and inclusive counts, by name. */
export interface CallgrindDump {
  /** Instructions collected since the last zero (the dump's `totals:` line, or `summary:`). */
  readonly total: number;
  /** Per function (callgrind's names; recursion levels as `name'2`): instructions in it alone and with its callees. */
  readonly functions: ReadonlyMap<string, { readonly self: number; readonly inclusive: number }>;
}

/**
 * Reads a callgrind dump (format version 1, one event, `Ir`): the totals,
 * and each function's self cost (its cost lines) and inclusive cost (self
 * plus the cost lines that follow its `calls=` lines). Names given once as
 * `(id) name` are later written `(id)` alone.
 */
export function parseCallgrind(text: string): CallgrindDump {
  let positions = 1;
  let total: number | undefined;
  let summary: number | undefined;
  const names = new Map<string, string>();
  const functions = new Map<string, { self: number; inclusive: number }>();
  let current: { self: number; inclusive: number } | undefined;
  let callLine = false;
  /** `(id) name` or `(id)`: the name, remembering new ones. */
  const nameOf = (spec: string): string => {
    const match = /^\((\d+)\)(?:\s+(.*))?$/.exec(spec.trim());
    if (!match) return spec.trim();
    const [, id, name] = match as unknown as [string, string, string | undefined];
    if (name !== undefined) names.set(id, name);
    return names.get(id) ?? `(${id})`;
  };
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const first = line.charCodeAt(0);
    // Cost lines start with a digit, +, - or * (relative positions).
    if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 42) {
      const words = line.trim().split(/\s+/);
      const cost = Number(words[positions] ?? 0);
      if (!current || !Number.isFinite(cost)) {
        callLine = false;
        continue;
      }
      if (callLine) current.inclusive += cost;
      else {
        current.self += cost;
        current.inclusive += cost;
      }
      callLine = false;
      continue;
    }
    const eq = line.indexOf('=');
    const colon = line.indexOf(':');
    if (colon > 0 && (eq < 0 || colon < eq)) {
      const key = line.slice(0, colon);
      const value = line.slice(colon + 1).trim();
      if (key === 'positions') positions = value.split(/\s+/).length;
      else if (key === 'totals') total = Number(value.split(/\s+/)[0]);
      else if (key === 'summary') summary = Number(value.split(/\s+/)[0]);
      continue;
    }
    if (eq < 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'fn') {
      const name = nameOf(value);
      current = functions.get(name) ?? { self: 0, inclusive: 0 };
      functions.set(name, current);
    } else if (key === 'cfn') {
      nameOf(value);
    } else if (key === 'calls') {
      callLine = true;
    }
  }
  const counted = total ?? summary;
  if (counted === undefined || !Number.isFinite(counted)) throw new EnvironmentError('callgrind: the dump has no totals or summary line');
  return { total: counted, functions };
}

function run(file: string, args: readonly string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, [...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) {
        const why = `${stderr}`.trim().split('\n').slice(-2).join(' | ') || err.message;
        reject(new EnvironmentError(`callgrind_control ${args.join(' ')}: ${why}`, { cause: err }));
      } else resolve(`${stdout}`);
    });
  });
}

/** Drives callgrind inside one server process: zero, dump, instrumentation on or off (callgrind_control). */
export class CallgrindControl {
  private dumps = 0;

  constructor(
    private readonly tools: ValgrindTools,
    private readonly pid: number,
    /** The server's folder, where {@link callgrindWrapper} has the dumps written. */
    private readonly dir: string,
  ) {}

  private get prefix(): string {
    return `--vgdb-prefix=${path.join(this.dir, VGDB_PREFIX)}`;
  }

  /** Turns instrumentation on or off (off: no count at all, and far faster). */
  async instrument(on: boolean): Promise<void> {
    await run(this.tools.control, [this.prefix, '-i', on ? 'on' : 'off', String(this.pid)], 30_000);
  }

  /** Sets the counters to zero. */
  async zero(): Promise<void> {
    await run(this.tools.control, [this.prefix, '-z', String(this.pid)], 30_000);
  }

  /** Dumps the counters since the last zero, reads the dump, and removes its file. */
  async dump(): Promise<CallgrindDump> {
    await run(this.tools.control, [this.prefix, '-d', String(this.pid)], 30_000);
    this.dumps += 1;
    // callgrind numbers its dumps from 1; read the newest, whatever its number.
    const files = readdirSync(this.dir).filter((f) => f.startsWith(`${OUT_FILE}.`));
    const newest = files
      .map((f) => ({ f, n: Number(f.slice(OUT_FILE.length + 1).split('-')[0]) }))
      .filter((x) => Number.isInteger(x.n))
      .sort((a, b) => b.n - a.n)[0];
    if (!newest) throw new EnvironmentError(`callgrind: no dump file in ${this.dir} after dump ${this.dumps}`);
    const file = path.join(this.dir, newest.f);
    try {
      return parseCallgrind(readFileSync(file, 'utf8'));
    } finally {
      rmSync(file, { force: true });
    }
  }
}
