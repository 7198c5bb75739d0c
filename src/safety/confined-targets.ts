/**
 * Where the load engine's RESP sockets connect when a run is confined (see
 * acl.ts): keyed by the ioredis options object the run passes them, so a
 * socket opened for a confined run authenticates as the run's temporary user.
 * A module of its own: src/redis/resp.ts reads it without importing the ACL code.
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
