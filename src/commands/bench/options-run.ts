/** `swc bench`, where and how a run goes: scripts, safety, a scenario, a baseline and a sweep. */
import type { Command } from 'commander';
import { MAX_SWEEP_COMBINATIONS, parseSweep, SWEEP_SETTINGS, type SweepAxis } from '../../bench/sweep-axes.js';
import { TRUST_SCRIPTS_HELP, UNCONFINED_SCRIPTS_HELP } from '../../safety/trust.js';
import { scriptsDirCheck } from '../layout-parsers.js';
import { parser, waitForRunsOption } from '../options.js';

/** --scripts, --allow-eviction, --scenario, --baseline, --trust-scripts, --unconfined-scripts, --wait-for-runs, --sweep. */
export function addRunOptions(command: Command): Command {
  return command
    .option(
      '--scripts <dir>',
      "run the layouts' scripts from this folder: a Stoplight source tree or installed gem (its own scripts, through swc's manifest of that version's calling convention), or an edited copy of swc's lua/ folder; a manifest layout reads its scripts here instead of its scriptsRoot",
      parser((v) => {
        scriptsDirCheck().classifyScriptsDir(v);
        return v;
      }),
    )
    .option('--allow-eviction', 'run even when the run may not fit under maxmemory (a cell during which Redis evicts still fails)')
    .option('--scenario <file>', 'run a scenario file (JSON; see docs/ci.md, "Scenario files"); flags given here override its fields')
    .option('--baseline <file>', 'compare this run with a saved result (swc bench --json) and exit 1 on a regression, as swc compare does')
    .option('--trust-scripts', TRUST_SCRIPTS_HELP)
    .option('--unconfined-scripts', UNCONFINED_SCRIPTS_HELP)
    .addOption(waitForRunsOption())
    .option(
      '--sweep <setting=v1,v2,…>',
      `encoding what-if, repeatable: run the matrix on a fresh private server per value (and once on the defaults), then compare; settings: ${SWEEP_SETTINGS.join(', ')}; several flags run every combination (at most ${MAX_SWEEP_COMBINATIONS})`,
      (value: string, previous: SweepAxis[]) => [...previous, parser(parseSweep)(value)],
      [] as SweepAxis[],
    );
}
