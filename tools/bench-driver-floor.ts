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
import { RequestWriter, RespConnection, StoplightV6, connect, installScripts, runLoad, startPrivateServer } from '../dist/index.js';
import { redisBenchmark } from './redis-benchmark.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '60' },
    ops: { type: 'string', default: '3000' },
    pin: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const ops = Number(values.ops);
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const shuffled = (xs) => {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

const server = await startPrivateServer();
let redis;
let connection;
let socket;
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

  connection = await RespConnection.open(redis.options);
  // The bare loop: one reply per read is assumed (each is a short integer reply, one round trip at a time).
  const readBuffer = Buffer.allocUnsafe(64 * 1024);
  let left = 0;
  let finished = () => undefined;
  socket = net.connect({
    host: '127.0.0.1',
    port: server.port,
    onread: {
      buffer: readBuffer,
      callback: () => {
        left -= 1;
        if (left === 0) finished();
        else socket.write(request);
        return true;
      },
    },
  });
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));

  /** Microseconds per call of each contender. */
  const contenders = {
    'redis-benchmark': async () => 1e6 / (await redisBenchmark(server.port, { connections: 1, pipeline: 1, ops }, command, values.pin ? ['taskset', '-c', '1'] : [])),
    bare: async () => {
      const started = performance.now();
      await new Promise((resolve) => {
        finished = resolve;
        left = ops;
        socket.write(request);
      });
      return ((performance.now() - started) * 1000) / ops;
    },
    connection: async () => {
      const started = performance.now();
      for (let i = 0; i < ops; i += 1) await connection.send(request, 1);
      return ((performance.now() - started) * 1000) / ops;
    },
    engine: async () => {
      const result = await runLoad({ connections: [connection], pipeline: 1, stop: { ops }, nextCall: () => call });
      return 1e6 / result.opsPerSec;
    },
  };
  const names = Object.keys(contenders);
  for (const name of names) await contenders[name](); // warm-up, not recorded
  const ratios = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const usec = {};
    for (const name of shuffled(names)) usec[name] = await contenders[name]();
    for (const name of names) ratios[name].push(usec['redis-benchmark'] / usec[name]);
  }
  console.log(`EVALSHA ${call.script.id}, one connection, no pipelining; ${rounds} rounds of ${ops} calls each, random order${values.pin ? ', pinned (server CPU 0, clients CPU 1)' : ''}`);
  console.log('ops/s over redis-benchmark in the same round: median (min–max)');
  for (const name of names) {
    const xs = ratios[name];
    console.log(`${name.padEnd(16)} ${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`);
  }
} finally {
  socket?.destroy();
  connection?.close();
  redis?.disconnect();
  await server.stop();
}
