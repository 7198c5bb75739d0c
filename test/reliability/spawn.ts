// Moved to test/cli/run-cli.ts (the one CLI runner). This re-export keeps test
// files written on branches in flight compiling; remove it once they are merged.
export { RUN_LINE, startCli, type RunningCli } from '../cli/run-cli.js';
