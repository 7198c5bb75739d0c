// What one connection without pipelining can reach from Node at all, beside
// swc's engine and redis-benchmark on the identical EVALSHA: the floor that
// `npm run bench:driver`'s c=1 P=1 line is held against.
//
// Four contenders, each run `ops` calls one at a time on one connection:
//   redis-benchmark  -c 1 -P 1 (the reference, 1.000)
//   bare             a plain Node socket: write, one `onread` callback, write
//                    again; no parsing, no bookkeeping, no latency record
//   connection       swc's lean RespConnection: `await send()` per call
//   engine           swc's runLoad (what `swc bench` measures with)
// Every round runs all four in a random order (the run straight after a
// redis-benchmark run measured up to 10% faster here, so a fixed order
// favours whoever follows it); each contender's figure is the median over
// rounds of its ops/s over redis-benchmark's in the same round.
//
// With --pin (needs taskset), redis-server runs on CPU 0 and this process and
// redis-benchmark on CPU 1, so the scheduler's placement is the same for all.
//
// Usage: npm run bench:driver-floor [-- --rounds 60 --ops 3000 --pin]
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { parseArgs } from 'node:util';
import { StoplightV6 } from '../src/layouts/stoplight/v6.js';
import { runLoad } from '../src/measure/load.js';
import { connect } from '../src/redis/connect.js';
import { RequestWriter, RespConnection } from '../src/redis/resp.js';
import { installScripts } from '../src/redis/scripts.js';
import { startPrivateServer } from '../src/redis/server.js';
import { redisBenchmark } from './redis-benchmark.js';
import type { Redis } from 'ioredis';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '60' },
    ops: { type: 'string', default: '3000' },
    pin: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const ops = Number(values.ops);
const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (i: number): number => sorted[i] ?? NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
};
const shuffled = <T>(xs: readonly T[]): T[] => {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
};

const server = await startPrivateServer();
let redis: Redis | undefined;
let connection: RespConnection | undefined;
let socket: net.Socket | undefined;
try {
  if (values.pin) {
    const pinned = [spawnSync('taskset', ['-acp', '0', String(server.pid)]), spawnSync('taskset', ['-acp', '1', String(process.pid)])];
    if (pinned.some((r) => r.status !== 0)) throw new Error('--pin: taskset failed (is it installed, and are there two CPUs?)');
  }
  redis = await connect(server.url);
  const layout = new StoplightV6({ prefix: 'swc-driver:stoplight:v6' });
  await installScripts(redis, layout.scripts);
  const call = layout.recordSuccess({ name: 'driver' }, { windowSeconds: 600, at: 1_764_450_000 });
  const writer = new RequestWriter();
  writer.add(call);
  const request = Buffer.from(writer.bytes());
  const command = ['EVALSHA', call.script.sha1, String(call.keys.length), ...call.keys, ...call.args.map(String)];

  const open = await RespConnection.open(redis.options);
  connection = open;
  // The bare loop: one reply per read is assumed (each is a short integer reply, one round trip at a time).
  const readBuffer = Buffer.allocUnsafe(64 * 1024);
  let left = 0;
  let finished: () => void = () => undefined;
  const bare: net.Socket = net.connect({
    host: '127.0.0.1',
    port: server.port,
    onread: {
      buffer: readBuffer,
      callback: () => {
        left -= 1;
        if (left === 0) finished();
        else bare.write(request);
        return true;
      },
    },
  });
  socket = bare;
  bare.setNoDelay(true);
  await new Promise((resolve, reject) => bare.once('connect', resolve).once('error', reject));

  /** Microseconds per call of each contender. */
  const contenders: Record<string, () => Promise<number>> = {
    'redis-benchmark': async () =>
      1e6 / (await redisBenchmark(server.port, { connections: 1, pipeline: 1, ops }, command, values.pin ? ['taskset', '-c', '1'] : [])),
    bare: async () => {
      const started = performance.now();
      await new Promise<void>((resolve) => {
        finished = resolve;
        left = ops;
        bare.write(request);
      });
      return ((performance.now() - started) * 1000) / ops;
    },
    connection: async () => {
      const started = performance.now();
      for (let i = 0; i < ops; i += 1) await open.send(request, 1);
      return ((performance.now() - started) * 1000) / ops;
    },
    engine: async () => {
      const result = await runLoad({ connections: [open], pipeline: 1, stop: { ops }, nextCall: () => call });
      return 1e6 / result.opsPerSec;
    },
  };
  const names = Object.keys(contenders);
  const run = (name: string): Promise<number> => (contenders[name] as () => Promise<number>)();
  for (const name of names) await run(name); // warm-up, not recorded
  const ratios = new Map<string, number[]>(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const usec = new Map<string, number>();
    for (const name of shuffled(names)) usec.set(name, await run(name));
    for (const name of names) ratios.get(name)?.push((usec.get('redis-benchmark') ?? NaN) / (usec.get(name) ?? NaN));
  }
  console.log(
    `EVALSHA ${call.script.id}, one connection, no pipelining; ${rounds} rounds of ${ops} calls each, random order${values.pin ? ', pinned (server CPU 0, clients CPU 1)' : ''}`,
  );
  console.log('ops/s over redis-benchmark in the same round: median (min–max)');
  for (const name of names) {
    const xs = ratios.get(name) ?? [];
    console.log(`${name.padEnd(16)} ${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`);
  }
} finally {
  socket?.destroy();
  connection?.close();
  redis?.disconnect();
  await server.stop();
}
