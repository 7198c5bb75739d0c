/** What the CLI says and reads about running scripts swc did not write; loads nothing else. */

/** The server a command's flags point at when swc did not start it (`--redis-url`, else `REDIS_URL`), or undefined for a private server. */
export function usersServer(flags: { readonly redisUrl?: string }): string | undefined {
  return flags.redisUrl ?? (process.env.REDIS_URL || undefined);
}

/** `--trust-scripts`, for commands that run layout scripts. */
export const TRUST_SCRIPTS_HELP =
  "run scripts swc did not write (a manifest's, --scripts, any lua/ not byte-identical to swc's own) on a server swc did not start; without it they run only on swc's private server. They pass swc's probe on a private server first, then run as a temporary ACL user (keys of the run only, no @admin/@dangerous), or unconfined where the server allows no ACL user; one call at a time, each stopped past 250 ms or a memory bound (no throughput phase)";
