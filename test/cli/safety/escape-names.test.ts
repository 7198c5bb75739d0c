/**
 * Names from Redis are escaped and cut in every format (#29): a registry
 * name holding an OSC title and a screen clear reached CSV stdout raw, and
 * a 180 KB name made a 180 KB table line.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { shortId, StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { execPipeline, installScripts } from '../../../src/redis/scripts.js';
import { type PrivateServer } from '../../../src/redis/server.js';
import { MAX_CELL_CHARS } from '../../../src/report/table.js';
import { HOUR_START, ownServer } from '../../helpers.js';
import { runCli } from '../run-cli.js';

const HOSTILE = 'pay\x1b]0;pwned\x07\x1b[2Jment';
const HUGE = `big-${'x'.repeat(180_000)}`;
/** A right-to-left override (the rest reads backwards) and a C1 control sequence introducer (#41). */
const BIDI = 'inv\u202eoice\u009b2J';
/** A name a spreadsheet would run as a formula from CSV (#41). */
const FORMULA = "=cmd|' /C calc'!A0";
const NAMES = [HOSTILE, HUGE, BIDI, FORMULA];
const AT = HOUR_START + 61;
/** Any C0 control but the newline, DEL or a C1 control: what a terminal acts on. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** What a terminal acts on and JSON.stringify leaves raw: DEL, C1 and the bidirectional formatting characters. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

let server: PrivateServer;
let redis: Redis;
const v6 = new StoplightV6();

ownServer(async (s, r) => {
  server = s;
  redis = r;
  await installScripts(redis, v6.scripts);
  const calls = NAMES.flatMap((name) => [
    v6.recordSuccess({ name, system: 'payments' }, { at: HOUR_START + 30, windowSeconds: 60 }),
    v6.recordFailure({ name, system: 'payments' }, { at: HOUR_START + 31, windowSeconds: 60, errorJson: '{}' }),
  ]);
  await execPipeline(redis, calls);
  // The registry is where 6.0 names come from: its config names each light.
  for (const name of NAMES) {
    const entry = { meta: { version: 1, registered_at: HOUR_START }, config: { id: shortId(name), name, window_size: 60, threshold: 0.5 } };
    await redis.hset(`stoplight:v6:${shortId('payments')}:lights`, shortId(name), JSON.stringify(entry));
  }
  // A garbage registry field named with controls: its problem line is escaped too.
  await redis.hset(`stoplight:v6:${shortId('payments')}:lights`, `bad\x1b[2J`, 'not json');
});

describe('names from Redis in every format', () => {
  it.each([['table'], ['markdown'], ['csv']])('lights --format %s: escaped, no raw control character, no line past the cell bound', async (format) => {
    const run = await runCli(['lights', '--redis-url', server.url, '--at', String(AT), '--format', format], { COLUMNS: '400' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(RAW);
    expect(run.stderr).not.toMatch(RAW);
    expect(run.stdout).toContain('pay\\x1b]0;pwned\\x07\\x1b[2Jment');
    expect(run.stdout).toContain('inv\\u202eoice\\x9b2J');
    if (format === 'csv') {
      // The common rule against CSV injection: a cell a spreadsheet would evaluate starts with an apostrophe.
      expect(run.stdout).toContain(`'${FORMULA}`);
      for (const line of run.stdout.split('\n')) expect(line).not.toMatch(/(^|,)"?[=+@]/);
    }
    const longest = Math.max(...run.stdout.split('\n').map((l) => l.length));
    // A table line holds a few cells; the 180,004-character name is cut in each.
    expect(longest).toBeLessThan(8 * MAX_CELL_CHARS);
    // A table is fitted to the terminal (COLUMNS) first; markdown and CSV are cut at the cell bound, saying so.
    if (format !== 'table') expect(run.stdout).toMatch(/big-x+… \(180,0\d\d characters\)/);
  });

  it('--json keeps the exact names, with C1 and bidirectional controls written as \\u escapes', async () => {
    const run = await runCli(['lights', '--redis-url', server.url, '--at', String(AT), '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(RAW_IN_JSON);
    expect(run.stdout).toContain('inv\\u202eoice\\u009b2J');
    const names = (JSON.parse(run.stdout) as { lights: { lightName: string | null }[] }).lights.map((l) => l.lightName);
    expect(names).toContain(HOSTILE);
    expect(names).toContain(HUGE);
    expect(names).toContain(BIDI);
    expect(names).toContain(FORMULA);
  });
});
