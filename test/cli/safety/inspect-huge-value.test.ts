/**
 * `swc inspect` on a light whose metadata holds an 8 MB `last_error_json`:
 * the value is never pulled off the server (HSTRLEN names its size, HMGET
 * reads only the fields under the bound), and human and JSON output say it
 * was not read and how many bytes it has.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { LayoutClient } from '../../../src/layouts/client.js';
import { MAX_READ_VALUE_BYTES, notRead } from '../../../src/layouts/inspection-keys.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { cutOnly, shown } from '../../../src/safety/text.js';
import { runCli } from '../run-cli.js';
import { HOUR_START, withPrivateServer } from '../../helpers.js';

const HUGE = 8 * 1024 * 1024;

/** Bytes the server has sent to its clients so far (INFO stats). */
async function sentBytes(redis: Redis): Promise<number> {
  return Number(/total_net_output_bytes:(\d+)/.exec(await redis.info('stats'))?.[1]);
}

describe('an 8 MB last_error_json in a Stoplight 5.x metadata hash', () => {
  it('inspect reads its size, not its bytes, and says so in the table and in JSON; the other fields are read', async () => {
    await withPrivateServer({}, async (server, redis) => {
      const client = await LayoutClient.open(redis, new StoplightV5());
      const errorJson = JSON.stringify({ error: { class: 'Boom', message: 'x'.repeat(HUGE) }, time: HOUR_START });
      await client.recordFailure({ name: 'huge' }, { at: HOUR_START, windowSeconds: 60, errorJson });
      const bytes = Buffer.byteLength(errorJson);
      expect(await redis.hstrlen('stoplight:v5:metadata:huge', 'last_error_json')).toBe(bytes);

      for (const json of [false, true]) {
        const before = await sentBytes(redis);
        const run = await runCli(['inspect', 'huge', '--redis-url', server.url, '--at', String(HOUR_START), ...(json ? ['--json'] : [])]);
        const sent = (await sentBytes(redis)) - before;
        expect(run.code).toBe(0);
        // Well under the value: it stayed on the server.
        expect(sent).toBeLessThan(MAX_READ_VALUE_BYTES * 2);
        expect(run.stdout.length).toBeLessThan(20_000);
        if (json) {
          const doc = JSON.parse(run.stdout) as { inspections: { metadata: { fields: Record<string, string> } }[] };
          const fields = doc.inspections[0]?.metadata.fields ?? {};
          expect(fields.last_error_json).toBe(notRead(bytes));
          expect(fields.last_error_at).toBe(String(HOUR_START));
        } else {
          expect(run.stdout).toMatch(new RegExp(`last_error_json +${shown(notRead(bytes)).replace(/[[\]]/g, '\\$&')}`));
          expect(run.stdout).not.toMatch(/not valid JSON/);
          // The keys table counts it at its real size.
          expect(run.stdout).toContain(`${bytes}/64 value of last_error_json`);
        }
      }
    });
  });
});

describe('the cut itself', () => {
  it('human output escapes and cuts; JSON cuts without escaping; both name the size in bytes', () => {
    const long = `\x1b${'é'.repeat(300)}`;
    expect(shown(long)).toMatch(/^\\x1bé+… \(601 bytes\)$/);
    expect(cutOnly(long, 10)).toBe(`\x1b${'é'.repeat(9)}… (601 bytes)`);
    expect(cutOnly('short', 10)).toBe('short');
  });
});
