/**
 * One place that turns what Redis (or the socket to it) said into a typed
 * error with a message of its own: a connection error, a server-state error
 * (the server is reachable but its state or configuration refuses us), or a
 * script error (our Lua failed). Every caller that talks to Redis can use it.
 */
import { CommandRefusedError, RedisUnavailableError, RefusalError, ScriptError, ServerStateError, SwcError, type ServerStateKind } from '../core/errors.js';
import { GUARD_ERROR_CODE } from '../lua/guard.js';
import { locate, PROLOGUE_FILE, type LuaScript } from '../lua/source.js';
import { READ_ONLY_ACL } from './read-only-acl.js';

/** What was being done when an error came back; every field is optional and only sharpens the message. */
export interface ErrorContext {
  /** The script being run or loaded: a Lua error names its file and line. */
  readonly script?: LuaScript;
  /** The command sent, e.g. `EVALSHA` or `SCRIPT LOAD`. */
  readonly command?: string;
  /** The keys of that command, for NOPERM and cluster messages. */
  readonly keys?: readonly string[];
  /** The ACL user swc connected as (`default` when none was given). */
  readonly user?: string;
  /** How long swc waited out a BUSY server before giving up, when it did. */
  readonly busy?: { readonly waitedMs: number; readonly attempts: number };
  /** Where the caller was, as a phrase ("in cell 2/4 …"); see {@link SwcError.at}. */
  readonly where?: string;
  /** The server as messages name it (redacted), where the caller knows it: a guard stop says where the call ended. */
  readonly server?: string;
}

const messageOf = (err: unknown): string => (typeof err === 'string' ? err : err instanceof Error ? err.message : String(err));

/** An error reply from Redis, as opposed to a socket or client failure (ioredis: ReplyError; RESP engine: a string). */
function isReply(err: unknown): boolean {
  return typeof err === 'string' || (err instanceof Error && err.name === 'ReplyError');
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const CONNECTION_TEXT =
  /Connection is closed|max retries|isn't writeable|ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|socket (?:closed|hang up)|connection (?:was )?closed|Command timed out|no reply within/i;

/** The server-state code an error reply carries, also when a script relayed it (Redis 6 wraps it as `…: -CODE …`). */
const STATE_CODE = /(?:^|: -|\s-)(BUSY|OOM|READONLY|CROSSSLOT|CLUSTERDOWN|MOVED|ASK|TRYAGAIN|NOPERM|MISCONF|LOADING|NOREPLICAS|MASTERDOWN)\b/;

const quoteKeys = (keys: readonly string[] | undefined, most = 3): string => {
  if (!keys || keys.length === 0) return 'its keys';
  const shown = keys.slice(0, most).map((k) => JSON.stringify(k));
  return keys.length > most ? `${shown.join(', ')} and ${keys.length - most} more` : shown.join(', ');
};

const commandName = (context: ErrorContext, fallback = 'the command'): string => (context.command ? context.command.toUpperCase() : fallback);

function state(kind: ServerStateKind, headline: string, detail: string, raw: string, cause: unknown): ServerStateError {
  return new ServerStateError(kind, headline, `${detail} (Redis said: ${raw.trim()})`, { cause });
}

/** A server-state error for `message`, or undefined when it is not one. */
function serverState(message: string, context: ErrorContext, cause: unknown): ServerStateError | undefined {
  // Unknown unless the caller says: never guess a name.
  const who = context.user === undefined ? 'the connected user' : `user "${context.user}"`;
  const user = context.user ?? '<user>';
  // The pattern to grant: the first key's top-level prefix (swc-bench:* for a benchmark).
  // Without keys the caller may be a reader (lights, inspect), not a bench: name both.
  const pattern = context.keys?.[0] ? `~${context.keys[0].split(':')[0]}:*` : '~swc-bench:* for a bench, %R~stoplight:* for lights and inspect';
  if (/max(?:imum)? number of clients reached/i.test(message)) {
    return state(
      'maxclients',
      'Redis refused the connection: max number of clients reached (maxclients)',
      'close idle clients or raise maxclients (a benchmark needs one per --connections, plus one of its own)',
      message,
      cause,
    );
  }
  const unknown = /unknown command [`'"]?([^`'"\s,]+)/i.exec(message);
  if (unknown?.[1]) {
    const name = unknown[1].toUpperCase();
    return state(
      'unknown-command',
      `Redis does not offer the ${name} command (renamed or disabled, e.g. by rename-command)`,
      // Name what swc needs of the command Redis lacks (INFO and MEMORY are not scripts).
      `swc needs ${name}${name === 'EVALSHA' || name === 'SCRIPT' ? " (EVALSHA and SCRIPT LOAD run the layouts' scripts)" : ''}; use a server that allows it`,
      message,
      cause,
    );
  }
  if (/can't access at least one of the keys/i.test(message)) {
    return state(
      'noperm',
      `Redis ACL denies ${who} a key a script touched (NOPERM)`,
      `grant the key pattern swc writes (e.g. ACL SETUSER ${user} ${pattern}) or connect as another user`,
      message,
      cause,
    );
  }
  const code = STATE_CODE.exec(message)?.[1];
  switch (code) {
    case undefined:
      return undefined;
    case 'BUSY': {
      const waited = context.busy
        ? `swc waited ${(context.busy.waitedMs / 1000).toFixed(1)} s and tried ${context.busy.attempts} times; it is still running`
        : 'swc did not wait';
      return state(
        'busy',
        'Redis is busy running a script from another client (BUSY)',
        `${waited}; stop it with SCRIPT KILL (or FUNCTION KILL) or try again when it is done`,
        message,
        cause,
      );
    }
    case 'OOM':
      return state(
        'oom',
        'Redis is out of memory (maxmemory reached)',
        'it refuses writes; raise maxmemory, free memory, or use a server with room',
        message,
        cause,
      );
    case 'READONLY':
      return state(
        'readonly',
        'Redis is a read-only replica (READONLY)',
        'swc writes: point --redis-url at its primary (INFO replication shows master_host and master_port)',
        message,
        cause,
      );
    case 'NOPERM': {
      const denied = /run the '([^']+)' command/i.exec(message)?.[1];
      const what = denied ? `the ${denied.toUpperCase()} command` : /keys?/i.test(message) ? `access to ${quoteKeys(context.keys)}` : commandName(context);
      const grant = denied ? `+${denied.toLowerCase()}` : pattern;
      // PING and TIME are what a read-only user most often lacks: name the whole read-only set too.
      const reader =
        denied !== undefined && /^(ping|time)$/i.test(denied)
          ? `; a read-only user for lights, inspect and doctor needs ${READ_ONLY_ACL} (docs/operator.md)`
          : '';
      return state(
        'noperm',
        `Redis ACL denies ${who} ${what} (NOPERM)`,
        `grant it (e.g. ACL SETUSER ${user} ${grant}) or connect as another user${reader}`,
        message,
        cause,
      );
    }
    case 'MISCONF':
      return state(
        'misconf',
        'Redis refuses writes after a failed RDB save (MISCONF)',
        "fix the server's disk or dir, or set stop-writes-on-bgsave-error no",
        message,
        cause,
      );
    case 'LOADING':
      return state('loading', 'Redis is still loading its dataset (LOADING)', 'try again once it has loaded', message, cause);
    case 'NOREPLICAS':
      return state(
        'noreplicas',
        'Redis refuses writes: not enough replicas are connected (NOREPLICAS, min-replicas-to-write)',
        'connect the replicas, lower min-replicas-to-write, or use another server',
        message,
        cause,
      );
    case 'MASTERDOWN':
      return state('noreplicas', 'Redis is a replica that lost its primary (MASTERDOWN)', 'point --redis-url at the primary', message, cause);
    default: {
      // CROSSSLOT, CLUSTERDOWN, MOVED, ASK, TRYAGAIN.
      const moved = /(?:MOVED|ASK) (\d+) (\S+)/.exec(message);
      const why =
        code === 'CROSSSLOT'
          ? `the keys of one ${commandName(context, 'call')} (${quoteKeys(context.keys)}) hash to different slots`
          : moved
            ? `slot ${moved[1]} (${quoteKeys(context.keys)}) is served by ${moved[2]}`
            : code === 'CLUSTERDOWN'
              ? 'the cluster is down'
              : `${quoteKeys(context.keys)} are being migrated`;
      return state(
        'cluster',
        `Redis is a cluster node (${code})`,
        `${why}; swc talks to a single node: use a standalone server (cluster mode off)`,
        message,
        cause,
      );
    }
  }
}

/** Whether `message` is a Lua compile or runtime error (as opposed to a refusal of the command). */
const isLuaError = (message: string): boolean => /user_script|f_[0-9a-f]{40}|script: [0-9a-f]{40}|Error compiling script/i.test(message);

/**
 * Turns an error from Redis or from the connection to it into a typed error
 * with a one-line message of its own:
 *
 * - a lost, refused, reset or timed-out connection: {@link RedisUnavailableError};
 * - a refusal that comes from the server's state or configuration (BUSY, OOM,
 *   READONLY, cluster redirections, NOPERM, maxclients, MISCONF, LOADING,
 *   NOREPLICAS, a renamed command): {@link ServerStateError} with its `kind`;
 * - a Lua error of `context.script`: {@link ScriptError} naming the file and line.
 *
 * An error that is already an {@link SwcError} keeps its class. Any other
 * error reply becomes a {@link CommandRefusedError} naming the command (a ScriptError
 * when a script was running). Errors that are neither (bugs) are returned as
 * they are. `context.where`, when given, is added with {@link SwcError.at}.
 */
export function classifyRedisError(err: unknown, context: ErrorContext = {}): unknown {
  const classified = classify(err, context);
  return context.where && classified instanceof SwcError && classified !== err ? classified.at(context.where) : classified;
}

/** Whether a reply is the error of a call the time guard ended (src/lua/guard.ts). */
export const isGuardStop = (reply: unknown): boolean => messageOf(reply).startsWith(`${GUARD_ERROR_CODE} `);

/** The error that stops the run when the time guard in a script swc did not write (--trust-scripts) ended a call of `file` on `server`. */
export function guardStoppedError(file: string, reply: unknown, server = 'the server', script?: LuaScript): RefusalError {
  const said = messageOf(reply)
    .replace(`${GUARD_ERROR_CODE} `, '')
    .replace(/ script: [0-9a-f]{40}[\s\S]*$/, '')
    .trim();
  // The guard names the user's line it stopped at (`(at user_script:N)`): told as the file and line it came from.
  // A stop inside one of the guard's wrappers names a few frames, nearest first: the first that is not a wrapper's is the user's.
  const line = / \(at (user_script:\d+(?: < user_script:\d+)*)\)/.exec(said);
  const why = line ? said.replace(line[0], '') : said;
  const places = line && script ? (line[1] as string).split(' < ').map((place) => locate(script, place)) : [];
  const at = places.length > 0 ? ` at ${places.find((place) => !place.startsWith(`${PROLOGUE_FILE}:`)) ?? places[0]}` : '';
  return new RefusalError(
    `stopped: ${file} ${why} on ${server}; the time guard swc puts into scripts it did not write (--trust-scripts) ended that call${at}, and swc stopped the run ` +
      "(what the call wrote before stays under the run's namespace, removed with it)",
  );
}

function classify(err: unknown, context: ErrorContext): unknown {
  if (err instanceof SwcError) return err;
  const message = messageOf(err);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (!isReply(err)) {
    if ((code && CONNECTION_CODES.has(code)) || CONNECTION_TEXT.test(message)) {
      return new RedisUnavailableError(
        `lost Redis: the connection dropped and did not come back (server stopped, restarted too slowly, or unreachable): ${message}`,
        { cause: err, lead: 'lost Redis' },
      );
    }
    // ioredis rejects with a plain Error for some server replies it relays (e.g. during connect).
    if (!/^[A-Z]+ /.test(message)) return err;
  }
  const stateError = serverState(message, context, err);
  if (stateError) return stateError;
  const script = context.script;
  if (script && isGuardStop(message)) return guardStoppedError(script.file, message, context.server, script);
  if (script && isLuaError(message)) return new ScriptError(`${script.file}: ${locate(script, message)}`, { cause: err });
  if (script) return new ScriptError(`${script.file}: ${commandName(context, 'EVALSHA')} failed: ${message}`, { cause: err });
  return new CommandRefusedError(`Redis refused ${commandName(context)}: ${message}`, { cause: err });
}
