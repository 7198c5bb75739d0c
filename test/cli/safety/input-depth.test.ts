/**
 * No walk over an input's depth or size on the call stack (#41): a result
 * with an unknown field nested 10,000 deep (or a million) overflowed `swc compare`, and
 * a 6.0 hash with 150,000 fields that are not buckets overflowed
 * `swc inspect`. Both now answer as for any other such input.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { testServer } from '../../helpers.js';
import { runCli } from '../run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-depth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const BASELINE = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));

/** Deep enough: 10,000 already overflowed the walk that copied a result for printing. */
const DEPTH = 100_000;
const JUNK_FIELDS = 150_000;

/** Fills a hash with `count` fields `junk<i>` = `x`, 1,000 per HSET, in one script on the test's own server. */
const FILL = `
local count = tonumber(ARGV[1])
for from = 1, count, 1000 do
  local args = {}
  for i = from, math.min(count, from + 999) do
    args[#args + 1] = 'junk' .. i
    args[#args + 1] = 'x'
  end
  redis.call('HSET', KEYS[1], unpack(args))
end
return redis.call('HLEN', KEYS[1])
`;

describe.concurrent('inputs deeper or wider than the call stack', () => {
  it('compare: a result with an unknown field nested 100,000 deep, in every format and --json', async () => {
    const text = readFileSync(BASELINE, 'utf8');
    const deep = path.join(dir, 'deep.json');
    // An unknown field is carried along unchecked: its depth is the file's own.
    writeFileSync(deep, text.replace(/^\{/, `{"extra":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)},`));
    const runs = [['--format', 'table'], ['--format', 'markdown'], ['--format', 'csv'], ['--format', 'github'], ['--json'], ['--across-builds']].map(
      async (args) => ({ args: args.join(' '), r: await runCli(['compare', BASELINE, deep, ...args]) }),
    );
    runs.push(runCli(['compare', deep, BASELINE]).then((r) => ({ args: 'as the baseline', r })));
    for (const { args, r } of await Promise.all(runs)) {
      expect(r.stderr, args).not.toMatch(/call stack/);
      expect(r.code, args).toBe(0);
    }
  });

  it('inspect: a 6.0 light whose hash holds 150,000 fields that are not buckets: shown with the rest counted; --json has every field', async (context) => {
    const { server, redis } = await testServer(context);
    const light = { name: 'huge', system: 'payments' };
    const key = new StoplightV6().metricsKey(light);
    expect(await redis.eval(FILL, 1, key, String(JUNK_FIELDS))).toBe(JUNK_FIELDS);
    await redis.hset(key, 'total_successes', '1', 'total_failures', '0');
    const args = ['inspect', '--redis-url', server.url, '--layout', 'stoplight-v6', '--system', 'payments', 'huge'];
    const table = await runCli(args);
    expect(table.stderr).not.toMatch(/call stack/);
    // Exit 1: a finding, the index of its buckets is missing (said on stderr); never exit 3.
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/… and 149,80\d more fields \(--json lists them all\)/);
    const json = await runCli([...args, '--json']);
    expect(json.code).toBe(1);
    const fields = (JSON.parse(json.stdout) as { inspections: { metadata: { fields: Record<string, string> } }[] }).inspections[0]?.metadata.fields ?? {};
    expect(Object.keys(fields).filter((f) => f.startsWith('junk'))).toHaveLength(JUNK_FIELDS);
  });
});
