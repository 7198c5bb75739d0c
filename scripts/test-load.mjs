#!/usr/bin/env node
// The load lane: runs vitest with busy loops beside it, as the suite meets a
// developer's machine while other work runs. A test that passes only on a
// quiet machine fails here.
//
// Usage: npm run test:load [-- <vitest run arguments, e.g. test files>]
//   SWC_BUSY_LOOPS=<n>   how many busy loops (default 2)
//
// Each loop is a shell that spins while this script lives (`kill -0` on its
// parent, a shell builtin, each turn), so the loops end however vitest and
// this script end: vitest's exit, Ctrl-C, a signal, or this script killed.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const count = Number(process.env.SWC_BUSY_LOOPS ?? '2');
if (!Number.isInteger(count) || count < 0 || count > 64) {
  console.error(`test:load: SWC_BUSY_LOOPS must be 0 to 64, got "${process.env.SWC_BUSY_LOOPS}"`);
  process.exit(2);
}

const loops = [];
for (let i = 0; i < count; i++) {
  const loop = spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do :; done`], { stdio: 'ignore' });
  loops.push(loop);
}
function stopLoops() {
  for (const loop of loops) if (loop.exitCode === null && loop.signalCode === null) loop.kill('SIGKILL');
}
process.on('exit', stopLoops);

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.error(`test:load: ${count} busy loop(s) beside vitest (load average ${load()})`);
const vitest = spawn(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    // vitest gets the signal too (a terminal's Ctrl-C reaches the whole group); pass it on for a kill by pid.
    if (vitest.exitCode === null) vitest.kill(signal);
  });
}
vitest.on('exit', (code, signal) => {
  stopLoops();
  console.error(`test:load: vitest ended (${signal ?? `exit ${code}`}), load average ${load()}`);
  process.exit(code ?? (signal === 'SIGINT' ? 130 : 143));
});
