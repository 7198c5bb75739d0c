/**
 * The time guard's differential fuzz, longer than the suite's run
 * (`npm run bench:guard-fuzz [-- --count 5000 --seed 7 --budget 50]`).
 *
 * Generates `--count` scripts of `--seed` (test/lua-fuzz.ts), and runs each
 * on a private redis-server with the guard (src/lua/guard.ts) and, when it
 * ends, without: prints how many answered the same, how many endless ones
 * the guard stopped, how many it could not read (and Lua could not compile
 * either), and for the endless ones how long past its budget a stop came
 * (the server's own clock around the call, median and max). Exit 1 on any
 * difference. Prints the load average it ran under.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { connect } from '../src/redis/connect.js';
import { startPrivateServer } from '../src/redis/server.js';
import { differential, fuzzScript } from '../test/lua-fuzz.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '7' },
    budget: { type: 'string', default: '50' },
  },
});
const count = Number(values.count);
const seed = Number(values.seed);
const budgetMs = Number(values.budget);

const server = await startPrivateServer({});
const redis = await connect(server.url);
const serverUs = async (): Promise<number> => {
  const [s, us] = (await redis.call('TIME')) as [string, string];
  return Number(s) * 1e6 + Number(us);
};
const load = loadavg()[0] ?? 0;
let same = 0;
let endless = 0;
let stopped = 0;
let refused = 0;
const overMs: number[] = [];
const wrong: string[] = [];
const started = Date.now();
try {
  for (let i = 0; i < count; i += 1) {
    const script = fuzzScript(seed, i);
    const before = await serverUs();
    const result = await differential(redis, script, 'swc-guard-fuzz', budgetMs);
    const tookMs = ((await serverUs()) - before) / 1000;
    if (typeof result.guarded === 'string' && result.guarded.startsWith('refused: ')) refused += 1;
    if (script.loops) {
      endless += 1;
      if (result.stopped) {
        stopped += 1;
        overMs.push(tookMs - budgetMs);
      }
    }
    if (result.same) same += 1;
    else wrong.push(`#${i}: ${JSON.stringify(script.source)}\n  plain: ${JSON.stringify(result.plain)}\n  guarded: ${JSON.stringify(result.guarded)}`);
  }
} finally {
  redis.disconnect();
  await server.stop();
}
overMs.sort((a, b) => a - b);
const ms = (v: number | undefined): string => (v === undefined ? '-' : `${v.toFixed(1)} ms`);
console.log(
  `guard fuzz: seed ${seed}, ${count} scripts, budget ${budgetMs} ms, load ${load.toFixed(2)} at start, ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
console.log(`  same answer with and without the guard: ${same} of ${count}`);
console.log(`  endless scripts stopped by the guard:  ${stopped} of ${endless}`);
console.log(`  refused by the guard's parser (and by Lua): ${refused}`);
console.log(`  a stop past the budget (server clock, with the round trip): median ${ms(overMs[Math.floor(overMs.length / 2)])}, max ${ms(overMs.at(-1))}`);
for (const line of wrong.slice(0, 10)) console.log(line);
process.exitCode = wrong.length === 0 ? 0 : 1;
