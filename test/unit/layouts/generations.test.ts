import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recognizeV6, type V6GenerationId } from '../../../src/layouts/stoplight/generations.js';
import { classifyScriptsDir, scriptsDirNotes, stoplightLayout } from '../../../src/layouts/stoplight/scripts-dir.js';
import { stoplight6Tree, stoplightZsetTree, V6_STORAGE, V6_STORAGE_OLDER, type ZsetGeneration } from '../../integration/layouts/stoplight-tree.js';

const trees: string[] = [];
afterAll(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});
const keep = (dir: string): string => (trees.push(dir), dir);

const ZSET: readonly ZsetGeneration[] = ['hourly-a', 'hourly-b', 'hourly-c', 'hourly-d', 'sliding-log-a', 'sliding-log-b'];
const storageOf = (tree: string): string => {
  const found = classifyScriptsDir(tree);
  return found.kind === 'stoplight' ? (found.v6Root ?? '') : '';
};

describe('6.0 generations told apart by their files', () => {
  it.each(ZSET)('%s: recognised, and its shipped manifest accepts the scripts', (generation) => {
    const tree = keep(stoplightZsetTree(generation));
    const found = recognizeV6(storageOf(tree));
    expect(found?.id).toBe(generation);
    expect(found?.note).toBeUndefined();
    const layout = stoplightLayout('stoplight-v6', tree);
    expect(layout?.summary).toContain('Stoplight 6.0 development scripts');
    // Not 6.0's hash buckets: the keys are inspected by the manifest's own templates.
    expect(layout?.windowSemantics).toBe('closed-exact');
  });

  it.each<[V6GenerationId, () => string, string]>([
    ['hash-a', () => stoplight6Tree('argv'), '6.0-argv-clock.json'],
    ['hash-b', () => stoplight6Tree('argv', { evictBatchSizeLine: true }), '6.0-argv-clock.json'],
    ['hash-c', () => stoplight6Tree('time'), '6.0-redis-time.json'],
  ])('%s: recognised, run through %s', (id, build, manifest) => {
    const found = recognizeV6(storageOf(keep(build())));
    expect(found).toMatchObject({ id, manifestFile: manifest, hashBuckets: true });
  });

  it('hourly a and b share their scripts: the Ruby caller next to the folder decides, and without it b is assumed and said', () => {
    const tree = keep(stoplightZsetTree('hourly-a'));
    const root = path.join(tree, V6_STORAGE_OLDER);
    expect(recognizeV6(root)?.id).toBe('hourly-a');
    writeFileSync(path.join(root, 'window_metrics.rb'), '# def bucket_ttl = bucket_size (a comment)\ndef bucket_ttl = @window_size + bucket_size\n');
    expect(recognizeV6(root)?.id).toBe('hourly-b');
    // Only the storage folder given: no caller beside window_metrics/.
    const bare = keep(mkdtempSync(path.join(tmpdir(), 'swc-hourly-bare-')));
    cpSync(path.join(root, 'window_metrics'), path.join(bare, 'window_metrics'), { recursive: true });
    cpSync(path.join(root, 'lib'), path.join(bare, 'lib'), { recursive: true });
    expect(recognizeV6(bare)).toMatchObject({ id: 'hourly-b', manifestFile: '6.0-hourly-b.json' });
    expect(scriptsDirNotes(bare)).toContain(
      `--scripts: ${path.join(bare, 'window_metrics.rb')} not found: the TTLs of the newer caller (bucket TTL window + 1 h, metadata TTL 7 days) are assumed`,
    );
  });

  it('a folder it cannot place is refused with the files it holds; a skipped folder is named with its files', () => {
    const tree = keep(stoplightZsetTree('sliding-log-a'));
    const folder = path.join(tree, V6_STORAGE, 'window_metrics');
    writeFileSync(path.join(folder, 'record_success.lua'), "return redis.call('GET', KEYS[1])\n");
    expect(recognizeV6(path.join(tree, V6_STORAGE))).toBeNull();
    expect(() => stoplightLayout('stoplight-v6', tree)).toThrow(
      /cannot tell this Stoplight 6\.0 version's calling convention from its files \(files: metrics_snapshot\.lua, record_failure\.lua, record_success\.lua; none of the hourly, sliding-log or hash generations/,
    );
    rmSync(path.join(folder, 'record_success.lua'));
    expect(() => classifyScriptsDir(tree)).toThrow(/found .*window_metrics, no record_success\.lua in it; files: metrics_snapshot\.lua, record_failure\.lua/);
  });
});
