import { Redis } from 'ioredis';
import { beforeAll, expect } from 'vitest';
import { LayoutClient } from '../../src/layouts/client.js';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import type { PrivateServer } from '../../src/redis/server.js';
import { HOUR_START, ownServer } from '../helpers.js';
import type { RunSwc } from './run-cli.js';

/**
 * inspect and lights on a server that refuses MEMORY (and maybe INFO and
 * CONFIG): the spawned case in test/cli/inspect-managed.test.ts and the
 * in-process ones in test/integration/commands/inspect-managed.test.ts check
 * the same output.
 */

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';
export const NAME = 'checkout';

/** Writes one light in each built-in layout, as the application would. */
export async function seed(url: string): Promise<void> {
  const redis = new Redis(url);
  try {
    for (const layout of [new StoplightV5(), new StoplightV6()]) {
      const client = await LayoutClient.open(redis, layout);
      await client.recordSuccess({ name: NAME }, { at: HOUR_START, windowSeconds: 60 });
      await client.recordFailure({ name: NAME }, { at: HOUR_START + 1, windowSeconds: 60, errorJson: ERROR_JSON });
    }
  } finally {
    redis.disconnect();
  }
}

interface KeyJson {
  key: string;
  bytes: number | null;
  encoding: string;
  limits: { entriesLimit: number | null } | null;
}

type Result = Awaited<ReturnType<RunSwc>>;

export const inspectJsonArgs = (url: string): string[] => ['inspect', NAME, '--redis-url', url, '--json', '--at', String(HOUR_START + 1), '--window', '60'];
export const lightsJsonArgs = (url: string): string[] => ['lights', '--redis-url', url, '--json'];

/** inspect --json: every key with bytes null, and each of `notes` said once on stderr. */
export function expectInspectJson(json: Result, notes: RegExp[]): void {
  expect(json.code).toBe(0);
  const docs = (
    JSON.parse(json.stdout) as { inspections: { layout: string; keys: KeyJson[]; summary: { bytes: number | null }; totals: unknown; unavailable: string[] }[] }
  ).inspections;
  expect(docs.map((d) => d.layout)).toEqual(['stoplight-v5', 'stoplight-v6']);
  for (const doc of docs) {
    expect(doc.keys.length).toBeGreaterThan(0);
    expect(doc.keys.every((k) => k.bytes === null && k.encoding !== null)).toBe(true);
    expect(doc.summary.bytes).toBeNull();
    expect(doc.totals).toEqual({ successes: 1, failures: 1 });
    expect(doc.unavailable[0]).toMatch(/^bytes unavailable: the server refused MEMORY USAGE/);
  }
  // Said once on stderr, however many keys lack bytes.
  const lines = json.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(notes.length);
  notes.forEach((note, i) => expect(lines[i]).toMatch(note));
}

/** lights --json: both layouts with their key counts, bytes null, said once on stderr. */
export function expectLightsJson(lights: Result): void {
  expect(lights.code).toBe(0);
  const listed = JSON.parse(lights.stdout) as { lights: { layout: string; keys: number; bytes: number | null }[]; unavailable: string[] };
  expect(listed.lights.map((l) => [l.layout, l.keys, l.bytes])).toEqual([
    ['stoplight-v5', 3, null],
    ['stoplight-v6', 2, null],
  ]);
  expect(lights.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^swc: note: bytes unavailable: the server refused MEMORY USAGE/)]);
}

/** What inspect and lights must still show, as JSON and as tables. */
export async function expectEverythingButBytes(run: RunSwc, url: string, notes: RegExp[]): Promise<void> {
  // Four read-only runs: at once.
  const [json, table, lights, lightsTable] = await Promise.all([
    run(inspectJsonArgs(url)),
    run(['inspect', NAME, '--redis-url', url, '--at', String(HOUR_START + 1)]),
    run(lightsJsonArgs(url)),
    run(['lights', '--redis-url', url]),
  ]);
  expectInspectJson(json, notes);

  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/│ +n\/a │/);
  expect(table.stdout).toContain('bytes unavailable');
  expect(table.stdout).toContain('drift    ok');

  expectLightsJson(lights);
  expect(lightsTable.code).toBe(0);
  // 6.0 lights show names where known: the default system is always named.
  expect(lightsTable.stdout).toMatch(/stoplight-v6 +│ default\/[0-9a-f]{12} +│ +n\/a +│/);
}

/** The note inspect gives where MEMORY is renamed away. */
export const MEMORY_RENAMED = /^swc: note: bytes unavailable: the server refused MEMORY USAGE \(ERR unknown command 'MEMORY'/;

/** A private server of the describe's own and an admin connection to it; before its tests, {@link seed} on it, then `then(server, admin)`. */
export function seededServer(then: (server: PrivateServer, admin: Redis) => Promise<void>): void {
  let server: PrivateServer;
  let admin: Redis;
  ownServer((s, redis) => ((server = s), (admin = redis)));
  beforeAll(async () => {
    await seed(server.url);
    await then(server, admin);
  });
}
