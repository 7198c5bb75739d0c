/** What the CLI says and reads about running scripts swc did not write; loads nothing else. */

/** The server a command's flags point at when swc did not start it (`--redis-url`, else `REDIS_URL`), or undefined for a private server. */
export function usersServer(flags: { readonly redisUrl?: string }): string | undefined {
  return flags.redisUrl ?? (process.env.REDIS_URL || undefined);
}

/**
 * How scripts swc did not write (a manifest's, a `--scripts` folder's) may
 * run on a server swc did not start: the CLI's two flags and the library's
 * options (bench's `runBench`, `verifyLayout`), in one type. Neither given:
 * such scripts run only on swc's private server.
 */
export interface ScriptTrust {
  /**
   * `--trust-scripts`: run them there, after swc's probe and rehearsal on a
   * private server, as a temporary ACL user confined to the run's keys.
   * Refused (exit 2, nothing sent beyond the checks) where the server does
   * not let swc create that user.
   */
  readonly trustScripts?: boolean;
  /**
   * `--unconfined-scripts`, the dangerous one: where swc cannot create the
   * ACL user, run them anyway with the rights of the connection's own user
   * (every key and command that user may reach). Probed, rehearsed and
   * checked call by call as under `trustScripts`, and still confined where
   * the server lets swc create the user. Implies `trustScripts`.
   */
  readonly unconfinedScripts?: boolean;
}

/** What {@link ScriptTrust} allows: `none` (private server only), `confined` (the temporary ACL user or nothing), `unconfined` (the user's own rights where no ACL user can be made). */
export type TrustLevel = 'none' | 'confined' | 'unconfined';

/** The level a {@link ScriptTrust} asks for. */
export const trustLevelOf = (trust: ScriptTrust): TrustLevel => (trust.unconfinedScripts ? 'unconfined' : trust.trustScripts ? 'confined' : 'none');

/** `--trust-scripts`, for commands that run layout scripts. */
export const TRUST_SCRIPTS_HELP =
  "run scripts swc did not write (a manifest's, --scripts, any lua/ not byte-identical to swc's own) on a server swc did not start, confined; without it they run only on swc's private server. They pass swc's probe and a rehearsal of the run on a private server first, then run as a temporary ACL user (keys of the run only, no @admin/@dangerous), one call at a time, each stopped past 250 ms or a memory bound (no throughput phase). Refused where the server does not let swc create that user (see --unconfined-scripts)";

/** `--unconfined-scripts`, the dangerous one. */
export const UNCONFINED_SCRIPTS_HELP =
  "DANGEROUS: as --trust-scripts, but where the server does not let swc create the temporary ACL user, run those scripts anyway with your connection's own rights: a script that behaves in swc's probe and rehearsal and then misbehaves can read, change or delete any key and run any command your user may. Use only for scripts you have read";
