/**
 * What `swc lights` costs the server against `redis-cli --memkeys` on the
 * same data (`npm run bench:scan [-- --rounds 5 --keys 200000 --lights 120 --write]`).
 *
 * A private server gets `--keys` application keys (strings, hashes, sorted
 * sets and lists, a quarter each: test/app-keys.ts) and `--lights` lights
 * written by swc's own 5.x and 6.0 scripts, half each, a few minutes of
 * traffic apiece. Then, for `--rounds` rounds, one `swc lights` (its
 * defaults: adaptive COUNT, 2 ms pause) and one `redis-cli --memkeys`, in
 * alternating order, each after `CONFIG RESETSTAT`. A command's server time
 * is the sum of `usec` over every `INFO commandstats` line but INFO and
 * CONFIG (the server's own accounting, not a wall time); its calls are
 * counted the same way. Prints the table (median and min–max over the
 * rounds); `--write` puts it into docs/operator.md's
 * `<!-- figure: lights-vs-memkeys -->` block. Exit 1 when swc's median
 * server time is above --memkeys'.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Redis } from 'ioredis';
import { createLayout } from '../src/layouts/index.js';
import { LayoutClient } from '../src/layouts/client.js';
import { parseInfo } from '../src/redis/info.js';
import { connect } from '../src/redis/connect.js';
import { startPrivateServer } from '../src/redis/server.js';
import { populateAppKeys } from '../test/app-keys.js';
import { writeFigure } from './figure-blocks.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Cost {
  readonly usec: number;
  readonly scan: number;
  readonly other: number;
  readonly wall: number;
}

function positive(name: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name}: a whole number of at least ${min}, got "${text}"`);
  return value;
}

/** Server usec and calls since the last CONFIG RESETSTAT, INFO and CONFIG left out. */
async function serverCost(redis: Redis): Promise<Omit<Cost, 'wall'>> {
  let usec = 0;
  let scan = 0;
  let other = 0;
  for (const [field, value] of Object.entries(parseInfo(await redis.info('commandstats')))) {
    if (!field.startsWith('cmdstat_')) continue;
    const name = field.slice('cmdstat_'.length);
    if (name === 'info' || name.startsWith('config')) continue;
    const calls = Number(/calls=(\d+)/.exec(value)?.[1] ?? 0);
    usec += Number(/usec=(\d+)/.exec(value)?.[1] ?? 0);
    if (name === 'scan') scan += calls;
    else other += calls;
  }
  return { usec, scan, other };
}

async function writeLights(redis: Redis, count: number): Promise<void> {
  const [nowText] = await redis.time();
  const now = Number(nowText);
  const clients = [await LayoutClient.open(redis, createLayout('stoplight-v5')), await LayoutClient.open(redis, createLayout('stoplight-v6'))];
  for (let i = 0; i < count; i += 1) {
    const client = clients[i % 2];
    if (client === undefined) continue;
    const light = i % 2 === 0 ? { name: `light-${i}` } : { system: `system-${i % 4}`, name: `light-${i}` };
    // 30 calls over the last five minutes, one in ten a failure.
    for (let k = 0; k < 30; k += 1) {
      const at = now - 300 + k * 10 + (i % 10);
      if (k % 10 === 3) await client.recordFailure(light, { windowSeconds: 300, at, errorJson: JSON.stringify({ error: { class: 'Timeout' }, time: at }) });
      else await client.recordSuccess(light, { windowSeconds: 300, at });
    }
  }
}

function run(program: string, args: readonly string[]): number {
  const started = process.hrtime.bigint();
  const child = spawnSync(program, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env: { ...process.env, REDIS_URL: '' } });
  if (child.status !== 0) throw new Error(`${program} ${args.join(' ')}: exit ${child.status}: ${child.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const spread = (values: readonly number[], digits: number, unit = ''): string =>
  `${median(values).toFixed(digits)}${unit} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
const count = (values: readonly number[]): string =>
  Math.min(...values) === Math.max(...values)
    ? Math.round(values[0] ?? 0).toLocaleString('en-US')
    : `${Math.min(...values).toLocaleString('en-US')}–${Math.max(...values).toLocaleString('en-US')}`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      keys: { type: 'string', default: '200000' },
      lights: { type: 'string', default: '120' },
      write: { type: 'boolean', default: false },
    },
  });
  const rounds = positive('rounds', values.rounds, 2);
  const keys = positive('keys', values.keys, 1000);
  const lights = positive('lights', values.lights, 2);
  const server = await startPrivateServer();
  const redis = await connect(server.url);
  const costs: Record<'swc' | 'memkeys', Cost[]> = { swc: [], memkeys: [] };
  let version = '';
  let dbsize = 0;
  try {
    version = parseInfo(await redis.info('server')).redis_version ?? '?';
    await populateAppKeys(redis, keys);
    await writeLights(redis, lights);
    dbsize = await redis.dbsize();
    const [host, port] = [new URL(server.url).hostname, new URL(server.url).port];
    const commands = {
      swc: () => run(process.execPath, [join(ROOT, 'bin/swc.js'), 'lights', '--redis-url', server.url, '--no-progress']),
      memkeys: () => run('redis-cli', ['-h', host, '-p', port, '--memkeys']),
    };
    for (let round = 0; round < rounds; round += 1) {
      const order: ('swc' | 'memkeys')[] = round % 2 === 0 ? ['swc', 'memkeys'] : ['memkeys', 'swc'];
      for (const name of order) {
        await redis.config('RESETSTAT');
        const wall = commands[name]();
        const cost = { ...(await serverCost(redis)), wall };
        costs[name].push(cost);
        process.stderr.write(
          `round ${round + 1}: ${name} ${(cost.usec / 1e6).toFixed(3)} s server, ${cost.scan} SCAN, ${cost.other} other, ${wall.toFixed(1)} s wall\n`,
        );
      }
    }
  } finally {
    redis.disconnect();
    await server.stop();
  }
  const row = (label: string, c: Cost[]): string =>
    `| ${label} | ${spread(
      c.map((x) => x.usec / 1e6),
      3,
    )} | ${count(c.map((x) => x.scan))} | ${count(c.map((x) => x.other))} | ${spread(
      c.map((x) => x.wall),
      1,
    )} |`;
  const ratios = costs.swc.map((c, i) => c.usec / (costs.memkeys[i]?.usec ?? Number.NaN));
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  const body = [
    '| command | server time, s | SCAN calls | other calls | wall time, s |',
    '| --- | ---: | ---: | ---: | ---: |',
    row('`swc lights`', costs.swc),
    row('`redis-cli --memkeys`', costs.memkeys),
    '',
    `swc's server time is ${spread(ratios, 2, '×')} that of \`--memkeys\` (per round).`,
    '',
    `_Median (min–max) of ${rounds} interleaved rounds; Redis ${version}, ${dbsize.toLocaleString('en-US')} keys (${keys.toLocaleString('en-US')} application keys, ${lights} lights), load average ${load} (${new Date().toISOString().slice(0, 10)}; regenerated by \`npm run bench:scan -- --write\`)._`,
  ].join('\n');
  process.stdout.write(`${body}\n`);
  if (values.write) writeFigure(join(ROOT, 'docs/operator.md'), 'lights-vs-memkeys', body);
  return median(costs.swc.map((c) => c.usec)) > median(costs.memkeys.map((c) => c.usec)) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench:scan: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
