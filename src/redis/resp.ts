import net from 'node:net';
import tls from 'node:tls';
import type { RedisOptions } from 'ioredis';
import RedisParser from 'redis-parser';
import { CommandRefusedError, RedisUnavailableError, SwcError } from '../core/errors.js';
import type { LuaScript, ScriptCall } from '../lua/source.js';
import { classifyRedisError } from './errors.js';
import { isWatched, MAX_SCRIPT_REPLY_BYTES, RUNAWAY_FIRST_CHECK_MS, stopIfRunaway, type RedisCommand, type ScriptChannel } from './scripts.js';
import { respTargetOf } from './confined-targets.js';
import { capOf, type CommandCap } from './command-cap.js';
import { wireScript } from './call-limits.js';

/**
 * A minimal RESP2 client for the load engine. ioredis spends more client CPU
 * per call than Redis spends running a small script (a Command, a promise and
 * a timer per call, a parsed reply object per reply), so a load run through it
 * measures the client. Here a batch is one Buffer written once, replies are
 * counted rather than built, and a batch costs one promise.
 */

/** Per call of a batch, the error message it got, or null; null as a whole when no call failed. */
export type BatchErrors = (string | null)[] | null;

const CR = 13;
const LF = 10;

/** What the parser is in the middle of. */
const enum Step {
  /** The type byte of a reply. */
  Type,
  /** The number after `$` or `*`, up to CRLF. */
  Length,
  /** A simple string or integer line, skipped up to LF. */
  Line,
  /** An error line, kept up to LF. */
  Error,
  /** The body and CRLF of a bulk string. */
  Bulk,
}

/**
 * Counts complete top-level replies in a RESP2 byte stream that arrives in
 * arbitrary pieces, and keeps the message of each top-level error. Nothing is
 * allocated for a successful reply, however deep.
 */
export class ReplyParser {
  private step = Step.Type;
  /** The header being read: `$` or `*`. */
  private kind = 0;
  private length = 0;
  private negative = false;
  /** Bytes of a bulk string (and its CRLF) still to skip. */
  private skip = 0;
  /** Elements still expected by each open array, innermost last. */
  private readonly open: number[] = [];
  private errorParts: Buffer[] = [];

  /**
   * @param onReply called once per top-level reply, with its error message
   *   when it is an error reply
   */
  constructor(
    private readonly onReply: (error: string | null) => void,
    /** The most bytes one top-level reply may take; past it, {@link feed} throws a {@link ReplyTooLargeError}. */
    private readonly maxReplyBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** Bytes of the top-level reply being read so far. */
  private replyBytes = 0;
  /** Set by {@link complete} when a top-level reply ends. */
  private ended = false;

  /** Feeds `bytes[0..end)`; throws on bytes that are not RESP2, or on a reply over the bound. */
  feed(bytes: Buffer, end = bytes.length): void {
    let i = 0;
    while (i < end) {
      const at = i;
      switch (this.step) {
        case Step.Type: {
          const type = bytes[i++] as number;
          if (type === 0x24 /* $ */ || type === 0x2a /* * */) {
            this.kind = type;
            this.length = 0;
            this.negative = false;
            this.step = Step.Length;
          } else if (type === 0x2b /* + */ || type === 0x3a /* : */) {
            this.step = Step.Line;
          } else if (type === 0x2d /* - */) {
            this.step = Step.Error;
          } else {
            throw new Error(`not a RESP2 reply: unexpected byte 0x${type.toString(16)}`);
          }
          break;
        }
        case Step.Length: {
          const byte = bytes[i++] as number;
          if (byte >= 0x30 && byte <= 0x39) this.length = this.length * 10 + (byte - 0x30);
          else if (byte === 0x2d) this.negative = true;
          else if (byte === LF) this.header();
          else if (byte !== CR) throw new Error(`not a RESP2 reply: unexpected byte 0x${byte.toString(16)} in a length`);
          break;
        }
        case Step.Line: {
          const lf = bytes.indexOf(LF, i);
          if (lf === -1 || lf >= end) {
            i = end;
          } else {
            i = lf + 1;
            this.step = Step.Type;
            this.complete(null);
          }
          break;
        }
        case Step.Error: {
          const lf = bytes.indexOf(LF, i);
          if (lf === -1 || lf >= end) {
            // The buffer is reused for the next read: keep a copy.
            this.errorParts.push(Buffer.from(bytes.subarray(i, end)));
            i = end;
          } else {
            this.errorParts.push(bytes.subarray(i, lf));
            i = lf + 1;
            const message = Buffer.concat(this.errorParts).toString('utf8').replace(/\r$/, '');
            this.errorParts = [];
            this.step = Step.Type;
            this.complete(message);
          }
          break;
        }
        case Step.Bulk: {
          const take = Math.min(this.skip, end - i);
          i += take;
          this.skip -= take;
          if (this.skip === 0) {
            this.step = Step.Type;
            this.complete(null);
          }
          break;
        }
      }
      if (this.ended) {
        this.ended = false;
        this.replyBytes = 0;
      } else if ((this.replyBytes += i - at) > this.maxReplyBytes) {
        throw new ReplyTooLargeError(this.replyBytes);
      }
    }
  }

  /** A `$n` or `*n` header is complete. */
  private header(): void {
    const n = this.negative ? -this.length : this.length;
    if (this.kind === 0x24 && n >= 0) {
      this.skip = n + 2;
      this.step = Step.Bulk;
      return;
    }
    this.step = Step.Type;
    if (this.kind === 0x2a && n > 0) this.open.push(n);
    else this.complete(null); // a nil bulk, a nil array or an empty array
  }

  /** One value is complete: close the arrays it completes, and report a finished top-level reply. */
  private complete(error: string | null): void {
    const open = this.open;
    // Errors inside an array are data, not a failed call.
    if (open.length > 0) {
      while (open.length > 0) {
        const last = open.length - 1;
        const left = (open[last] as number) - 1;
        if (left > 0) {
          open[last] = left;
          return;
        }
        open.pop();
      }
      this.ended = true;
      this.onReply(null);
      return;
    }
    this.ended = true;
    this.onReply(error);
  }
}

/** A reply past the parser's bound: the connection stops reading it (see {@link MAX_SCRIPT_REPLY_BYTES}). */
export class ReplyTooLargeError extends Error {
  constructor(
    /** Bytes read of it when the parser stopped. */
    readonly bytes: number,
    /** Its place in the batch it answers, when known. */
    readonly index?: number,
  ) {
    super(`a reply of more than ${MAX_SCRIPT_REPLY_BYTES.toLocaleString('en-US')} bytes (${bytes.toLocaleString('en-US')} read before swc stopped reading it)`);
  }
}

/** The encoded start of a call, up to its first argument: header, EVALSHA, sha, key count and keys. */
interface CallHead {
  readonly keys: readonly string[];
  readonly argc: number;
  readonly bytes: Buffer;
}

/**
 * Encodes script calls as RESP EVALSHA commands into one reusable buffer.
 * Cheap per call, since a fill writes hundreds of thousands: the part of a
 * call that repeats from one call of a script to the next (header, sha, key
 * count, keys) is encoded once and copied; ASCII strings and whole numbers
 * are written byte by byte instead of through a native call each.
 */
export class RequestWriter {
  private buffer = Buffer.allocUnsafe(16 * 1024);
  private length = 0;
  private view = this.buffer.subarray(0, 0);
  /** Where the last call encoded sits, so a call sent again is copied, not encoded again. */
  private lastCall: ScriptCall | undefined;
  private lastStart = 0;
  private lastEnd = 0;
  /** Per script, the head of the last call encoded with it. */
  private readonly heads = new Map<LuaScript, CallHead>();

  /** @param server where the calls go (a channel's `server`): each script is called there as {@link wireScript} says */
  constructor(private readonly server?: string) {}

  /** Starts a new request. */
  reset(): void {
    this.length = 0;
  }

  /** The request so far; valid until the next reset. */
  bytes(): Buffer {
    // Batches of one size repeat in a load run: reuse the view rather than make one per batch.
    if (this.view.buffer !== this.buffer.buffer || this.view.length !== this.length) this.view = this.buffer.subarray(0, this.length);
    return this.view;
  }

  add(call: ScriptCall): void {
    const start = this.length;
    if (call === this.lastCall) {
      const size = this.lastEnd - this.lastStart;
      this.reserve(size);
      this.buffer.copyWithin(start, this.lastStart, this.lastEnd);
      this.length += size;
    } else {
      const { args } = call;
      const head = this.headOf(call);
      let room = head.bytes.length;
      for (const arg of args) room += typeof arg === 'string' ? 16 + 3 * arg.length : 40;
      this.reserve(room);
      head.bytes.copy(this.buffer, this.length);
      this.length += head.bytes.length;
      for (const arg of args) {
        if (typeof arg === 'string') this.text(arg);
        else if (Number.isSafeInteger(arg) && arg >= 0) this.integer(arg);
        else this.text(String(arg));
      }
      this.lastCall = call;
    }
    this.lastStart = start;
    this.lastEnd = this.length;
  }

  /** The encoded head of `call`, from the cache when the script's last call had the same keys and argument count. */
  private headOf(call: ScriptCall): CallHead {
    const { script, keys, args } = call;
    const cached = this.heads.get(script);
    if (cached !== undefined && cached.argc === args.length && sameKeys(cached.keys, keys)) return cached;
    const writer = new RequestWriter();
    writer.command(['EVALSHA', wireScript(script, this.server).sha1, String(keys.length), ...keys], 3 + keys.length + args.length);
    const head = { keys, argc: args.length, bytes: Buffer.from(writer.bytes()) };
    this.heads.set(script, head);
    return head;
  }

  /**
   * Adds any command (the rare path: script loads, the handshake); with
   * `count`, only the array header says how many parts follow (a call's head).
   */
  command(parts: RedisCommand, count = parts.length): void {
    let room = 16;
    for (const part of parts) room += 16 + 3 * part.length;
    this.reserve(room);
    this.header(0x2a, count);
    for (const part of parts) this.text(part);
    this.lastCall = undefined;
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  /** Writes the digits of a whole number >= 0 at the end. */
  private digits(n: number): void {
    const buffer = this.buffer;
    if (n < 10) {
      buffer[this.length++] = 0x30 + n;
      return;
    }
    let width = 1;
    for (let m = n; m >= 10; m = Math.floor(m / 10)) width += 1;
    let at = this.length + width;
    this.length = at;
    for (let m = n; at > this.length - width; m = Math.floor(m / 10)) buffer[--at] = 0x30 + (m % 10);
  }

  private header(type: number, n: number): void {
    this.buffer[this.length++] = type;
    this.digits(n);
    this.buffer[this.length] = CR;
    this.buffer[this.length + 1] = LF;
    this.length += 2;
  }

  /** A whole number >= 0 as a bulk string. */
  private integer(n: number): void {
    const buffer = this.buffer;
    const start = this.length;
    // Room for `$dd\r\n` first, then the digits; the length goes in once known.
    this.length = start + 5;
    this.digits(n);
    const width = this.length - start - 5;
    if (width >= 10) {
      this.length = start;
      this.text(String(n));
      return;
    }
    buffer[start] = 0x24;
    buffer[start + 1] = 0x30 + width;
    buffer[start + 2] = CR;
    buffer[start + 3] = LF;
    buffer.copyWithin(start + 4, start + 5, this.length);
    this.length -= 1;
    buffer[this.length] = CR;
    buffer[this.length + 1] = LF;
    this.length += 2;
  }

  private text(value: string): void {
    const start = this.length;
    const n = value.length;
    this.header(0x24, n);
    const buffer = this.buffer;
    let at = this.length;
    // Short ASCII strings byte by byte: a native write costs more than the copy.
    if (n <= 256) {
      let i = 0;
      for (; i < n; i += 1) {
        const c = value.charCodeAt(i);
        if (c > 0x7f) break;
        buffer[at++] = c;
      }
      if (i === n) {
        buffer[at] = CR;
        buffer[at + 1] = LF;
        this.length = at + 2;
        return;
      }
    }
    // Not ASCII (or long): its byte length decides the header.
    this.length = start;
    this.header(0x24, Buffer.byteLength(value));
    this.length += buffer.write(value, this.length);
    buffer[this.length] = CR;
    buffer[this.length + 1] = LF;
    this.length += 2;
  }
}

/** Whether two key lists are the same keys in the same order. */
function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/** An error reply, decoded ({@link decodeReplies}); named as ioredis names its own. */
export class RespReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplyError';
  }
}

/** A decoded reply with each error in it (redis-parser's ReplyError) as a {@link RespReplyError}. */
function withReplyErrors(reply: unknown): unknown {
  if (reply instanceof Error) return new RespReplyError(reply.message);
  return Array.isArray(reply) ? reply.map(withReplyErrors) : reply;
}

/**
 * Decodes `count` complete RESP2 replies from `bytes` into values: strings,
 * numbers, null, arrays, and a {@link RespReplyError} per error reply (also
 * inside arrays, as in an EXEC reply), by redis-parser (ioredis' parser).
 * For the rare path only; a load batch is counted by {@link ReplyParser}
 * instead.
 */
export function decodeReplies(bytes: Buffer, count: number): unknown[] {
  const replies: unknown[] = [];
  let fatal: Error | undefined;
  const parser = new RedisParser({
    returnReply: (reply) => replies.push(withReplyErrors(reply)),
    returnError: (error) => replies.push(new RespReplyError(error.message)),
    returnFatalError: (error) => (fatal ??= error),
  });
  parser.execute(bytes);
  if (fatal) throw new Error(`not a RESP2 reply: ${fatal.message}`);
  if (replies.length < count) throw new Error(`not a RESP2 reply: ${replies.length} complete replies of ${count}`);
  return replies.slice(0, count);
}

/** Where to connect, as ioredis resolved it from a URL (`redis.options`). */
export type RespTarget = Pick<RedisOptions, 'host' | 'port' | 'path' | 'username' | 'password' | 'db' | 'tls'>;

/** Options of {@link RespConnection.open}. */
export interface RespConnectionOptions {
  /** Give up connecting (and authenticating) after this long; default 4000 ms. */
  readonly connectTimeoutMs?: number;
  /**
   * Fail a batch that gets no reply for this long, so a hung server ends a
   * run; default 10 000 ms. One interval timer per connection watches this,
   * instead of a timer per call.
   */
  readonly replyTimeoutMs?: number;
}

/**
 * Why a server that accepts TCP connections drops them at once, if it says:
 * a server at maxclients (or still loading, …) writes an error line as soon
 * as it accepts, before any command. Connects, sends nothing, listens for up
 * to `listenMs`, and returns that error typed ({@link classifyRedisError}),
 * or undefined when the server said nothing (or could not be reached). For
 * explaining a failed connection, never on the way to a working one.
 */
export async function probeRefusal(target: RespTarget, listenMs = 300): Promise<SwcError | undefined> {
  const line = await new Promise<string>((resolve) => {
    const address = target.path ? { path: target.path } : { host: target.host ?? '127.0.0.1', port: target.port ?? 6379 };
    const socket = target.tls ? tls.connect({ ...target.tls, ...address }) : net.connect(address);
    let text = '';
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(done, listenMs);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('\n')) done();
    });
    socket.on('error', done);
    socket.on('close', done);
  });
  if (!line.startsWith('-')) return undefined;
  const classified = classifyRedisError(line.slice(1).split('\r\n')[0] as string);
  return classified instanceof SwcError ? classified : undefined;
}

/** Redis' answer to AUTH when the user has no password: the connection works as it is. */
const NO_PASSWORD_SET = /^ERR AUTH <password> called without any password configured/;

/** The encoded `[AUTH …] [SELECT db]` commands for a target, and how many there are. */
function handshake(target: RespTarget): { bytes: Buffer; count: number } {
  const commands: string[][] = [];
  if (target.password) commands.push(target.username ? ['AUTH', target.username, target.password] : ['AUTH', target.password]);
  if (target.db) commands.push(['SELECT', String(target.db)]);
  const text = commands.map((parts) => `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`).join('');
  return { bytes: Buffer.from(text), count: commands.length };
}

/** A batch sent and not yet answered in full. */
interface PendingBatch {
  readonly expected: number;
  received: number;
  errors: BatchErrors;
  readonly resolve: (errors: BatchErrors) => void;
  readonly reject: (err: Error) => void;
}

/**
 * One connection that sends batches of calls and resolves each once all its
 * replies are in. A closed-loop load keeps one batch in flight; a writer that
 * only needs the server kept busy (the memory fill) may queue the next batch
 * before the last one answered: replies come back in order, so each batch
 * gets its own. A closed socket, a protocol error or a batch past its reply
 * timeout fails every pending batch with a RedisUnavailableError and closes
 * the connection.
 */
export class RespConnection {
  private readonly parser: ReplyParser;
  /** Batches in flight, oldest first: replies go to the head. */
  private readonly pending: PendingBatch[] = [];
  /** Index of the head in `pending` (shifting an array per batch would copy it). */
  private head = 0;
  private failure: Error | undefined;
  /** Batches answered so far: the watchdog fails a connection whose count stands still over two ticks while a batch waits. */
  private answered = 0;
  private readonly watchdog: NodeJS.Timeout;
  /** The bytes read while a {@link call} is in flight, to decode its replies. */
  private capture: Buffer[] | undefined;
  /** This connection as the script runner uses it (script loads, NOSCRIPT re-runs). */
  readonly channel: ScriptChannel;

  private constructor(
    private readonly socket: net.Socket,
    private readonly where: string,
    replyTimeoutMs: number,
    target: RespTarget,
    /**
     * The cap (`--max-ops`) of the ioredis client this connection was opened
     * from: {@link call} waits its turn; a caller of {@link send} or
     * {@link exchange} takes its turn first (it knows which scripts it sends).
     */
    readonly cap: CommandCap | undefined,
  ) {
    this.channel = {
      server: target.path ?? `${target.host ?? '127.0.0.1'}:${target.port ?? 6379}`,
      user: target.username || 'default',
      send: (commands) => this.call(commands),
    };
    // A script's reply over the runner's bound stops the connection instead of filling this process (and the server's output buffer).
    this.parser = new ReplyParser((error) => this.reply(error), MAX_SCRIPT_REPLY_BYTES);
    // TLS sockets cannot read into a buffer of ours (see open); they emit data.
    if (socket instanceof tls.TLSSocket) socket.on('data', (chunk: Buffer) => this.read(chunk, chunk.length));
    socket.on('error', (err) => this.aborted || this.fail(new RedisUnavailableError(`${where}: ${err.message}`, { cause: err })));
    socket.on('close', () => this.aborted || this.fail(new RedisUnavailableError(`${where}: the connection was closed`)));
    // Ticks at half the timeout: a batch still pending at two ticks in a row,
    // with no batch answered in between, has waited between one and one and
    // a half timeouts.
    let seen = -1;
    this.watchdog = setInterval(() => {
      if (this.head === this.pending.length) {
        seen = -1;
      } else if (seen === this.answered) {
        this.fail(new RedisUnavailableError(`${where}: no reply within ${replyTimeoutMs} ms`));
      } else {
        seen = this.answered;
      }
    }, replyTimeoutMs / 2);
    this.watchdog.unref();
    if (isWatched(this.channel.server)) this.runaways = this.watchRunaways();
  }

  /** Closed by {@link watchRunaways} before SCRIPT KILL: the close is not the failure, the runaway is. */
  private aborted = false;
  private readonly runaways: NodeJS.Timeout | undefined;

  /**
   * Scripts swc did not write run on this server: a batch unanswered for
   * a second while the server answers BUSY elsewhere is stopped (see
   * {@link stopIfRunaway}) and fails this connection with what happened.
   */
  private watchRunaways(): NodeJS.Timeout {
    let seen = -1;
    let since = 0;
    let asking = false;
    const timer = setInterval(() => {
      if (this.failure) return clearInterval(timer);
      if (this.head === this.pending.length) {
        seen = -1;
        return;
      }
      if (seen !== this.answered) {
        seen = this.answered;
        since = Date.now();
        return;
      }
      if (asking) return;
      asking = true;
      const abort = (): void => {
        this.aborted = true;
        this.socket.destroy();
      };
      void stopIfRunaway(this.channel.server, since - RUNAWAY_FIRST_CHECK_MS, abort).then(
        (stopped) => {
          asking = false;
          if (stopped) this.fail(stopped);
        },
        () => {
          asking = false;
        },
      );
    }, RUNAWAY_FIRST_CHECK_MS);
    timer.unref();
    return timer;
  }

  /** Batches sent and not yet answered in full. */
  get inFlight(): number {
    return this.pending.length - this.head;
  }

  /**
   * Stops (false) or restarts (true) reading replies. While stopped, the
   * server's replies wait in the socket and nothing wakes this process: on a
   * busy machine each wake-up can take the CPU from the server mid-batch.
   */
  reading(on: boolean): void {
    if (this.failure) return;
    if (on) this.socket.resume();
    else this.socket.pause();
  }

  /** Feeds bytes read to the parser; bytes that are not RESP end the connection. */
  private read(bytes: Buffer, length: number): void {
    // The read buffer is reused: keep a copy of what a decoded call needs.
    if (this.capture) this.capture.push(Buffer.from(bytes.subarray(0, length)));
    try {
      this.parser.feed(bytes, length);
    } catch (err) {
      if (err instanceof ReplyTooLargeError) this.fail(new ReplyTooLargeError(err.bytes, this.pending[this.head]?.received));
      else this.fail(new RedisUnavailableError(`${this.where}: ${(err as Error).message}`));
    }
  }

  /** Connects to `target`, authenticates and selects its database. */
  static async open(given: RespTarget, options: RespConnectionOptions = {}): Promise<RespConnection> {
    // A confined run's sockets authenticate as its temporary ACL user (src/safety/acl.ts).
    const target = respTargetOf(given);
    const connectTimeoutMs = options.connectTimeoutMs ?? 4000;
    const where = `Redis at ${target.path ?? `${target.host ?? '127.0.0.1'}:${target.port ?? 6379}`}`;
    // Set once the connection exists; reads before that cannot happen.
    let connection: RespConnection | undefined;
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const address = target.path ? { path: target.path } : { host: target.host ?? '127.0.0.1', port: target.port ?? 6379 };
      const ready = target.tls ? 'secureConnect' : 'connect';
      // Reading into one buffer of our own skips the stream machinery behind
      // 'data' events: about a third of the client's CPU per round trip at
      // pipeline 1 (12.5 -> 9 µs measured). Only plain sockets take `onread`.
      const buffer = Buffer.allocUnsafe(64 * 1024);
      const onread = {
        buffer,
        callback: (length: number): boolean => {
          connection?.read(buffer, length);
          return true; // keep reading
        },
      };
      const s = target.tls ? tls.connect({ ...target.tls, ...address }) : net.connect({ ...address, onread });
      const timer = setTimeout(() => s.destroy(new Error(`no connection within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      s.once(ready, () => {
        clearTimeout(timer);
        s.removeListener('error', onError);
        resolve(s);
      });
      const onError = (err: Error): void => {
        clearTimeout(timer);
        reject(new RedisUnavailableError(`cannot open a load connection to ${where}: ${err.message}`, { cause: err }));
      };
      s.once('error', onError);
    });
    // Small requests must leave at once, not wait for Nagle.
    socket.setNoDelay(true);
    connection = new RespConnection(socket, where, options.replyTimeoutMs ?? 10_000, target, capOf(given));
    const opening = `while opening a load connection to ${where}`;
    try {
      // A server at maxclients answers its first command with an error and
      // closes: a PING of its own gets that error before anything else is sent.
      const [pong] = await connection.call([['PING']]);
      // Before AUTH, a server with a password refuses PING; that is expected.
      if (pong instanceof Error && !/^NOAUTH/.test(pong.message)) throw pong;
      const { bytes, count } = handshake(target);
      if (count > 0) await connection.cap?.take(count);
      // A password for a server that has none is not fatal: ioredis goes on (with a warning the session already gave), and so does this.
      const refused = count > 0 ? (await connection.send(bytes, count))?.find((e) => e !== null && !NO_PASSWORD_SET.test(e)) : undefined;
      if (refused) throw new RespReplyError(refused);
    } catch (err) {
      connection.close();
      // A reset can beat the refusal's text to us: ask again, only listening.
      const refusal = err instanceof RedisUnavailableError ? await probeRefusal(target) : undefined;
      const classified = refusal ?? classifyRedisError(err, { command: 'the handshake', user: target.username || 'default' });
      // Not a server state: a refused AUTH or SELECT means this connection cannot be used.
      if (classified instanceof SwcError && !(classified instanceof CommandRefusedError)) throw classified.at(opening);
      throw new RedisUnavailableError(`cannot open a load connection to ${where}: ${(err as Error).message}`, { cause: err });
    }
    return connection;
  }

  /**
   * Writes `request` (`count` commands) and resolves once its `count`
   * replies are in; batches sent before it are answered first. The caller
   * may reuse `request` once this resolves: every byte of it has then
   * reached the server.
   */
  send(request: Buffer, count: number): Promise<BatchErrors> {
    if (this.failure) return Promise.reject(this.failure);
    const pending = new Promise<BatchErrors>((resolve, reject) => {
      this.pending.push({ expected: count, received: 0, errors: null, resolve, reject });
    });
    this.socket.write(request);
    return pending;
  }

  /**
   * Sends commands and resolves with their decoded replies (errors as
   * {@link RespReplyError}); slower than {@link send}, for the rare path.
   */
  async call(commands: readonly RedisCommand[]): Promise<unknown[]> {
    const cap = this.cap;
    if (cap) await cap.take(commands.reduce((sum, [name, ...args]) => sum + cap.commandWeight(String(name), args), 0));
    // Its replies are read from the bytes captured while it is in flight: nothing else may be.
    if (this.inFlight > 0 && !this.failure) throw new Error('RespConnection: call() while batches are in flight');
    const writer = new RequestWriter();
    for (const command of commands) writer.command(command);
    return this.exchange(writer.bytes(), commands.length);
  }

  /**
   * Writes an encoded `request` (`count` commands, e.g. from a
   * {@link RequestWriter}) and resolves with their decoded replies, errors
   * as {@link RespReplyError}: a pipelined batch whose replies are needed.
   */
  async exchange(request: Buffer, count: number): Promise<unknown[]> {
    const capture: Buffer[] = [];
    this.capture = capture;
    try {
      await this.send(request, count);
      return decodeReplies(Buffer.concat(capture), count);
    } finally {
      this.capture = undefined;
    }
  }

  /** Closes the connection; a batch in flight fails. */
  close(): void {
    this.fail(new RedisUnavailableError(`${this.where}: the connection was closed by swc`));
  }

  private reply(error: string | null): void {
    const batch = this.pending[this.head];
    if (batch === undefined) {
      this.fail(new RedisUnavailableError(`${this.where}: a reply arrived that no command asked for`));
      return;
    }
    if (error !== null) {
      batch.errors ??= new Array<string | null>(batch.expected).fill(null);
      batch.errors[batch.received] = error;
    }
    batch.received += 1;
    if (batch.received === batch.expected) {
      this.pending[this.head] = undefined as unknown as PendingBatch;
      this.head += 1;
      if (this.head === this.pending.length) {
        this.pending.length = 0;
        this.head = 0;
      } else if (this.head >= 64) {
        this.pending.splice(0, this.head);
        this.head = 0;
      }
      this.answered += 1;
      batch.resolve(batch.errors);
    }
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    clearInterval(this.watchdog);
    clearInterval(this.runaways);
    this.socket.destroy();
    const waiting = this.pending.slice(this.head);
    this.pending.length = 0;
    this.head = 0;
    for (const batch of waiting) batch.reject(err);
  }
}
