import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { PrivateServer } from '../../../src/redis/server.js';
import { inspectSchema } from '../../../src/schemas/inspect.js';
import { verifySchema } from '../../../src/schemas/verify.js';
import { HOUR_START, uniqueName } from '../../helpers.js';
import { NAME, seededServer } from '../../cli/inspect-managed-shared.js';
import { runInProcess } from '../../unit/in-process.js';

// Every report names the server it read or wrote first, without credentials,
// and what was not measured there (issue: "the server is explicit"). verify's
// verdict stays the first line: the server's line stands directly under it.

const PASSWORD = 'Zq9-server-named-secret';

/** A URL of `server` as an ACL user with `rules`, logged in with PASSWORD. */
async function userUrl(admin: Redis, server: PrivateServer, name: string, rules: readonly string[]): Promise<string> {
  await admin.call('ACL', 'SETUSER', name, 'on', `>${PASSWORD}`, ...rules);
  const url = new URL(server.url);
  url.username = name;
  url.password = PASSWORD;
  return url.toString();
}

/** The server's URL as a report names it: no user, no password, host:port/db. */
const shown = (server: PrivateServer): string => {
  const url = new URL(server.url);
  return `redis://${url.hostname}:${url.port}/0`;
};

describe('the server named first', () => {
  let server: PrivateServer;
  let reader: string;
  let writer: string;
  seededServer(async (s, admin) => {
    server = s;
    reader = await userUrl(admin, server, 'named-reader', ['~*', '&*', '+@all', '-memory']);
    writer = await userUrl(admin, server, 'named-writer', ['~*', '&*', '+@all']);
  });

  const inspectArgs = (url: string): string[] => ['inspect', NAME, '--redis-url', url, '--at', String(HOUR_START + 1), '--window', '60'];

  it('inspect: the first line names the server without its password and the bytes MEMORY refused; the JSON says the same', async () => {
    const table = await runInProcess(inspectArgs(reader));
    expect(table.code).toBe(0);
    const [first = '', second = ''] = table.stdout.split('\n');
    expect(first).toMatch(
      new RegExp(`^Server: ${shown(server).replace(/\./g, '\\.')}; not measured there: bytes unavailable: the server refused MEMORY USAGE \\(NOPERM`),
    );
    expect(second).toMatch(/^stoplight-v5 {2}checkout/);

    const json = await runInProcess([...inspectArgs(reader), '--json']);
    expect(json.code).toBe(0);
    const doc = inspectSchema.parse(JSON.parse(json.stdout));
    expect(doc.server).toBe(shown(server));
    expect(doc.notMeasured).toEqual([expect.stringMatching(/^bytes unavailable: the server refused MEMORY USAGE \(NOPERM/)]);
    for (const run of [table, json]) expect(run.stdout + run.stderr).not.toContain(PASSWORD);
  });

  it('inspect where everything was measured: the server alone; a light not found still names it in the JSON', async () => {
    const table = await runInProcess(inspectArgs(writer));
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toBe(`Server: ${shown(server)}`);
    const missing = await runInProcess(['inspect', uniqueName('nope'), '--redis-url', writer, '--json']);
    expect(missing.code).toBe(1);
    const doc = inspectSchema.parse(JSON.parse(missing.stdout));
    expect([doc.server, doc.notMeasured, doc.inspections]).toEqual([shown(server), [], []]);
    for (const run of [table, missing]) expect(run.stdout + run.stderr).not.toContain(PASSWORD);
  });

  it("verify on the user's server: the verdict first, the server (no password) and what verify cannot see there next; the JSON the same", async () => {
    const text = await runInProcess(['verify', '--redis-url', writer, '--layout', 'stoplight-v5', '--calls', '300', '--seed', '3', '--no-progress']);
    expect(text.code).toBe(0);
    const [verdict = '', second = ''] = text.stdout.split('\n');
    expect(verdict).toMatch(/^ok: stoplight-v5 agrees with the model/);
    expect(second).toBe(`Server: ${shown(server)}; not measured there: the command a failing script sent (MONITOR needs swc's own server)`);

    const json = await runInProcess(['verify', '--redis-url', writer, '--layout', 'stoplight-v5', '--calls', '300', '--seed', '3', '--json']);
    expect(json.code).toBe(0);
    const doc = verifySchema.parse(JSON.parse(json.stdout));
    expect(doc.server).toBe(shown(server));
    expect(doc.notMeasured).toEqual(["the command a failing script sent (MONITOR needs swc's own server)"]);
    for (const run of [text, json]) expect(run.stdout + run.stderr).not.toContain(PASSWORD);
  });
});

describe('verify on its own server', () => {
  it('names the private redis-server under the verdict, with nothing left unmeasured; the JSON the same', async () => {
    const text = await runInProcess(['verify', '--layout', 'stoplight-v6', '--calls', '300', '--seed', '5', '--no-progress']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^ok: stoplight-v6 agrees with the model/),
      'Server: a private redis-server that swc started and stopped',
    ]);
    const json = await runInProcess(['verify', '--layout', 'stoplight-v6', '--calls', '300', '--seed', '5', '--json']);
    const doc = verifySchema.parse(JSON.parse(json.stdout));
    expect([doc.server, doc.notMeasured]).toEqual(['a private redis-server that swc started and stopped', []]);
  });
});
