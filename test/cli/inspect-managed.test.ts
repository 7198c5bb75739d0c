import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../src/layouts/client.js';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import { startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { runCli } from './run-cli.js';
import { HOUR_START } from '../helpers.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';
const NAME = 'checkout';

/** Writes one light in each built-in layout, as the application would. */
async function seed(url: string): Promise<void> {
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

/** What inspect and lights must still show on a server that refuses MEMORY (and maybe INFO and CONFIG). */
async function expectEverythingButBytes(url: string, notes: RegExp[]): Promise<void> {
  // Four read-only runs: at once.
  const [json, table, lights, lightsTable] = await Promise.all([
    runCli(['inspect', NAME, '--redis-url', url, '--json', '--at', String(HOUR_START + 1), '--window', '60']),
    runCli(['inspect', NAME, '--redis-url', url, '--at', String(HOUR_START + 1)]),
    runCli(['lights', '--redis-url', url, '--json']),
    runCli(['lights', '--redis-url', url]),
  ]);
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

  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/│ +n\/a │/);
  expect(table.stdout).toContain('bytes unavailable');
  expect(table.stdout).toContain('drift    ok');

  expect(lights.code).toBe(0);
  const listed = JSON.parse(lights.stdout) as { lights: { layout: string; keys: number; bytes: number | null }[]; unavailable: string[] };
  expect(listed.lights.map((l) => [l.layout, l.keys, l.bytes])).toEqual([
    ['stoplight-v5', 3, null],
    ['stoplight-v6', 2, null],
  ]);
  expect(lights.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^swc: note: bytes unavailable: the server refused MEMORY USAGE/)]);
  expect(lightsTable.code).toBe(0);
  // 6.0 lights show names where known: the default system is always named.
  expect(lightsTable.stdout).toMatch(/stoplight-v6 +│ default\/[0-9a-f]{12} +│ +n\/a +│/);
}

describe('inspect and lights on a server where MEMORY is renamed away', () => {
  let server: PrivateServer;
  beforeAll(async () => {
    server = await startPrivateServer({ settings: ['rename-command=MEMORY ""'] });
    await seed(server.url);
  });
  afterAll(() => server.stop());

  it('show every key, count and metadata with bytes n/a, and say once why', async () => {
    await expectEverythingButBytes(server.url, [/^swc: note: bytes unavailable: the server refused MEMORY USAGE \(ERR unknown command 'MEMORY'/]);
  });
});

describe('inspect and lights as an ACL user without MEMORY, INFO and CONFIG', () => {
  let server: PrivateServer;
  let url: string;
  beforeAll(async () => {
    server = await startPrivateServer();
    await seed(server.url);
    const admin = new Redis(server.url);
    await admin.call('ACL', 'SETUSER', 'reader', 'on', '>reader-pw', '~*', '&*', '+@all', '-memory', '-info', '-config');
    admin.disconnect();
    url = server.url.replace('redis://', 'redis://reader:reader-pw@');
  });
  afterAll(() => server.stop());

  it('show everything else, with bytes n/a and listpack limits unknown, each said once', async () => {
    await expectEverythingButBytes(url, [
      /^swc: note: bytes unavailable: the server refused MEMORY USAGE \(NOPERM/,
      /^swc: note: listpack limits unknown: the server refused CONFIG GET \(NOPERM/,
    ]);
  });
});
