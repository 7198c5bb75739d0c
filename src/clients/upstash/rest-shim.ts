import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';

/**
 * A stand-in for the Upstash REST API on 127.0.0.1, so that `@upstash/redis`
 * (which speaks HTTP, not RESP) can drive a run's Redis connection.
 *
 * It answers only what `@upstash/ratelimit`'s slidingWindow limiter sends
 * through `@upstash/redis`:
 *
 * - `POST /` with one command as a JSON array, and `POST /pipeline` with an
 *   array of them (the client's automatic pipelining batches concurrent calls);
 * - the commands EVALSHA, EVAL and SCRIPT LOAD; a script must name at least one
 *   key, and every key it names must lie under the run's prefix;
 * - `Authorization: Bearer <token>` with the random token made here;
 * - `Upstash-Encoding: base64` (strings in replies base64-encoded), or plain JSON.
 *
 * Anything else (another path, another command, a key outside the prefix, a
 * missing token) gets an error reply that says what is answered. Each command
 * goes to the run's connection as sent; scripts pass unchanged. When the
 * server refuses a script as sent (Redis refuses the `#!lua flags=` shebang
 * flag `allow-key-locking`, an execution hint only Upstash's server knows), the
 * refusal is recorded, with the server's name and version, and the same Lua
 * without its first (shebang) line is run in its place, then and for every
 * later EVALSHA of that script.
 */

/** The commands answered; every other one is refused. */
export const ANSWERED_COMMANDS = ['EVALSHA', 'EVAL', 'SCRIPT LOAD'] as const;
/** The paths answered (POST only). */
export const ANSWERED_PATHS = ['/', '/pipeline'] as const;

/** The largest request body read (the package's scripts are about 2 KB). */
const MAX_BODY_BYTES = 1 << 20;

/** A script the server refused as sent. */
export interface ScriptRefusal {
  /** SHA1 of the script as the package sent it. */
  readonly sha: string;
  /** Its first line (the shebang the server refused). */
  readonly firstLine: string;
  /** The server's reply. */
  readonly serverError: string;
  /** e.g. `redis 7.0.15`. */
  readonly server: string;
  /** SHA1 of the script run in its place (the same Lua without its first line). */
  readonly runAsSha: string;
}

export interface RestShimOptions {
  /** The run's connection: every answered command goes to it. */
  readonly redis: Redis;
  /** Every key an answered command names must start with `<keyPrefix>:`. */
  readonly keyPrefix: string;
  /** The server, as named in a refusal (`redis 7.0.15`). */
  readonly server: string;
}

export interface RestShim {
  /** `http://127.0.0.1:<port>`: the `url` option of `@upstash/redis`. */
  readonly url: string;
  /** The random token the shim requires (the `token` option of `@upstash/redis`). */
  readonly token: string;
  /** Scripts the server refused as sent, each once. */
  readonly refusals: readonly ScriptRefusal[];
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** A reply the shim makes itself (not the server's), with the HTTP status a single call gets. */
class ShimRefusal extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/** A reply in Upstash's encoding: strings base64 when asked, numbers and null as they are, arrays element-wise. */
function encodeReply(value: unknown, base64: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => encodeReply(v, base64));
  if (typeof value === 'string') return base64 ? Buffer.from(value, 'utf8').toString('base64') : value;
  if (Buffer.isBuffer(value)) return base64 ? value.toString('base64') : value.toString('utf8');
  if (value instanceof Error) return value.message;
  return value ?? null;
}

/** The shebang line of a script, or null. */
function shebangOf(script: string): string | null {
  if (!script.startsWith('#!')) return null;
  const end = script.indexOf('\n');
  return end < 0 ? script : script.slice(0, end);
}

/** Whether a server error refuses a script's shebang (Redis 7 names the flag; older servers fail to compile the `#` line). */
function refusesShebang(message: string): boolean {
  return /shebang|near '#'/i.test(message);
}

/** Starts the shim on an ephemeral port of 127.0.0.1. */
export async function startRestShim(options: RestShimOptions): Promise<RestShim> {
  const { redis, keyPrefix, server } = options;
  const token = randomBytes(24).toString('hex');
  const expectedAuth = Buffer.from(`Bearer ${token}`);
  const refusals: ScriptRefusal[] = [];
  /** Package script SHA → the SHA of the script run in its place. */
  const replaced = new Map<string, { sha: string; script: string }>();

  const argument = (value: unknown, index: number): string => {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new ShimRefusal(`argument ${index} is ${value === null ? 'null' : typeof value}: swc's Upstash stand-in takes strings and numbers`);
  };

  const checkKeys = (args: readonly string[], numKeysAt: number): void => {
    const numKeys = Number(args[numKeysAt]);
    if (!Number.isInteger(numKeys) || numKeys < 0 || numKeysAt + numKeys >= args.length) {
      throw new ShimRefusal(`${args[0]} with a bad key count (${args[numKeysAt]})`);
    }
    // A script that names no key could touch any: the package's scripts always name theirs.
    if (numKeys === 0) throw new ShimRefusal(`${args[0]} naming no key: swc's Upstash stand-in runs only scripts whose keys lie under "${keyPrefix}:"`);
    for (const key of args.slice(numKeysAt + 1, numKeysAt + 1 + numKeys)) {
      if (!key.startsWith(`${keyPrefix}:`))
        throw new ShimRefusal(`key "${key}" is outside the run's prefix "${keyPrefix}:": swc's Upstash stand-in does not send it`);
    }
  };

  /** The script run in place of one the server refused (its Lua without the shebang line), recorded once. */
  const replacement = (packageSha: string, script: string, serverError: string): { sha: string; script: string } => {
    let entry = replaced.get(packageSha);
    if (entry === undefined) {
      const firstLine = shebangOf(script) ?? '';
      const body = script.slice(firstLine.length + 1);
      entry = { sha: sha1(body), script: body };
      replaced.set(packageSha, entry);
      refusals.push({ sha: packageSha, firstLine, serverError, server, runAsSha: entry.sha });
    }
    return entry;
  };

  const run = async (command: unknown): Promise<unknown> => {
    if (!Array.isArray(command) || command.length === 0) throw new ShimRefusal('a command is a non-empty JSON array');
    const args = command.map(argument);
    const name = (args[0] ?? '').toUpperCase();
    if (name === 'EVALSHA' || name === 'EVAL') {
      if (args.length < 3) throw new ShimRefusal(`${name} needs a script and a key count`);
      checkKeys(args, 2);
      const target = args[1] ?? '';
      const rest = args.slice(2);
      if (name === 'EVALSHA') {
        const entry = replaced.get(target.toLowerCase());
        if (entry === undefined) return redis.call('EVALSHA', target, ...rest);
        // The script runs in its stripped form: its own SHA, reloaded if the server's script cache was flushed.
        try {
          return await redis.call('EVALSHA', entry.sha, ...rest);
        } catch (err) {
          if (!/NOSCRIPT/.test(String(err))) throw err;
          return redis.call('EVAL', entry.script, ...rest);
        }
      }
      const packageSha = sha1(target);
      const known = replaced.get(packageSha);
      if (known !== undefined) return redis.call('EVAL', known.script, ...rest);
      try {
        return await redis.call('EVAL', target, ...rest);
      } catch (err) {
        const message = errorText(err);
        if (shebangOf(target) === null || !refusesShebang(message)) throw err;
        return redis.call('EVAL', replacement(packageSha, target, message).script, ...rest);
      }
    }
    if (name === 'SCRIPT' && (args[1] ?? '').toUpperCase() === 'LOAD' && args.length === 3) {
      const script = args[2] ?? '';
      const packageSha = sha1(script);
      try {
        return await redis.call('SCRIPT', 'LOAD', script);
      } catch (err) {
        const message = errorText(err);
        if (shebangOf(script) === null || !refusesShebang(message)) throw err;
        await redis.call('SCRIPT', 'LOAD', replacement(packageSha, script, message).script);
        // The package expects its own SHA back; EVALSHA of it is answered with the stripped script.
        return packageSha;
      }
    }
    const shown = name === 'SCRIPT' ? `SCRIPT ${(args[1] ?? '').toUpperCase()}` : name;
    throw new ShimRefusal(`swc's Upstash stand-in answers only ${ANSWERED_COMMANDS.join(', ')} (what @upstash/ratelimit's slidingWindow sends); not ${shown}`);
  };

  const answer = async (req: IncomingMessage): Promise<{ status: number; body: unknown }> => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const auth = Buffer.from(req.headers.authorization ?? '');
    if (auth.length !== expectedAuth.length || !timingSafeEqual(auth, expectedAuth))
      throw new ShimRefusal('Unauthorized: swc\'s Upstash stand-in needs "Authorization: Bearer <its token>"', 401);
    if (req.method !== 'POST') throw new ShimRefusal(`swc's Upstash stand-in answers POST only, not ${req.method ?? '?'}`, 405);
    if (!(ANSWERED_PATHS as readonly string[]).includes(path)) {
      throw new ShimRefusal(`swc's Upstash stand-in answers POST ${ANSWERED_PATHS.join(' and ')} only, not ${path}`, 404);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw new ShimRefusal(`request body over ${MAX_BODY_BYTES} bytes`, 413);
      chunks.push(chunk);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new ShimRefusal('the request body is not JSON');
    }
    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    if (path === '/') {
      try {
        return { status: 200, body: { result: encodeReply(await run(parsed), base64) } };
      } catch (err) {
        if (err instanceof ShimRefusal) throw err;
        return { status: 400, body: { error: errorText(err) } };
      }
    }
    if (!Array.isArray(parsed) || parsed.length === 0) throw new ShimRefusal('a pipeline is a non-empty JSON array of commands');
    // In order, one after another, as the REST API runs a pipeline (not atomic, each with its own reply).
    const replies: unknown[] = [];
    for (const command of parsed) {
      try {
        replies.push({ result: encodeReply(await run(command), base64) });
      } catch (err) {
        replies.push({ error: errorText(err) });
      }
    }
    return { status: 200, body: replies };
  };

  const respond = (res: ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const http = createServer((req, res) => {
    answer(req).then(
      ({ status, body }) => respond(res, status, body),
      (err: unknown) => {
        respond(res, err instanceof ShimRefusal ? err.status : 500, { error: errorText(err) });
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    refusals,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
