import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AT, RDB_BYTES_NOTE, rdbFixture } from './rdb-shared.js';
import { runCli } from './run-cli.js';

const fixture = rdbFixture();

// lights --rdb against the live server, the other refusals and the private
// server's socket run in-process (test/integration/commands/rdb.test.ts); the
// built CLI loads a snapshot here, and exits soon after a load that fails.
describe('lights --rdb and inspect --rdb: a snapshot analysed offline (spawned)', () => {
  it('inspect --rdb reads one light of the snapshot', async () => {
    const run = await runCli(['inspect', 'light-2', '--system', 'payments', '--rdb', fixture.snapshot, '--at', String(AT), '--json']);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { inspections: { totals: { successes: number }; systemName: string; lightName: string }[] };
    expect(doc.inspections[0]).toMatchObject({ totals: { successes: 30 }, systemName: 'payments', lightName: 'light-2' });
    // Its bytes are the loaded snapshot's, not the live server's: said on stderr, as lights --rdb says it.
    expect(run.stderr).toContain(RDB_BYTES_NOTE);
  });

  it('a good snapshot with a TMPDIR of 100 characters (too long for a unix socket under it) loads, and is not called corrupt', async () => {
    const base = path.join(fixture.dir, 'long-');
    const tmp = base + 't'.repeat(100 - base.length);
    expect(tmp).toHaveLength(100);
    mkdirSync(tmp);
    const run = await runCli(['inspect', 'light-2', '--system', 'payments', '--rdb', fixture.snapshot, '--at', String(AT), '--json'], { TMPDIR: tmp });
    expect(run.stderr).not.toMatch(/corrupt/);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { inspections: { totals: { successes: number } }[] }).inspections[0]?.totals.successes).toBe(30);
  });

  it("a truncated file: one line, exit 2, from the server's own load error", async () => {
    const whole = readFileSync(fixture.snapshot);
    const truncated = path.join(fixture.dir, 'truncated.rdb');
    writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
    const run = await runCli(['lights', '--rdb', truncated]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^swc: --rdb: .*truncated\.rdb cannot be loaded \(truncated or corrupt RDB version \d+\): .+\n$/);
  });
});
