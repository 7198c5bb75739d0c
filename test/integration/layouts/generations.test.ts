/**
 * Every Stoplight 6.0 generation swc knows runs with `--scripts <tree>` and
 * no manifest of the user's: bench measures it and verify holds it to the
 * model. The trees are Stoplight-shaped with swc's own Lua (stoplight-tree.ts).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import { runBench } from '../../../src/bench/run.js';
import { createLayout } from '../../../src/layouts/index.js';
import { recognizeV6 } from '../../../src/layouts/stoplight/generations.js';
import { classifyScriptsDir, scriptsDirLayouts } from '../../../src/layouts/stoplight/scripts-dir.js';
import { openSession, type Session } from '../../../src/redis/connect.js';
import { verifyLayout } from '../../../src/verify/verify.js';
import { stoplight6Tree, stoplightZsetTree } from './stoplight-tree.js';

const TREES = {
  'hourly-a': () => stoplightZsetTree('hourly-a'),
  'hourly-b': () => stoplightZsetTree('hourly-b'),
  'hourly-c': () => stoplightZsetTree('hourly-c'),
  'hourly-d': () => stoplightZsetTree('hourly-d'),
  'sliding-log-a': () => stoplightZsetTree('sliding-log-a'),
  'sliding-log-b': () => stoplightZsetTree('sliding-log-b'),
  'hash-a': () => stoplight6Tree('argv'),
  'hash-b': () => stoplight6Tree('argv', { evictBatchSizeLine: true }),
  'hash-c': () => stoplight6Tree('time'),
} as const;
type Generation = keyof typeof TREES;
const GENERATIONS = Object.keys(TREES) as Generation[];

let session: Session;
const trees = new Map<Generation, string>();
beforeAll(async () => {
  session = await openSession();
  for (const g of GENERATIONS) trees.set(g, TREES[g]());
});
afterAll(async () => {
  await session.close();
  for (const dir of trees.values()) rmSync(dir, { recursive: true, force: true });
});

describe('every 6.0 generation runs from its tree alone', () => {
  it.concurrent.each(GENERATIONS)('%s: recognised and verified against the model with no finding', async (generation) => {
    const tree = trees.get(generation) as string;
    const found = classifyScriptsDir(tree);
    expect(found.kind === 'stoplight' ? recognizeV6(found.v6Root as string)?.id : null).toBe(generation);
    const result = await verifyLayout(session, createLayout('stoplight-v6', { scriptsDir: tree }), { trustScripts: true, seed: 9, calls: 300 });
    expect(result.findings).toBe(0);
    expect(result.compared).toBeGreaterThan(50);
  });

  it('each is benched by the layouts its tree provides (runs take turns on one server)', async () => {
    for (const generation of GENERATIONS) {
      const tree = trees.get(generation) as string;
      const layouts = scriptsDirLayouts(tree);
      expect(layouts).toEqual(['stoplight-v6']);
      const report = await runBench({
        session,
        plan: { layouts, windows: [60], rates: [4], failureRate: 0.3, lights: 1, seed: 5, scriptsDir: tree, commandsPerCall: false },
        namespace: createNamespace(),
      });
      expect(report.results.map((r) => [r.layout, r.memory.bytesPerLight > 0])).toEqual([['stoplight-v6', true]]);
      // The keys measured are the generation's own: hourly keys, two logs, or the hash and its index.
      const roles = report.results[0]?.memory.keys.map((k) => k.role).sort();
      expect(roles, generation).toEqual(generation.startsWith('hash') ? ['index', 'metrics'] : ['failure events', 'metrics', 'success events']);
    }
  });
});
