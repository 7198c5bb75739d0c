import { describe, expect, it } from 'vitest';
import { withoutFlags } from '../../../src/commands/builds.js';
import { buildDifferences } from '../../../src/verify/builds.js';
import { buildLabel, identityFromInfo, uniqueLabels } from '../../../src/redis/build.js';
import { buildsMemoryGrid, type BuildRun } from '../../../src/report/builds.js';
import type { VerifyResult } from '../../../src/verify/types.js';
import { minuteCell } from '../../report-fixtures.js';

const valkeyInfo = [
  '# Server',
  'redis_version:7.2.4',
  'server_name:valkey',
  'valkey_version:8.0.1',
  'redis_git_sha1:00000000',
  'redis_git_dirty:0',
  'arch_bits:64',
  'os:Linux',
  '# Memory',
  'mem_allocator:jemalloc-5.3.0',
  '',
].join('\r\n');
const redisInfo = [
  '# Server',
  'redis_version:7.0.15',
  'redis_git_sha1:abc12345',
  'redis_git_dirty:1',
  'arch_bits:64',
  'os:Linux',
  'mem_allocator:libc',
  '',
].join('\r\n');

describe('build identity', () => {
  it('Valkey is named with its own version, not the redis_version it reports for compatibility', () => {
    const b = identityFromInfo('/x/valkey-server', valkeyInfo, { 'lazyfree-lazy-user-del': 'yes' });
    expect([b.server, b.version, b.allocator, b.arch, b.gitDirty]).toEqual(['valkey', '8.0.1', 'jemalloc-5.3.0', '64-bit', false]);
    expect(buildLabel(b)).toBe('Valkey 8.0.1 jemalloc-5.3.0');
    const r = identityFromInfo('/usr/bin/redis-server', redisInfo, {});
    expect([buildLabel(r), r.gitSha, r.gitDirty]).toEqual(['Redis 7.0.15 libc', 'abc12345', true]);
  });

  it('the same build twice gets "#2" on its second label', () => {
    const r = identityFromInfo('/a', redisInfo, {});
    expect(uniqueLabels([r, { ...r, path: '/b' }, identityFromInfo('/v', valkeyInfo, {})])).toEqual([
      'Redis 7.0.15 libc',
      'Redis 7.0.15 libc #2',
      'Valkey 8.0.1 jemalloc-5.3.0',
    ]);
  });
});

describe('the child command line', () => {
  it('drops the given flags with their values, in both forms, and keeps --redis-server-arg', () => {
    const argv = ['bench', '--redis-server', '/a', '--redis-server=/b', '--redis-server-arg', 'x=1', '--format', 'markdown', '--json', '--rate', '10'];
    expect(withoutFlags(argv, ['--redis-server', '--format', '--json'])).toEqual(['bench', '--redis-server-arg', 'x=1', '--rate', '10']);
  });
});

describe('the per-build memory table', () => {
  it('one KB column per build and, after the first, its ratio to the first', () => {
    const build = identityFromInfo('/a', redisInfo, {});
    const runs: BuildRun[] = [
      { label: 'A', build, report: { results: [minuteCell('stoplight-v6', 10240)] } },
      { label: 'B', build, report: { results: [minuteCell('stoplight-v6', 9216)] } },
    ];
    const grid = buildsMemoryGrid(runs);
    expect(grid.head).toEqual(['window', 'req/s', 'layout', 'A KB', 'B KB', 'ratio']);
    expect(grid.rows).toEqual([['1 min', '10', 'stoplight-v6', '10.0', '9.0', '0.90×']]);
  });
});

describe('findings that differ between builds', () => {
  const result = (errors: number): VerifyResult =>
    ({
      layout: 'stoplight-v6',
      lightsWithErrors: errors,
      lightsDisagreeing: 0,
      deviationMisses: [],
      keysWithoutTtl: [],
      unreproduced: [],
      crossSlot: [],
      scriptErrors: [],
    }) as unknown as VerifyResult;
  it('a script error on one build and none on the others is said so; the same findings everywhere are not', () => {
    const diff = buildDifferences([
      { label: 'Redis 7.0.15', output: { findings: 1, results: [result(2)] } },
      { label: 'Redis 7.4.1', output: { findings: 0, results: [result(0)] } },
      { label: 'Valkey 8.0.1', output: { findings: 0, results: [result(0)] } },
    ]);
    expect(diff.map((d) => d.text)).toEqual(['script error on Redis 7.0.15; none on Redis 7.4.1 / Valkey 8.0.1']);
    expect(
      buildDifferences([
        { label: 'A', output: { findings: 1, results: [result(1)] } },
        { label: 'B', output: { findings: 1, results: [result(3)] } },
      ]),
    ).toEqual([]);
  });
});
