/**
 * What the connected user may run, per family of the commands swc sends, and
 * so which swc commands it can use: `swc doctor`'s answer to "can this user
 * run lights? bench?". Each command is asked with ACL DRYRUN where the user
 * may run it (exact, nothing executed), else sent in a form the server refuses
 * after its ACL check and before it touches anything (a SET with `PX 0`, a
 * ZADD with a score that is not a number, an EVALSHA of no script, a SCRIPT
 * LOAD that does not compile): a NOPERM answer means denied, any other answer
 * allowed. Nothing is written, nothing enters the script cache.
 */
import type { Redis } from 'ioredis';

/** A family of commands, and the swc commands that need all of it. */
export interface AccessFamily {
  readonly family: 'connection' | 'read' | 'server' | 'write' | 'scripts';
  /** Every command of the family this user may run. */
  readonly allowed: readonly string[];
  /** Every command of the family this user may not run, each with the server's reason. */
  readonly denied: readonly { readonly command: string; readonly reason: string }[];
  /** The swc commands that need this family. */
  readonly neededBy: readonly string[];
}

/** What {@link checkAccess} found. */
export interface Access {
  /** How the answers were had: ACL DRYRUN (exact) or the server's NOPERM answers to harmless forms. */
  readonly method: 'acl-dryrun' | 'noperm-answers';
  readonly families: readonly AccessFamily[];
  /** The swc commands this user can use. */
  readonly allows: readonly string[];
  /** The swc commands it cannot, each with the first family it lacks. */
  readonly refuses: readonly string[];
  /** Reads allowed and no write: a read-only user. */
  readonly readOnly: boolean;
}

interface Probe {
  readonly command: string;
  /** The harmless form (sent when ACL DRYRUN is not available). */
  readonly harmless: (key: string) => (string | number)[];
  /** The form ACL DRYRUN is asked about; default the harmless one. */
  readonly exact?: (key: string) => (string | number)[];
}

const READERS = ['lights', 'inspect', 'doctor'];
const WRITERS = ['bench', 'verify', 'demo --write', 'clean'];

/** The families, their commands (as lights, inspect and bench send them) and who needs them. */
const FAMILIES: readonly { family: AccessFamily['family']; neededBy: readonly string[]; key: 'read' | 'write'; probes: readonly Probe[] }[] = [
  {
    family: 'connection',
    neededBy: [...READERS, ...WRITERS],
    key: 'read',
    probes: [
      { command: 'PING', harmless: () => ['PING'] },
      { command: 'TIME', harmless: () => ['TIME'] },
    ],
  },
  {
    family: 'read',
    neededBy: [...READERS, 'bench', 'verify'],
    key: 'read',
    probes: [
      { command: 'SCAN', harmless: (k) => ['SCAN', '0', 'MATCH', k, 'COUNT', '1'] },
      { command: 'TYPE', harmless: (k) => ['TYPE', k] },
      { command: 'TTL', harmless: (k) => ['TTL', k] },
      { command: 'HGETALL', harmless: (k) => ['HGETALL', k] },
      { command: 'HMGET', harmless: (k) => ['HMGET', k, 'f'] },
      { command: 'HSCAN', harmless: (k) => ['HSCAN', k, '0', 'COUNT', '1'] },
      { command: 'ZRANGE', harmless: (k) => ['ZRANGE', k, '0', '0'] },
      { command: 'ZCOUNT', harmless: (k) => ['ZCOUNT', k, '0', '1'] },
      { command: 'OBJECT ENCODING', harmless: (k) => ['OBJECT', 'ENCODING', k] },
      { command: 'MEMORY USAGE', harmless: (k) => ['MEMORY', 'USAGE', k, 'SAMPLES', '0'] },
    ],
  },
  {
    family: 'server',
    neededBy: ['bench', 'verify'],
    key: 'read',
    probes: [{ command: 'INFO', harmless: () => ['INFO', 'server'] }],
  },
  {
    family: 'write',
    neededBy: WRITERS,
    key: 'write',
    probes: [
      { command: 'SET', harmless: (k) => ['SET', k, '1', 'PX', '0'], exact: (k) => ['SET', k, '1', 'PX', '60000'] },
      { command: 'HINCRBY', harmless: (k) => ['HINCRBY', k, 'f', 'not-a-number'], exact: (k) => ['HINCRBY', k, 'f', '1'] },
      { command: 'ZADD', harmless: (k) => ['ZADD', k, 'not-a-number', 'm'], exact: (k) => ['ZADD', k, '1', 'm'] },
      { command: 'EXPIRE', harmless: (k) => ['EXPIRE', k, 'not-a-number'], exact: (k) => ['EXPIRE', k, '60'] },
    ],
  },
  {
    family: 'scripts',
    neededBy: ['bench', 'verify'],
    key: 'write',
    probes: [
      { command: 'EVALSHA', harmless: (k) => ['EVALSHA', '0'.repeat(40), '1', k] },
      { command: 'SCRIPT LOAD', harmless: () => ['SCRIPT', 'LOAD', 'return ('] },
    ],
  },
];

/** An answer that is an ACL refusal, not the harmless form's own error. */
const DENIED = /^NOPERM|no permissions|can't access|unknown command|unknown subcommand/i;

async function answer(redis: Redis, args: readonly (string | number)[]): Promise<{ ok: boolean; text: string }> {
  try {
    const reply: unknown = await redis.call(String(args[0]), ...args.slice(1));
    return { ok: true, text: typeof reply === 'string' ? reply : '' };
  } catch (err) {
    return { ok: false, text: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Asks, family by family, what the connected user may run. `readKey` is a
 * key of the kind lights reads (never written), `writeKey` one under a bench
 * namespace (never written either: only asked about).
 */
export async function checkAccess(redis: Redis, keys: { readonly readKey: string; readonly writeKey: string }): Promise<Access> {
  const whoami = await answer(redis, ['ACL', 'WHOAMI']);
  const user = whoami.ok ? whoami.text : null;
  const dryRun = user !== null && (await answer(redis, ['ACL', 'DRYRUN', user, 'PING'])).ok;
  const families: AccessFamily[] = [];
  for (const f of FAMILIES) {
    const key = f.key === 'read' ? keys.readKey : keys.writeKey;
    const allowed: string[] = [];
    const denied: { command: string; reason: string }[] = [];
    for (const p of f.probes) {
      let reason: string | null;
      if (dryRun && user !== null) {
        const r = await answer(redis, ['ACL', 'DRYRUN', user, ...(p.exact ?? p.harmless)(key)]);
        reason = r.ok && r.text === 'OK' ? null : r.text || 'refused';
      } else {
        const r = await answer(redis, p.harmless(key));
        reason = !r.ok && DENIED.test(r.text) ? r.text : null;
      }
      if (reason === null) allowed.push(p.command);
      else denied.push({ command: p.command, reason });
    }
    families.push({ family: f.family, allowed, denied, neededBy: f.neededBy });
  }
  const all = [...READERS, ...WRITERS];
  const lacking = (command: string): AccessFamily | undefined => families.find((f) => f.neededBy.includes(command) && f.denied.length > 0);
  const allows = all.filter((c) => !lacking(c));
  const refuses = all.filter((c) => lacking(c)).map((c) => `${c} (no ${lacking(c)?.family ?? '?'} commands)`);
  const ok = (family: AccessFamily['family']): boolean => families.find((f) => f.family === family)?.denied.length === 0;
  const none = (family: AccessFamily['family']): boolean => families.find((f) => f.family === family)?.allowed.length === 0;
  return {
    method: dryRun ? 'acl-dryrun' : 'noperm-answers',
    families,
    allows,
    refuses,
    readOnly: ok('connection') && ok('read') && none('write') && none('scripts'),
  };
}
