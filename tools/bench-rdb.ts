/**
 * How far `lights --rdb` bytes are from the live server's (`npm run
 * bench:rdb`): lights written with swc's own 5.x and 6.0 writers on a private
 * server (the lights of `swc demo`, larger lights past the listpack limits,
 * and one 6.0 light stopped right after its hash table began to grow, so
 * that it is caught mid-rehash), their bytes read live (`swc lights`' own
 * listing, MEMORY USAGE … SAMPLES 0), then SAVE, and the same listing over
 * the RDB loaded as `--rdb` loads it. Prints a Markdown table per layout and
 * the mid-rehash light; with `--write-docs` replaces the `rdb-vs-live`
 * figure block of docs/operator.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { runDemo } from '../src/demo/demo.js';
import { listLights } from '../src/inspect/list.js';
import { LayoutClient } from '../src/layouts/client.js';
import { nameId } from '../src/layouts/kit/keys.js';
import { StoplightV5 } from '../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../src/layouts/stoplight/v6.js';
import type { LightListing } from '../src/layouts/inspection.js';
import { startRdbServer } from '../src/redis/rdb-server.js';
import { startPrivateServer } from '../src/redis/server.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = join(ROOT, 'docs/operator.md');
const FIGURE = /<!-- figure: rdb-vs-live -->\n[\s\S]*?<!-- \/figure -->/;
const ERROR_JSON = JSON.stringify({ error: { class: 'Timeout::Error', message: 'execution expired' }, time: 1764450000 });

const v5 = new StoplightV5();
const v6 = new StoplightV6();

/** Larger lights: past the listpack limits, as busy lights are. */
async function writeLargeLights(redis: Redis, now: number): Promise<void> {
  const c5 = await LayoutClient.open(redis, v5);
  const c6 = await LayoutClient.open(redis, v6);
  for (const events of [3_000, 9_000]) {
    const sent: Promise<unknown>[] = [];
    for (let e = 0; e < events; e++) {
      const options = { windowSeconds: 600, at: now - 600 + (e * 600) / events };
      for (const c of [c5, c6]) {
        if (e % 10 === 0) sent.push(c.recordFailure({ name: `large-${events}` }, { ...options, errorJson: ERROR_JSON }));
        else sent.push(c.recordSuccess({ name: `large-${events}` }, options));
      }
    }
    await Promise.all(sent);
  }
}

/**
 * A 6.0 light whose metrics hash is caught mid-rehash: one bucket second at
 * a time until MEMORY USAGE jumps by a table's worth of slots (the hash table
 * doubled and Redis rehashes it step by step, only on later writes to that
 * key), then no more writes. Returns the bytes of the jump.
 */
async function writeRehashingLight(redis: Redis, now: number): Promise<{ name: string; jumpBytes: number }> {
  const client = await LayoutClient.open(redis, v6);
  const light = { name: 'mid-rehash' };
  const key = v6.metricsKey(light);
  let before = 0;
  for (let s = 0; s < 3_000; s++) {
    const at = now - 3_000 + s;
    await client.recordSuccess(light, { windowSeconds: 3_600, at });
    const bytes = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    const fields = await redis.hlen(key);
    // A jump of at least 8 B per field (a new table of pointers) that is not the listpack's conversion.
    if (before > 0 && fields > 600 && bytes - before > 8 * fields * 0.9) return { name: light.name, jumpBytes: bytes - before };
    before = bytes;
  }
  throw new Error('no rehash caught in 3,000 seconds of buckets');
}

interface Totals {
  lights: number;
  live: number;
  rdb: number;
  /** Per light, the RDB's bytes against the live ones (fractions). */
  diffs: number[];
}

const pct = (f: number): string => `${f >= 0 ? '+' : ''}${(f * 100).toFixed(1)}%`;

const byRef = (lights: readonly LightListing[]): Map<string, LightListing> => new Map(lights.map((l) => [`${l.layout} ${l.reference}`, l]));

async function main(): Promise<void> {
  const server = await startPrivateServer();
  const redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let text = '';
  try {
    const now = Number((await redis.time())[0]);
    await runDemo(redis, { marked: false });
    await writeLargeLights(redis, now);
    const rehash = await writeRehashingLight(redis, now);
    const live = await listLights(redis, { exactMemory: true, at: now });
    await redis.call('SAVE');
    const dir = ((await redis.config('GET', 'dir')) as string[])[1] as string;
    const file = ((await redis.config('GET', 'dbfilename')) as string[])[1] as string;
    const info = await redis.info('server');
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? '?';
    const snapshot = await startRdbServer(join(dir, file));
    let loaded;
    try {
      loaded = await listLights(snapshot.redis, { exactMemory: true, at: now });
    } finally {
      await snapshot.stop();
    }
    const fromRdb = byRef(loaded.lights);
    const totals = new Map<string, Totals>();
    let rehashLine = '';
    for (const light of live.lights) {
      const other = fromRdb.get(`${light.layout} ${light.reference}`);
      if (!other || light.bytes === null || other.bytes === null) continue;
      if (light.layout === 'stoplight-v6' && light.light === nameId(rehash.name)) {
        rehashLine = `mid-rehash 6.0 light (${(light.events ?? 0).toLocaleString('en-US')} events): live ${light.bytes.toLocaleString('en-US')} B, from the RDB ${other.bytes.toLocaleString('en-US')} B (${pct((other.bytes - light.bytes) / light.bytes)}); the growing table added ${rehash.jumpBytes.toLocaleString('en-US')} B when it began to rehash`;
        continue;
      }
      const t = totals.get(light.layout) ?? { lights: 0, live: 0, rdb: 0, diffs: [] };
      t.diffs.push((other.bytes - light.bytes) / light.bytes);
      t.lights += 1;
      t.live += light.bytes;
      t.rdb += other.bytes;
      totals.set(light.layout, t);
    }
    const rows = [...totals].map(
      ([layout, t]) =>
        `| ${layout} | ${t.lights} | ${t.live.toLocaleString('en-US')} | ${t.rdb.toLocaleString('en-US')} | ${pct((t.rdb - t.live) / t.live)} | ${pct(Math.min(...t.diffs))} to ${pct(Math.max(...t.diffs))} |`,
    );
    text = [
      '| layout | lights | live bytes | from the RDB | RDB vs live | per light |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
      '',
      rehashLine,
      '',
      `_Redis ${version}, lights written by swc's own writers (the demo's 8, two of 3,000 and 9,000 events, one caught mid-rehash); MEMORY USAGE … SAMPLES 0 on both sides; regenerated by \`npm run bench:rdb -- --write-docs\`._`,
    ].join('\n');
  } finally {
    redis.disconnect();
    await server.stop();
  }
  process.stdout.write(`${text}\n`);
  if (process.argv.includes('--write-docs')) {
    const doc = readFileSync(DOC, 'utf8');
    if (!FIGURE.test(doc)) throw new Error('docs/operator.md has no <!-- figure: rdb-vs-live --> block');
    writeFileSync(DOC, doc.replace(FIGURE, `<!-- figure: rdb-vs-live -->\n${text}\n<!-- /figure -->`));
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench-rdb: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(3);
});
