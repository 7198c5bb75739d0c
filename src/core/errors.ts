/**
 * Typed errors. Library code throws these; only the CLI turns them into a
 * message on stderr and an exit code. Each kind has its class here (usage,
 * connection, server state, script, refusal, finding, …); code outside this
 * file names the kind rather than calling `new SwcError` with an exit code
 * (an ESLint rule keeps it so).
 */

/** Exit codes shared by every command. */
export const ExitCode = {
  ok: 0,
  /** A check, regression or lookup found something (not a crash). */
  finding: 1,
  /** Bad usage or input: nothing was sent to Redis. */
  usage: 2,
  /** A runtime failure: Redis unreachable, a script error, a dead server. */
  runtime: 3,
  /** Stopped by SIGINT or SIGTERM (128 + SIGINT). */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Base class: a message meant for the user and the exit code it maps to. */
export class SwcError extends Error {
  readonly exitCode: ExitCode;
  /**
   * The leading part of the message that {@link SwcError.at} puts the place
   * after (`lost Redis` + ` in cell 2/4` + `: …`); without one, the place
   * goes last, in brackets.
   */
  readonly lead: string | undefined;
  constructor(message: string, exitCode: ExitCode, options?: { cause?: unknown; lead?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.lead = options?.lead !== undefined && message.startsWith(`${options.lead}: `) ? options.lead : undefined;
  }

  /**
   * The same error (class, exit code and fields kept) saying where it
   * happened: `where` reads as a phrase such as "in cell 2/4 (…)".
   */
  at(where: string): this {
    const lead = this.lead;
    if (lead === undefined) return this.copyWith(`${this.message} (${where})`, undefined);
    return this.copyWith(`${lead} ${where}${this.message.slice(lead.length)}`, `${lead} ${where}`);
  }

  /** A copy of this error, same class and fields, with another message and this one as its cause. */
  private copyWith(message: string, lead: string | undefined): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.defineProperties(copy, Object.getOwnPropertyDescriptors(this));
    copy.message = message;
    Object.defineProperty(copy, 'lead', { value: lead, enumerable: true });
    Object.defineProperty(copy, 'cause', { value: this, writable: true, configurable: true, enumerable: false });
    return copy;
  }
}

/** Invalid flag, argument or input file. */
export class UsageError extends SwcError {
  constructor(message: string) {
    super(message, ExitCode.usage);
  }
}

/** Redis could not be reached, refused us, or went away. */
export class RedisUnavailableError extends SwcError {
  constructor(message: string, options?: { cause?: unknown; lead?: string }) {
    super(message, ExitCode.runtime, options);
  }
}

/**
 * Redis answered a command with an error reply that is neither a known
 * server state ({@link ServerStateError}) nor a script's ({@link ScriptError}):
 * the message names the command.
 */
export class CommandRefusedError extends SwcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.runtime, options);
  }
}

/**
 * swc stops rather than write where it could harm the user's data, or
 * report a figure it knows would be wrong (a disturbed phase, a cluster
 * that changed, another run on the server): the message says why and
 * what to do.
 */
export class RefusalError extends SwcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.runtime, options);
  }
}

/** A check found something about what it checked (exit 1, not a failure of swc's). */
export class FindingError extends SwcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.finding, options);
  }
}

/**
 * What swc relies on around Redis failed: a tool it runs (valgrind's
 * callgrind), the output of a child run, a file it writes.
 */
export class EnvironmentError extends SwcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.runtime, options);
  }
}

/** Not from Redis nor from the user: a fault in swc itself, kept with the place it happened. */
export class UnexpectedError extends SwcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.runtime, options);
  }
}

/** A Lua script failed to load or to run; the message names its file. */
export class ScriptError extends SwcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.runtime, options);
  }
}

/**
 * A script answered in a shape its layout does not read (a manifest's
 * `reply`): the scripts' or the manifest's fault, not the server's (exit 2).
 * The message names the script, what it returned and what was expected.
 */
export class ScriptContractError extends ScriptError {
  override readonly exitCode: ExitCode = ExitCode.usage;
}

/**
 * What a server-state error is about. Each has its own message; none is the
 * fault of swc's scripts or of the network.
 */
export type ServerStateKind =
  /** Another client's script (or function) is running past busy-reply-threshold. */
  | 'busy'
  /** maxmemory reached with a policy that refuses writes. */
  | 'oom'
  /** A read-only replica. */
  | 'readonly'
  /** Cluster redirections or cross-slot keys: swc talks to a single node. */
  | 'cluster'
  /** An ACL denies a command or a key to the user. */
  | 'noperm'
  /** maxclients reached: the server refused the connection. */
  | 'maxclients'
  /** Writes refused after a failed RDB save (stop-writes-on-bgsave-error). */
  | 'misconf'
  /** The server is still loading its dataset. */
  | 'loading'
  /** min-replicas-to-write is not met, or the replica lost its primary. */
  | 'noreplicas'
  /** A command swc needs is renamed or disabled. */
  | 'unknown-command';

/**
 * Redis is reachable but its state or configuration refuses what swc asked:
 * the message says which state, what swc sent, and what would fix it. The
 * message is `headline: detail`; {@link SwcError.at} puts the place after
 * the headline.
 */
export class ServerStateError extends SwcError {
  readonly kind: ServerStateKind;
  readonly headline: string;
  readonly detail: string;
  constructor(kind: ServerStateKind, headline: string, detail: string, options?: { cause?: unknown }) {
    super(`${headline}: ${detail}`, ExitCode.runtime, { ...options, lead: headline });
    this.kind = kind;
    this.headline = headline;
    this.detail = detail;
  }
}

/** The private redis-server could not be started. */
export class ServerStartError extends SwcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.runtime, options);
  }
}

/** What was asked for does not exist (a light, a key). */
export class NotFoundError extends SwcError {
  constructor(message: string) {
    super(message, ExitCode.finding);
  }
}

/** The run was stopped on request (Ctrl-C, SIGTERM). */
export class InterruptedError extends SwcError {
  constructor() {
    super('interrupted', ExitCode.interrupted);
  }
}

/** An input file (scenario, bench result) that cannot be used; the message names the file and what is wrong. */
export class InputFileError extends UsageError {
  readonly file: string;
  readonly problem: string;
  constructor(file: string, problem: string) {
    super(`${file}: ${problem}`);
    this.file = file;
    this.problem = problem;
  }
}
