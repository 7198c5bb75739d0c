/**
 * `swc verify --client`: each package held to the model of its algorithm
 * (src/verify/clients.ts) inside one guarded run; a difference is a finding
 * (exit 1) with its shrunk reproduction.
 */
import { randomInt } from 'node:crypto';
import { guardedRun } from '../../run/guarded-run.js';
import { clientNamed } from '../../clients/registry.js';
import type { ClientAdapter } from '../../clients/types.js';
import { ExitCode, UsageError } from '../../core/errors.js';
import { SCHEMA_VERSION } from '../../core/schema-version.js';
import { SWC_VERSION } from '../../core/version.js';
import { clientFindings, renderClientVerify } from '../../report/verify-clients.js';
import { verifyClient, type ClientVerifyResult } from '../../verify/clients.js';
import { onSecondSignal, onShutdown } from '../lifecycle.js';
import { printJson, targetFromFlags, wantsCluster } from '../options.js';
import type { VerifyFlags } from './flags.js';

/** Decisions per package when --calls is not given: real time costs seconds per window. */
const CALLS = { injected: 2_000, 'real-time': 60 } as const;
/** Clients each package's traffic spreads over. */
const CLIENTS = 4;
const DEFAULT_LIMIT = 3;
const DEFAULT_WINDOW_SECONDS = 1;

/** Runs `swc verify --client …`; returns the exit code. */
export async function verifyClientsAction(flags: VerifyFlags & { client: string[] }, callsTyped: boolean): Promise<number> {
  if (flags.layout) throw new UsageError('--client/--layout: give one of them (packages, or layouts)');
  if (flags.scripts !== undefined) throw new UsageError("--client/--scripts: a package runs its own scripts, never swc's");
  if (wantsCluster(flags)) throw new UsageError('--client/--cluster: packages run on a single server');
  const seed = flags.seed ?? randomInt(0, 2 ** 32);
  const adapters = flags.client.map((name) => clientNamed(name)).filter((a): a is ClientAdapter => a !== undefined);
  const windowMs = (flags.window ?? DEFAULT_WINDOW_SECONDS) * 1000;
  const limit = flags.limit ?? DEFAULT_LIMIT;
  process.stderr.write(`swc verify: seed ${seed} (replay with --seed ${seed})\n`);
  const usersUrl = flags.redisUrl ?? (process.env.REDIS_URL || undefined);
  const stop = new AbortController();
  onShutdown(async () => stop.abort());
  const results = await guardedRun(
    {
      command: 'swc verify',
      layouts: [],
      layoutOptions: {},
      ...(usersUrl !== undefined ? { usersUrl } : {}),
      open: () => targetFromFlags(flags),
      peakBytes: () => adapters.length * 1024 * 1024,
      say: (line) => process.stderr.write(`${line}\n`),
      onSignal: onShutdown,
      onSecondSignal,
      signal: stop.signal,
    },
    async ({ target, namespace, signal }) => {
      const session = target.shards[0]?.session;
      if (!session) throw new UsageError('--client: no server to verify on');
      const out: ClientVerifyResult[] = [];
      for (const adapter of adapters) {
        const calls = callsTyped ? flags.calls : CALLS[adapter.clock.kind];
        if (flags.progress && adapter.clock.kind === 'real-time') {
          process.stderr.write(`swc verify: ${adapter.packageName}: window timed by its key's TTL on the server: real time, ${calls} decisions\n`);
        }
        out.push(
          await verifyClient(
            adapter,
            { connect: () => session.connectAnother(), requireFrom: process.cwd(), prefix: namespace.prefix, signal },
            { calls, clients: CLIENTS, seed, windowMs, limit, shrinkMs: 30_000, shrinkReplays: adapter.clock.kind === 'injected' ? 2_000 : 40 },
          ),
        );
      }
      return out;
    },
  );
  const findings = results.reduce((n, r) => n + clientFindings(r), 0);
  if (flags.json) printJson({ schemaVersion: SCHEMA_VERSION, swcVersion: SWC_VERSION, seed, findings, results: [], clients: results });
  else process.stdout.write(renderClientVerify(results, seed));
  return findings > 0 ? ExitCode.finding : ExitCode.ok;
}
