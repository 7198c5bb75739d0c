import { expect, it } from 'vitest';
import { runInProcess } from '../../unit/in-process.js';
import { redisUrl } from '../../helpers.js';

it('bench --client -q on a server swc did not start: a line per package against the designs, the run named on stderr', async () => {
  const r = await runInProcess([
    ...'bench --client rate-limit-redis --rate 3 --no-throughput --layout ring -q --no-progress --redis-url'.split(' '),
    redisUrl(),
  ]);
  expect(r.code).toBe(0);
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  expect(r.stdout).toMatch(/^rate-limit-redis \d+\.\d+\.\d+: \d+ B per client at 3\/s, window 1 s, limit 3; .*ring \d+ B/);
  expect(r.stderr).toMatch(/run swc-bench:[0-9a-f]{8}: writing only under swc-bench:[0-9a-f]{8}:\*/);
});
