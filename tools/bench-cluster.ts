// Throughput on a 3-shard private Redis Cluster against a 1-shard one, side
// by side in one run: the same layout, lights, rate, connections per shard and
// pipeline, measured by swc's own engine (runBench), the two clusters taking
// turns (1 3 1 3 …) so drift on a busy machine falls on both. Both are
// clusters (cluster-enabled yes), so the only difference is the shard count.
// Prints ops/s per phase, the 3/1 ratio, and where the CPU went: each node's
// used_cpu_sys + used_cpu_user from INFO cpu across its runs, and this
// process's own CPU (the client), against the machine's cores.
import os from 'node:os';
import { createNamespace } from '../src/run/namespace.js';
import { runBench } from '../src/bench/run.js';
import { openClusterSession } from '../src/redis/cluster.js';
import { parseInfo } from '../src/redis/info.js';
import { clusterTarget, type Target } from '../src/redis/target.js';
import type { ThroughputResult } from '../src/measure/types.js';
import type { ClusterSession } from '../src/redis/cluster.js';

const LAYOUT = process.env.LAYOUT ?? 'stoplight-v6';
const LIGHTS = Number(process.env.LIGHTS ?? 30);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 4);
const PIPELINE = Number(process.env.PIPELINE ?? 8);
const SECONDS = Number(process.env.SECONDS ?? 2);
const TURNS = Number(process.env.TURNS ?? 3);

const plan = {
  layouts: [LAYOUT],
  windows: [60],
  rates: [10],
  failureRate: 0.5,
  lights: LIGHTS,
  seed: 1,
  throughput: { connections: CONNECTIONS, pipeline: PIPELINE, seconds: SECONDS, rounds: 1 },
};

const cpuOf = async (session: ClusterSession): Promise<number[]> =>
  Promise.all(
    session.shards.map(async (s) => {
      const info = parseInfo(String(await s.redis.info('cpu')));
      return Number(info.used_cpu_sys ?? 0) + Number(info.used_cpu_user ?? 0);
    }),
  );

/** Busy and total milliseconds of every core of the machine, whoever used them. */
const machine = () =>
  os.cpus().reduce(
    (acc, c) => {
      const t = c.times;
      const busy = t.user + t.nice + t.sys + t.irq;
      return { busy: acc.busy + busy, total: acc.total + busy + t.idle };
    },
    { busy: 0, total: 0 },
  );

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (i: number): number => s[i] ?? NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? at(m) : (at(m - 1) + at(m)) / 2;
};

interface Setup {
  shards: number;
  session: ClusterSession;
  target: Target;
  runs: ThroughputResult[];
  nodeCpu: number[];
  clientCpu: number;
  wall: number;
  machineBusy: number;
  machineTotal: number;
}
interface Mark {
  nodes: Promise<number[]>;
  client: NodeJS.CpuUsage;
  machine: { busy: number; total: number };
  at: number;
}

const setups: Setup[] = [];
try {
  for (const shards of [1, 3]) {
    const session = await openClusterSession({ shards });
    setups.push({
      shards,
      session,
      target: clusterTarget(session),
      runs: [],
      nodeCpu: session.shards.map(() => 0),
      clientCpu: 0,
      wall: 0,
      machineBusy: 0,
      machineTotal: 0,
    });
  }
  for (let turn = 0; turn < TURNS; turn += 1) {
    for (const s of setups) {
      // From the start of the write phase (after the fill and memory phase) to the end of the run.
      let from: Mark | undefined;
      const report = await runBench({
        shards: s.target,
        plan,
        namespace: createNamespace(),
        progress: {
          onPhase: (_cell, phase) => {
            if (phase === 'write') from = { nodes: cpuOf(s.session), client: process.cpuUsage(), machine: machine(), at: performance.now() };
          },
        },
      });
      if (!from) throw new Error('bench-cluster: the run had no write phase');
      const until = { client: process.cpuUsage(from.client), machine: machine(), at: performance.now() };
      const before = await from.nodes;
      const after = await cpuOf(s.session);
      s.wall += (until.at - from.at) / 1000;
      s.clientCpu += (until.client.user + until.client.system) / 1e6;
      after.forEach((c, i) => (s.nodeCpu[i] = (s.nodeCpu[i] ?? 0) + c - (before[i] ?? 0)));
      s.machineBusy += until.machine.busy - from.machine.busy;
      s.machineTotal += until.machine.total - from.machine.total;
      const throughput = report.results[0]?.throughput;
      if (!throughput) throw new Error('bench-cluster: the run reported no throughput');
      s.runs.push(throughput);
      process.stderr.write(
        `bench-cluster: turn ${turn + 1}/${TURNS}, ${s.shards} shard(s): write ${Math.round(throughput.write.opsPerSec).toLocaleString('en-US')} ops/s\n`,
      );
    }
  }
  const cores = os.cpus().length;
  console.log(
    `swc bench-cluster: ${LAYOUT}, ${LIGHTS} lights, ${CONNECTIONS} connection(s) per shard × pipeline ${PIPELINE}, ${SECONDS} s per phase, ${TURNS} turns (1 3 1 3 …), medians`,
  );
  console.log(
    `machine: ${cores} core(s), load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (other work shares it: read the ratio, not the figures)`,
  );
  console.log('');
  console.log('phase     1 shard ops/s   3 shards ops/s   3 / 1   p50 ms (1 → 3)');
  const [one, three] = setups as [Setup, Setup];
  for (const phase of ['write', 'read', 'request'] as const) {
    const a = median(one.runs.map((t) => t[phase].opsPerSec));
    const b = median(three.runs.map((t) => t[phase].opsPerSec));
    const pa = median(one.runs.map((t) => t[phase].p50Ms));
    const pb = median(three.runs.map((t) => t[phase].p50Ms));
    console.log(
      `${phase.padEnd(9)} ${Math.round(a).toLocaleString('en-US').padStart(13)}   ${Math.round(b).toLocaleString('en-US').padStart(14)}   ${(b / a).toFixed(2).padStart(4)}×   ${pa.toFixed(3)} → ${pb.toFixed(3)}`,
    );
  }
  console.log('');
  console.log('CPU over the throughput phases (seconds):');
  for (const s of setups) {
    const nodes = s.nodeCpu.reduce((x, y) => x + y, 0);
    console.log(
      `  ${s.shards} shard(s): redis-server ${s.nodeCpu.map((c) => c.toFixed(2)).join(' + ')} = ${nodes.toFixed(2)} s, client (this process) ${s.clientCpu.toFixed(2)} s, ` +
        `in ${s.wall.toFixed(2)} s: swc used ${((nodes + s.clientCpu) / s.wall).toFixed(2)} of ${cores} cores; the machine was ${Math.round((100 * s.machineBusy) / s.machineTotal)}% busy`,
    );
  }
  const busy = (s: Setup): number => s.machineBusy / s.machineTotal;
  const ours = (s: Setup): number => (s.nodeCpu.reduce((x, y) => x + y, 0) + s.clientCpu) / s.wall;
  console.log('');
  console.log(
    busy(three) > 0.9
      ? `limit: CPU. The machine's ${cores} cores were ${Math.round(100 * busy(three))}% busy during the 3-shard phases (swc's nodes and client ${ours(three).toFixed(2)} cores of it, other work the rest): ` +
          `three redis-servers and the client share ${cores} cores, so a third shard adds processes, not CPU, and more nodes means more context switches and round trips per call. On a machine with a core per node (and one for the client) the ratio would be higher.`
      : `limit: not CPU (the machine was ${Math.round(100 * busy(three))}% busy): the client's ${CONNECTIONS} × ${PIPELINE} calls in flight per shard, i.e. round trips, set the pace`,
  );
} finally {
  for (const s of setups) await s.session.close();
}
