/**
 * Removing a run's keys from a server swc did not start: within a bound, on
 * a connection of its own, saying what was removed or what was left and the
 * command that removes it.
 */
import type { Redis } from 'ioredis';
import { CleanupIncompleteError, countNamespace, purgeNamespace, type Namespace } from './namespace.js';

/** How long the clean-up after a signal may take: the signal handler exits at 8 s whatever happens. */
export const SIGNAL_CLEANUP_BOUND_MS = 4000;
/** How long the clean-up after a finished or failed run may wait out BUSY or a pause. */
export const CLEANUP_BOUND_MS = 10_000;
/** How long a stopping run may take to notice the stop before the clean-up starts anyway. */
export const STOP_WAIT_MS = 1500;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The command that removes a run's leftovers, naming host, port, database
 * and namespace, never a password (a URL with credentials gets a note instead).
 */
export function cleanHint(url: string, namespace: Namespace): string {
  const parsed = new URL(url);
  const credentials = parsed.username || parsed.password ? ' (add your user and password to the URL)' : '';
  return `swc clean --redis-url ${plainTarget(url)} --namespace ${namespace.prefix} --yes${credentials}`;
}

/** `redis://host:port/db` of a URL: where a run writes, without credentials. */
export function plainTarget(url: string): string {
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '') || '0';
  return `${parsed.protocol}//${parsed.hostname}:${parsed.port || '6379'}/${db}`;
}

/**
 * Removes the run's keys within `boundMs` on a connection of
 * its own (the run's may be stuck behind a paused write) and says through
 * `say` what was removed, or what was left and the command that removes it.
 */
export async function cleanUp(
  connectAnother: () => Promise<Redis>,
  current: Redis,
  url: string,
  namespace: Namespace,
  boundMs: number,
  node: string | undefined,
  say: (line: string) => void,
): Promise<void> {
  const on = node !== undefined ? ` on node ${node}` : '';
  const opened: Redis[] = [];
  const deadline = Date.now() + boundMs;
  const open = async (): Promise<Redis> => {
    for (;;) {
      try {
        const redis = await connectAnother();
        opened.push(redis);
        return redis;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // A long script of another client answers even PING with BUSY: wait it out, within the bound.
        if (/BUSY/.test(message) && Date.now() < deadline) {
          await sleep(100);
          continue;
        }
        // No new connection (maxclients, say): the run's own may still work.
        if (current.status === 'ready') return current;
        throw err;
      }
    }
  };
  try {
    const removed = await Promise.race([
      open().then((redis) => purgeNamespace(redis, namespace, 5, Math.max(0, deadline - Date.now()))),
      sleep(boundMs + 500).then(() => {
        throw new CleanupIncompleteError(
          null,
          `Redis did not finish the deletes within ${(boundMs + 500) / 1000} s (writes paused with CLIENT PAUSE, or a long script running)`,
        );
      }),
    ]);
    if (removed > 0) say(`swc bench: removed ${removed} key(s) of this run under ${namespace.pattern}${on}`);
  } catch (err) {
    const reason = err instanceof CleanupIncompleteError ? err.reason : err instanceof Error ? err.message : String(err);
    // SCAN is a read: it answers while writes are paused.
    const left = await Promise.race([open().then((redis) => countNamespace(redis, namespace)), sleep(1000).then(() => null)]).catch(() => null);
    if (left === 0) return;
    say(
      `swc bench: could not remove ${left === null ? 'some' : left} key(s) of this run under ${namespace.pattern}${on}: ${reason}; ` +
        `when Redis answers again, remove them with: ${cleanHint(url, namespace)}`,
    );
  } finally {
    for (const redis of opened) redis.disconnect();
  }
}
