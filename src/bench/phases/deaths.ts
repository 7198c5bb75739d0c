import { InterruptedError, RedisUnavailableError } from '../../core/errors.js';
import { eventsSoFar, type RunContext } from './context.js';

/** How long a failure waits for the process end of swc's own server that may have caused it (its socket closes first). */
const DEATH_GRACE_MS = 250;

/**
 * The error a run says when one of swc's own servers died under it, instead
 * of what the death caused (a closed socket, a refused handshake, a stop at
 * the next batch): the accuracy lane's server (see AccuracyLane) or the
 * run's private server, each named with how it ended. Any other error, or a
 * stop the caller asked for (`asked`), is returned as it is.
 */
export async function deathOf(ctx: RunContext, err: unknown, asked: boolean): Promise<unknown> {
  if (asked) return err;
  const lane = ctx.lane?.failure;
  if (lane && err instanceof InterruptedError) return lane.error;
  const exited = ctx.session.server?.exited;
  if (!exited || !ctx.target.private) return err;
  const ended = await Promise.race([exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), DEATH_GRACE_MS).unref())]);
  if (!ended) return err;
  const how = ended.signal !== null ? `killed by ${ended.signal}` : `exit code ${ended.code ?? '?'}`;
  const port = ctx.session.server?.port ?? '?';
  return new RedisUnavailableError(`swc's private server (127.0.0.1:${port}) stopped (${how}) during the run, ${eventsSoFar(ctx)}`, { cause: err });
}
