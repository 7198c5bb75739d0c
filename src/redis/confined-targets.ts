/**
 * Where the load engine's RESP sockets connect when a run is confined (see
 * src/safety/acl.ts): keyed by the ioredis options object the run passes them,
 * so a socket opened for a confined run authenticates as the run's temporary
 * user. It sits in redis/ beside resp.ts, which reads it: the safety code
 * above sets the target, and the socket code never imports the ACL code.
 */
import type { RedisOptions } from 'ioredis';

const confined = new WeakMap<object, Pick<RedisOptions, 'host' | 'port' | 'path' | 'db' | 'tls' | 'username' | 'password'>>();

/** Sockets opened with `options` connect as `target` instead. */
export function confineRespTarget(options: object, target: Pick<RedisOptions, 'host' | 'port' | 'path' | 'db' | 'tls' | 'username' | 'password'>): void {
  confined.set(options, target);
}

/** The target a socket opened with `options` uses: the confined one when there is one. */
export function respTargetOf<T extends object>(options: T): T {
  return (confined.get(options) as T | undefined) ?? options;
}
