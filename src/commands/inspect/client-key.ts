import type { ClaimedKey } from '../../clients/key-names.js';
import { ExitCode, NotFoundError } from '../../core/errors.js';
import type { ClientKeyInspection } from '../../inspect/client-key.js';
import { printError } from '../lifecycle.js';
import type { ListFlags } from '../listing.js';
import { DEFAULT_INSPECT_URL, LIGHTS_COMMAND_TIMEOUT_MS, printJson, useColor } from '../options.js';

/**
 * `swc inspect <key>` on a key of a rate-limiter package: read, printed (text
 * or --json), and the exit code: 1 when the key has no TTL or one past its
 * window (--window), or is not the package's, as inspect's other problems;
 * null when no such key exists (the text is then looked for as a light).
 */
export async function inspectClientKeyCommand(claim: ClaimedKey, flags: ListFlags & { json?: boolean; window?: number }): Promise<number | null> {
  const [
    { inspectClientKey, clientKeyDocument },
    { renderClientKeyInspection, ttlFindingLines },
    { readTargetFromFlags, withSlotRetry },
    { serverRead },
    { unavailableNotes },
    { visible },
  ] = await Promise.all([
    import('../../inspect/client-key.js'),
    import('../../report/client-keys.js'),
    import('../cluster-read.js'),
    import('../server-read.js'),
    import('../../report/listing.js'),
    import('../../report/style.js'),
  ]);
  const windowMs = flags.window !== undefined ? flags.window * 1000 : null;
  // No such key: the text may be a light's name after all (5.x names are free text); inspect looks for a light.
  const orNull = (read: Promise<ClientKeyInspection>): Promise<ClientKeyInspection | null> =>
    read.catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
  const { target, result } =
    flags.rdb !== undefined
      ? await (async () => {
          const snapshot = await (await import('../rdb-target.js')).rdbTarget(flags);
          return { target: snapshot, result: await orNull(inspectClientKey(snapshot.redis, claim, windowMs)) };
        })()
      : await withSlotRetry(
          () => readTargetFromFlags(flags, DEFAULT_INSPECT_URL, 'inspect', { commandTimeoutMs: LIGHTS_COMMAND_TIMEOUT_MS }),
          (t) => orNull(inspectClientKey(t.redis, claim, windowMs)),
        );
  if (result === null) return null;
  const where = serverRead(flags, target);
  if (flags.json) printJson(clientKeyDocument(result, { where, notMeasured: result.unavailable }));
  else process.stdout.write(renderClientKeyInspection(result, { color: useColor(), server: where, nowMs: Date.now() }));
  for (const line of unavailableNotes(result.unavailable)) printError(line);
  for (const problem of result.problems) printError(`swc: warning: ${visible(problem)}`);
  for (const line of ttlFindingLines(result)) printError(`swc: warning: ${line}`);
  return result.problems.length > 0 || result.ttlFindings.length > 0 ? ExitCode.finding : ExitCode.ok;
}
