// Client-side cost per operation of each layout, without Redis: building the
// script call (key names, arguments, event id) and parsing a reply. This is
// the part of a throughput figure that is swc's own, not the server's; it is
// how the per-call SHA-256 of 6.0 key names showed up (now cached).
import { Bench } from 'tinybench';
import { createLayout } from '../src/layouts/index.js';
import { errorJsonFor } from '../src/traffic/events.js';

const bench = new Bench({ time: 400, warmupTime: 100 });
const light = { name: 'payments-api' };
const at = 1_764_450_000.25;
const errorJson = errorJsonFor(at, 0);
for (const name of ['stoplight-v5', 'stoplight-v6']) {
  const layout = createLayout(name);
  const reply =
    name === 'stoplight-v5'
      ? [42, 7, ['last_success_at', '1764450000', 'consecutive_errors', '0', 'consecutive_successes', '12']]
      : ['42', '7', '1764450000', '1764449990', errorJson, '0', '12'];
  bench
    .add(`${name} success call`, () => layout.recordSuccess(light, { at, windowSeconds: 600, eventId: '0123456789abcdef01234567' }))
    .add(`${name} failure call`, () => layout.recordFailure(light, { at, windowSeconds: 600, eventId: '0123456789abcdef01234567', errorJson }))
    .add(`${name} read call`, () => layout.getMetrics(light, { at, windowSeconds: 600 }))
    .add(`${name} parse reply`, () => layout.parseMetrics(reply));
}
await bench.run();
console.table(bench.table());
