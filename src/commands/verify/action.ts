/**
 * The action of `swc verify`, loaded only when verify runs: the layouts
 * built, then a guarded run (src/run/guarded-run.ts) that verifies each in
 * turn on the server or cluster, and the findings printed.
 */
import { randomInt } from 'node:crypto';
import { guardedRun } from '../../run/guarded-run.js';
import type { Namespace } from '../../run/namespace.js';
import { ExitCode, ScriptError, UsageError } from '../../core/errors.js';
import { SCHEMA_VERSION } from '../../core/schema-version.js';
import { SWC_VERSION } from '../../core/version.js';
import { createLayout, layoutNames, namespacedLayout, type LayoutName } from '../../layouts/index.js';
import { scriptsDirLayouts, scriptsDirNotes, scriptsGenerations } from '../../layouts/stoplight/scripts-dir.js';
import type { LayoutOptions } from '../../layouts/types.js';
import { primariesOf, type Target } from '../../run/open.js';
import { renderQuietVerify, renderVerify, verifyResultJson, type VerifyServer } from '../../report/verify.js';
import { serverWhere } from '../../run/where.js';
import { proseWidth, wrapText } from '../../report/width.js';
import type { VerifyResult } from '../../verify/types.js';
import { PEAK_BYTES_PER_CALL, stripNamespace, verifyLayout } from '../../verify/verify.js';
import { buildsToRun } from '../builds.js';
import { onSecondSignal, onShutdown } from '../lifecycle.js';
import { printJson, targetFromFlags, turnWaitMs, useColor } from '../options.js';
import { verifyAcrossBuilds } from './builds.js';
import type { VerifyFlags } from './flags.js';
import type { ScriptTrust } from '../../safety/trust.js';

/** Runs `swc verify` with the flags commander parsed; returns the exit code. */
export async function verifyAction(flags: VerifyFlags): Promise<number> {
  const seed = flags.seed ?? randomInt(0, 2 ** 32);
  // Several --redis-server: the same traffic (this seed) on each build (src/commands/verify-builds.ts).
  const builds = buildsToRun(flags);
  if (builds)
    return verifyAcrossBuilds(builds, seed, flags.json === true, {
      settings: flags.redisServerArg ?? [],
      ...(flags.scripts !== undefined ? { scriptsDir: flags.scripts } : {}),
    });
  // A Stoplight tree holds one version's scripts: by default, verify the layouts it has.
  const names = flags.layout ?? (flags.scripts !== undefined ? scriptsDirLayouts(flags.scripts) : [...layoutNames]);
  // A Stoplight tree's folders that are not verified are named, not left out silently.
  // Under --layout too: a generation chosen on a default (no caller beside the folder) says so.
  if (flags.scripts !== undefined) for (const note of scriptsDirNotes(flags.scripts, flags.layout)) process.stderr.write(`swc verify: ${note}\n`);
  const scripts = flags.scripts !== undefined ? { scriptsDir: flags.scripts } : {};
  // Every layout is built (its scripts read) before Redis is touched: a missing file is bad input.
  for (const name of names) {
    try {
      createLayout(name, scripts);
    } catch (err) {
      if (flags.scripts !== undefined && err instanceof ScriptError) throw new UsageError(`--scripts: ${err.message}`);
      throw err;
    }
  }
  const say = (line: string): void => {
    if (flags.progress) process.stderr.write(`swc verify: ${line}\n`);
  };
  const usersUrl = flags.redisUrl ?? (process.env.REDIS_URL || undefined);
  let primaries: ReturnType<typeof primariesOf>;
  // The server the run wrote to (not the rehearsal's): the report names it first, after the verdict.
  let server: VerifyServer | undefined;
  const results = await guardedRun(
    {
      command: 'swc verify',
      layouts: names,
      layoutOptions: scripts,
      trustScripts: flags.trustScripts === true,
      unconfinedScripts: flags.unconfinedScripts === true,
      ...(usersUrl !== undefined ? { usersUrl } : {}),
      open: async () => {
        // The seed is printed whatever the flags: a finding is only useful if it can be replayed.
        process.stderr.write(`swc verify: seed ${seed} (replay with --seed ${seed})\n`);
        const target = await targetFromFlags(flags);
        if (!target.cluster) return target;
        primaries = primariesOf(target);
        say(`on a cluster of ${target.shards.length} primaries (${target.shards.map((s) => s.node).join(', ')})${target.private ? ', started by swc' : ''}`);
        return target;
      },
      peakBytes: () => flags.calls * PEAK_BYTES_PER_CALL,
      // verify has no --allow-eviction: the way out is a smaller run.
      refusalHint: ' (fewer --calls need less memory)',
      // As bench: mark the run so `swc clean` spares it and a bench on this server waits, and take turns with other runs.
      takeTurns: {
        timeoutMs: turnWaitMs(flags.waitForRuns),
        onWait: (others) =>
          say(`another swc run is writing to this server (${others.join(', ')}); waiting for it to end (at most ${turnWaitMs(flags.waitForRuns) / 1000} s)`),
      },
      say: (line) => void process.stderr.write(`${line}\n`),
      onSignal: onShutdown,
      onSecondSignal,
    },
    // The rehearsal on swc's private server (src/safety/rehearsal.ts) runs the same verification silently.
    ({ target, namespace, signal, rehearsal }) => {
      if (!rehearsal) server = verifyServer(target);
      return verifyEach(names, target, namespace, scripts, {
        seed,
        calls: flags.calls,
        lights: flags.lights,
        signal,
        say: rehearsal ? () => undefined : say,
        trust: { trustScripts: flags.trustScripts === true, unconfinedScripts: flags.unconfinedScripts === true },
      });
    },
  );
  const findings = results.reduce((sum, r) => sum + r.findings, 0);
  if (flags.json)
    printJson({
      schemaVersion: SCHEMA_VERSION,
      swcVersion: SWC_VERSION,
      ...(server !== undefined ? { server: server.where, notMeasured: server.notMeasured } : {}),
      seed,
      findings,
      results: results.map(verifyResultJson),
      ...(primaries ? { cluster: { primaries } } : {}),
    });
  else if (flags.quiet) process.stdout.write(renderQuietVerify(results, useColor()));
  // The verdict line stays whole; the blocks under it wrap.
  else {
    const [verdict = '', ...blocks] = renderVerify(results, useColor(), server).split('\n');
    process.stdout.write(`${verdict}\n${wrapText(blocks.join('\n'), proseWidth(), 4)}`);
  }
  return findings > 0 ? ExitCode.finding : ExitCode.ok;
}

/** Where a run wrote, without credentials, and what verify does not see there. */
function verifyServer(target: Target): VerifyServer {
  // On a server of its own swc may MONITOR a replay (see verifyEach); elsewhere a rejected command is named by its script only.
  const monitored = target.private && !target.cluster;
  return {
    where: serverWhere(target),
    notMeasured: monitored ? [] : ["the command a failing script sent (MONITOR needs swc's own server)"],
  };
}

/** Each layout verified in turn on the guarded target; key names without the run's namespace. */
async function verifyEach(
  names: readonly LayoutName[],
  target: Target,
  namespace: Namespace,
  scripts: LayoutOptions,
  options: { seed: number; calls: number; lights: number; signal: AbortSignal; say: (line: string) => void; trust: ScriptTrust },
): Promise<VerifyResult[]> {
  const { say } = options;
  const results: VerifyResult[] = [];
  for (const name of names) {
    const layout = namespacedLayout(name, namespace.prefix, scripts);
    let shown = -1;
    // The use case refuses a user's scripts on a server swc did not start unless trusted, as the guarded run did before it.
    const result = await verifyLayout(target, layout, {
      seed: options.seed,
      ...options.trust,
      calls: options.calls,
      lights: options.lights,
      signal: options.signal,
      // On a server of its own swc may MONITOR a replay to show what a failing script sent.
      monitorRejected: target.private && !target.cluster,
      progress: {
        onCalls: (sent, total) => {
          const tenth = Math.floor((sent / total) * 4);
          if (tenth !== shown) {
            shown = tenth;
            say(`${name}: ${sent.toLocaleString('en-US')}/${total.toLocaleString('en-US')} calls`);
          }
        },
        onShrinkStart: (what, length) => say(`${name}: shrinking a ${what} (${length.toLocaleString('en-US')} calls)`),
      },
    });
    say(`${name}: ${result.findings === 0 ? 'no finding' : `${result.findings} finding(s)`} in ${result.durationSeconds.toFixed(1)} s`);
    // A Stoplight tree's 6.0 scripts: the generation recognised, named in the text and the JSON.
    const generation = scripts.scriptsDir !== undefined ? scriptsGenerations(scripts.scriptsDir, [name])[name] : undefined;
    results.push(stripNamespace(generation ? { ...result, generation } : result, `${namespace.prefix}:`));
  }
  return results;
}
