import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, inject } from 'vitest';
import { connect } from '../src/redis/connect.js';

/** The test server's URL (from global setup). */
export function redisUrl(): string {
  return inject('redisUrl');
}

/** A connection to the test server, closed after the file's tests. */
export async function testRedis(): Promise<Redis> {
  const redis = await connect(redisUrl());
  afterAll(() => redis.disconnect());
  return redis;
}

/** A light name no other test uses. */
export function uniqueName(label = 'light'): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}

/** 2025-11-29T21:00:00Z: an hour boundary, so hour keys are predictable. */
export const HOUR_START = 1_764_450_000 - (1_764_450_000 % 3600);

/** Whether a process with this PID still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
