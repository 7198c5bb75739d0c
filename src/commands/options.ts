import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseRedisUrl, openSession, type Session } from '../redis/connect.js';
import { checkServerSetting } from '../redis/server.js';
import { onShutdown, registerUrlSecrets } from './lifecycle.js';

/** Flags every command that talks to Redis accepts. */
export interface RedisFlags {
  redisUrl?: string;
  redisServerArg: string[];
}

/** Wraps a parser so that its UsageError reaches commander as an invalid argument. */
export function parser<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (err) {
      throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
    }
  };
}

/** Collects `--redis-server-arg`, refusing settings that would let the private server escape swc (see checkServerSetting). */
const collect = (value: string, previous: string[]): string[] => [...previous, parser(checkServerSetting)(value)];

/**
 * Adds `--redis-url` and, where swc may start its own server,
 * `--redis-server-arg`. Which Redis is used when neither the flag nor
 * REDIS_URL is set is {@link sessionFromFlags}' `defaultUrl` (without one,
 * a private redis-server).
 */
export function addRedisOptions(command: Command, { privateServer }: { privateServer: boolean }): Command {
  const env = process.env.REDIS_URL;
  if (env) registerUrlSecrets(env);
  command.addOption(
    new Option(
      '--redis-url <url>',
      privateServer
        ? 'Redis to use (default: $REDIS_URL, else a private redis-server that swc starts and stops)'
        : 'Redis to use (default: $REDIS_URL, else redis://127.0.0.1:6379)',
    ).argParser(
      parser((value) => {
        registerUrlSecrets(value);
        parseRedisUrl(value);
        return value;
      }),
    ),
  );
  if (privateServer) {
    command.option(
      '--redis-server-arg <name=value>',
      'setting for the private redis-server, repeatable (e.g. hash-max-listpack-entries=128)',
      collect,
      [] as string[],
    );
  }
  command.hook('preAction', (cmd) => {
    const opts = cmd.opts<Partial<RedisFlags>>();
    if (opts.redisUrl === undefined && env) {
      try {
        parseRedisUrl(env, 'REDIS_URL');
      } catch (err) {
        // The message already has the URL redacted; the output hook scrubs it again.
        cmd.error(`error: ${(err as Error).message}`, { exitCode: 2 });
      }
    }
  });
  return command;
}

/**
 * Opens the session the flags ask for and registers its cleanup, so the
 * private server stops on every way out, Ctrl-C included.
 */
export async function sessionFromFlags(flags: Partial<RedisFlags>, defaultUrl?: string): Promise<Session> {
  // An empty REDIS_URL counts as unset, as the preAction check treats it.
  const env = process.env.REDIS_URL || undefined;
  const redisUrl = flags.redisUrl ?? env ?? defaultUrl;
  const session = await openSession({
    ...(redisUrl !== undefined ? { redisUrl } : {}),
    serverSettings: flags.redisServerArg ?? [],
    ...(flags.redisUrl === undefined && env ? { flag: 'REDIS_URL' } : {}),
  });
  onShutdown(() => session.close());
  return session;
}

/** Adds `--json`. */
export function addJsonOption(command: Command): Command {
  return command.option('--json', 'print machine-readable JSON on stdout');
}

/** Whether stdout should get colour: a TTY, and neither NO_COLOR nor TERM=dumb. */
export function useColor(): boolean {
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
}

/** Writes a result to stdout as JSON (whole, with a trailing newline). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
