import { UsageError } from '../core/errors.js';

// Which --redis-server-arg settings a private redis-server accepts, checked
// without starting one (the CLI checks each flag as it parses it).

/**
 * Settings that would let the private server outlive swc, listen beyond
 * loopback, or read and write files outside its temp folder. swc sets
 * several of these itself (port, bind, dir, persistence off, no daemon);
 * letting a user override them would make the server no longer swc's alone.
 * `unixsocket*` and `tls-*` listeners are matched by prefix below.
 */
const REFUSED_SETTINGS: ReadonlyMap<string, string> = new Map([
  ['daemonize', 'it would detach the server, which would outlive swc'],
  ['supervised', 'it hands the server to an init system, which would outlive swc'],
  ['pidfile', 'it writes a file outside the temp folder'],
  ['logfile', 'it writes a file outside the temp folder'],
  ['syslog-enabled', 'it writes to the system log'],
  ['syslog-ident', 'it writes to the system log'],
  ['syslog-facility', 'it writes to the system log'],
  ['bind', 'swc binds the server to 127.0.0.1 only'],
  ['bind-source-addr', 'swc binds the server to 127.0.0.1 only'],
  ['protected-mode', 'it would expose the server beyond loopback'],
  ['port', 'swc picks a free loopback port itself'],
  ['tls-port', 'it opens a second listener'],
  ['dir', 'the server works only in its temp folder'],
  ['dbfilename', 'persistence is off; it writes a file'],
  ['save', 'persistence is off; it writes a file'],
  ['appendonly', 'persistence is off; it writes files'],
  ['appendfilename', 'persistence is off; it writes a file'],
  ['appenddirname', 'persistence is off; it writes files'],
  ['include', 'it reads another configuration file'],
  ['loadmodule', 'it loads code into the server'],
  ['enable-module-command', 'it allows loading code into the server'],
  ['enable-debug-command', 'it allows DEBUG, which can crash or stall the server'],
  ['enable-protected-configs', 'it allows CONFIG SET of dir, logfile and other protected settings'],
  ['aclfile', 'it reads and writes a file outside the temp folder'],
  ['replicaof', 'it connects the server to another one'],
  ['slaveof', 'it connects the server to another one'],
  ['cluster-config-file', 'it writes a file outside the temp folder'],
]);

/** The fewest clients a private server may allow: swc's own connections, with room for --connections. */
export const MIN_PRIVATE_MAXCLIENTS = 32;

/**
 * Checks one `--redis-server-arg` (`name=value`, or `--name=value`) and
 * returns it as `name=value`. Throws a UsageError naming the setting when it
 * is malformed, would detach or expose the server, or would make it touch
 * files outside its temp folder; names are matched case-insensitively, as
 * redis-server reads them.
 */
export function checkServerSetting(setting: string): string {
  const normal = wellFormed(setting);
  const name = normal.slice(0, normal.indexOf('='));
  const why =
    REFUSED_SETTINGS.get(name) ??
    (name.startsWith('unixsocket') ? 'it opens a socket file outside the temp folder' : undefined) ??
    (name.startsWith('tls-') && /port|cluster|replication/.test(name) ? 'it opens a TLS listener or link' : undefined);
  if (why !== undefined) {
    throw new UsageError(`--redis-server-arg: ${name} is not allowed on the private server (${why}); use --redis-url to run against a server you configure`);
  }
  if (name === 'maxclients') {
    const value = normal.slice(normal.indexOf('=') + 1).trim();
    if (!/^\d+$/.test(value) || Number(value) < MIN_PRIVATE_MAXCLIENTS) {
      throw new UsageError(
        `--redis-server-arg: maxclients must be a whole number of at least ${MIN_PRIVATE_MAXCLIENTS} on the private server, got "${value}" ` +
          "(swc itself opens a session, a fill socket, one socket per --connections and the application view's client)",
      );
    }
  }
  return normal;
}

/** `name=value` (or `--name=value`) as `name=value` with the name in lower case; refuses what redis-server would misread. */
export function wellFormed(setting: string): string {
  const match = /^(?:--)?([a-z][a-z0-9-]*)=(.*)$/is.exec(setting);
  if (!match?.[1] || match[2] === undefined) {
    throw new UsageError(`--redis-server-arg: expected name=value (e.g. hash-max-listpack-entries=128), got "${setting}"`);
  }
  const name = match[1].toLowerCase();
  const value = match[2];
  // A value word starting with `--` would reach redis-server as a directive of its own,
  // and a control character could end the config line it is joined into.
  if (/(^|\s)--/.test(value) || /[\u0000-\u001f\u007f]/.test(value.replace(/[ \t]/g, ''))) {
    throw new UsageError(`--redis-server-arg: ${name}: the value must not hold "--" words or control characters`);
  }
  return `${name}=${value}`;
}

/** The largest private cluster swc starts. */
export const MAX_PRIVATE_SHARDS = 16;
