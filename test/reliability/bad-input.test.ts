import { describe, expect, it } from 'vitest';
import { redisUrl } from '../helpers.js';
import { runCli } from '../cli/run-cli.js';

const url = (): string => redisUrl();

/** [arguments, the flag (or word) the one-line message must name, extra environment]. */
const CASES: [string[], string, NodeJS.ProcessEnv?][] = [
  [['bench', '--rate', '0'], '--rate'],
  [['bench', '--rate', '-5'], '--rate'],
  [['bench', '--rate', 'abc'], '--rate'],
  [['bench', '--rate', ''], '--rate'],
  [['bench', '--rate', '10,,20'], '--rate'],
  [['bench', '--rate', '1000000'], '--rate'],
  [['bench', '--rate', 'NaN'], '--rate'],
  [['bench', '--window', '0'], '--window'],
  [['bench', '--window', '-1'], '--window'],
  [['bench', '--window', '5x'], '--window'],
  [['bench', '--window', '2d'], '--window'],
  [['bench', '--window', ''], '--window'],
  [['bench', '--window', '1m,'], '--window'],
  [['bench', '--layout', 'nope'], '--layout'],
  [['bench', '--layout', 'stoplight-v5,bogus'], '--layout'],
  [['bench', '--failure-rate', '1.5'], '--failure-rate'],
  [['bench', '--failure-rate', '-0.1'], '--failure-rate'],
  [['bench', '--failure-rate', 'half'], '--failure-rate'],
  [['bench', '--lights', '0'], '--lights'],
  [['bench', '--lights', '2.5'], '--lights'],
  [['bench', '--lights', '100000'], '--lights'],
  [['bench', '--duration', '0'], '--duration'],
  [['bench', '--duration', '30d'], '--duration'],
  [['bench', '--duration', 'soon'], '--duration'],
  [['bench', '--preset', 'nope'], '--preset'],
  [['bench', '--seed', '-1'], '--seed'],
  [['bench', '--seed', '1.5'], '--seed'],
  [['bench', '--seed', '99999999999'], '--seed'],
  [['bench', '--format', 'xml'], '--format'],
  [['bench', '--connections', '0'], '--connections'],
  [['bench', '--connections', '5000'], '--connections'],
  [['bench', '--pipeline', '0'], '--pipeline'],
  [['bench', '--ops', '0'], '--ops'],
  [['bench', '--time', '0'], '--time'],
  [['bench', '--ops', '10', '--time', '1'], '--ops'],
  [['bench', '--window', '1.5s'], '--window'],
  [['bench', '--redis-url', 'http://localhost'], '--redis-url'],
  [['bench', '--redis-url', 'notaurl'], '--redis-url'],
  [['bench', '--redis-url', 'redis://localhost:99999'], '--redis-url'],
  [['bench', '--redis-url', 'redis://localhost/abc'], '--redis-url'],
  [['bench', '--redis-server-arg', 'novalue'], '--redis-server-arg'],
  [['bench', '--redis-url', 'URL', '--redis-server-arg', 'maxmemory=1mb'], '--redis-server-arg'],
  [['bench', '--rate', '100000', '--window', '1d', '--lights', '10'], '--rate'],
  [['bench', '--bogus'], '--bogus'],
  [['bench'], 'REDIS_URL', { REDIS_URL: 'ftp://example' }],
  [['doctor', '--redis-url', 'x://y'], '--redis-url'],
  [['doctor', '--redis-server-arg', 'no-such-directive=1'], '--redis-server-arg'],
  [['bench', '--json', '--format', 'csv'], '--format'],
  [['bench', '--no-throughput', '--connections', '8'], '--connections'],
  [['inspect', 'x', '--window', '2w'], '--window'],
  [['doctor', '--redis-server-arg', '=x'], '--redis-server-arg'],
  [['inspect'], 'light'],
  [['inspect', 'x', '--window', '0'], '--window'],
  [['inspect', 'x', '--at', 'abc'], '--at'],
  [['inspect', 'x', '--limit', '-1'], '--limit'],
  [['inspect', 'x', '--layout', 'bogus'], '--layout'],
  [['inspect', 'x', '--redis-url', 'nope'], '--redis-url'],
  [['lights', '--redis-url', 'nope'], '--redis-url'],
  [['nope'], 'nope'],
];

describe('bad input: exit 2, one line naming the flag, nothing sent to Redis', () => {
  it('has at least 40 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CASES.map(([args, flag, env]) => [args.join(' '), args, flag, env ?? {}] as const))(
    'swc %s',
    async (_label, args, flag, env) => {
      const result = await runCli(
        args.map((a) => (a === 'URL' ? url() : a)),
        env,
      );
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(flag);
      expect(result.stderr).not.toMatch(/\n\s+at |Error:/);
    },
  );
});
