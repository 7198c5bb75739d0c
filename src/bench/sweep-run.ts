/**
 * `swc bench --sweep`'s run: the bench matrix once per combination of
 * encoding settings, each on a fresh private redis-server started with it
 * (through the one door, src/run/open.ts), after a run on the server's
 * defaults (what the ratios divide). Never on a user's server: swc changes
 * settings only on servers it starts. Returns the document `--json` prints.
 */
import type { Redis } from 'ioredis';
import { InterruptedError, UsageError } from '../core/errors.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';
import { SWC_VERSION } from '../core/version.js';
import type { BenchReport } from '../measure/types.js';
import { openTarget, serverVersion, type Session, type Shard } from '../run/open.js';
import { adviseSweep, settingsLabel, summarize, type Combination, type SweepAxis, type SweepReport, type SweepRun } from './sweep.js';

/** Inputs of {@link runSweep}. */
export interface SweepInput {
  readonly axes: readonly SweepAxis[];
  readonly combinations: readonly Combination[];
  /** `--redis-server-arg` settings, given to every server. */
  readonly serverArgs: readonly string[];
  /** Hears a line per combination (`sweep 2/4: …`). */
  readonly say?: (line: string) => void;
  /** Hears a setting the server did not take as asked. */
  readonly warn?: (line: string) => void;
  /** Registers what a signal does (stop the run, then its server) and returns its unregistering (the CLI's shutdown hook). */
  readonly onSignal?: (cleanup: () => Promise<void>) => () => void;
  /** Runs the bench matrix on one server; aborting the signal stops it. */
  readonly run: (session: Session, signal: AbortSignal) => Promise<BenchReport>;
}

/** How long a stopping run may take to notice the stop before its server is stopped anyway. */
const STOP_WAIT_MS = 1500;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/** Each setting's value on a server, by the names given; a name the server does not know is missing. */
async function readSettings(redis: Redis, names: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of names) {
    const reply = (await redis.call('CONFIG', 'GET', name)) as string[];
    // A name without wildcards gives one pair (an alias may answer under the other name).
    const at = Math.max(
      0,
      reply.findIndex((v, i) => i % 2 === 0 && v.toLowerCase() === name),
    );
    if (reply[at + 1] !== undefined) out[name] = Number(reply[at + 1]);
  }
  return out;
}

/**
 * Runs the sweep: the defaults first, then every combination that differs
 * from them, each on a private server of its own that is stopped before the
 * next starts (and on Ctrl-C). Returns the document `--json` prints.
 */
export async function runSweep(input: SweepInput): Promise<SweepReport> {
  const started = Date.now();
  const names = input.axes.map((a) => a.setting);
  const stop = new AbortController();

  /** Starts a server with `settings`, runs `use` on it, stops it on every way out. */
  const onServer = async <T>(settings: readonly string[], label: string, use: (session: Session) => Promise<T>): Promise<T> => {
    if (stop.signal.aborted) throw new InterruptedError();
    let session: Session;
    try {
      ({ session } = (await openTarget({ privateServer: { settings: [...input.serverArgs, ...settings] } })).shards[0] as Shard);
    } catch (err) {
      // A value the server refuses is the sweep's bad input.
      if (err instanceof UsageError && settings.length > 0) {
        throw new UsageError(`--sweep: redis-server did not start with ${label}: ${err.message.replace(/^--redis-server-arg: /, '')}`);
      }
      throw err;
    }
    let running: Promise<T> | undefined;
    const unregister = input.onSignal?.(async () => {
      stop.abort();
      if (running) await Promise.race([running.catch(() => undefined), sleep(STOP_WAIT_MS)]);
      await session.close();
    });
    try {
      running = use(session);
      return await running;
    } finally {
      unregister?.();
      await session.close();
    }
  };

  const say = (line: string): void => input.say?.(line);

  // The defaults first: what each setting is without the sweep, and the run every ratio divides.
  let defaults: Record<string, number> = {};
  const same = (combo: Combination): boolean => combo.every(({ setting, value }) => defaults[setting] === value);
  let total = 0;
  let index = 0;
  const base: SweepRun = await onServer([], 'the defaults', async (session) => {
    defaults = await readSettings(session.redis, names);
    const unknown = names.filter((n) => defaults[n] === undefined);
    if (unknown.length > 0) {
      const version = await serverVersion(session.redis);
      throw new UsageError(`--sweep: redis-server ${version} does not know ${unknown.join(', ')} (set-max-listpack-* needs Redis 7.2 or later)`);
    }
    total = input.combinations.length + (input.combinations.some(same) ? 0 : 1);
    index += 1;
    say(`sweep ${index}/${total}: ${settingsLabel(defaults)} (the server's defaults)`);
    return { settings: { ...defaults }, default: true, report: await input.run(session, stop.signal) };
  });
  const runs: SweepRun[] = [];
  const matchIndex = input.combinations.findIndex(same);
  if (matchIndex < 0) runs.push(base);
  for (const [i, combo] of input.combinations.entries()) {
    if (i === matchIndex) {
      runs.push({ ...base, settings: Object.fromEntries(combo.map(({ setting, value }) => [setting, value])) });
      continue;
    }
    const asked = Object.fromEntries(combo.map(({ setting, value }) => [setting, value]));
    const label = settingsLabel(asked);
    index += 1;
    say(`sweep ${index}/${total}: ${label}`);
    const run = await onServer(
      combo.map(({ setting, value }) => `${setting}=${value}`),
      label,
      async (session) => {
        const applied = await readSettings(session.redis, names);
        for (const [name, value] of Object.entries(asked)) {
          if (applied[name] !== value) input.warn?.(`sweep: asked ${name}=${value}, the server runs with ${applied[name] ?? 'unknown'}`);
        }
        return { settings: { ...asked, ...applied }, default: false, report: await input.run(session, stop.signal) };
      },
    );
    runs.push(run);
  }
  const summary = summarize(runs);
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'sweep',
    swcVersion: SWC_VERSION,
    settings: names,
    sweep: runs,
    summary,
    advice: adviseSweep(runs, summary),
    startedAt: new Date(started).toISOString(),
    elapsedSeconds: (Date.now() - started) / 1000,
  };
}
