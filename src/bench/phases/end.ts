import { aliveKey, runKey } from '../../run/namespace.js';
import type { RunContext } from './context.js';
import { deleteRouted } from './on-shards.js';

/**
 * The run's own way out, whatever happened: stops the heartbeat, deletes
 * the run's markers and stops the accuracy lane's server (it holds nothing
 * of the user's). The caller removes the namespace.
 */
export async function endRun(ctx: RunContext): Promise<void> {
  ctx.heartbeat.stop();
  // The markers go with the run; the caller's clean-up catches them if this fails.
  // Bounded: under a long CLIENT PAUSE the DEL waits, and the caller's clean-up reports what is left.
  // The lane's server stops meanwhile (it holds nothing of the user's).
  await Promise.all([
    Promise.race([
      deleteRouted(ctx.target, [runKey(ctx.namespace), aliveKey(ctx.namespace)]).catch(() => undefined),
      new Promise((r) => setTimeout(r, 2000).unref()),
    ]),
    ctx.lane?.close(),
  ]);
}
