/**
 * Typed errors. Library code throws these; only the CLI turns them into a
 * message on stderr and an exit code.
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
  constructor(message: string, exitCode: ExitCode, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.exitCode = exitCode;
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
