import { randomInt } from 'node:crypto';
import { Command, Option } from 'commander';
import { createNamespace, markRun, purgeNamespace, waitForTurn, type RunHandle } from '../bench/namespace.js';
import { LIMITS, parseList, parseNumber } from '../bench/values.js';
import { ExitCode, ScriptError, SwcError, UsageError } from '../core/errors.js';
import { preflight, refusalOf } from '../redis/preflight.js';
import { createLayout, layoutNames, namespacedLayout, resolveLayoutName, type LayoutName } from '../layouts/index.js';
import { scriptsDirLayouts, scriptsDirNotes } from '../layouts/stoplight/scripts-dir.js';
import { renderVerify, verifyResultJson } from '../report/verify.js';
import { proseWidth, wrapText } from '../report/width.js';
import type { VerifyResult } from '../verify/types.js';
import { verifyLayout } from '../verify/verify.js';
import { confineOrRefuse, guardUntrustedScripts, TRUST_SCRIPTS_HELP, usersServer } from '../safety/probe.js';
import { deniedAsFinding } from '../safety/acl.js';
import { redactUrl } from '../redis/connect.js';
import { SWC_VERSION } from '../core/version.js';
import { action, onShutdown } from './lifecycle.js';
import { addBuildsOption, buildsToRun, type BuildsFlags } from './builds.js';
import { verifyAcrossBuilds } from './verify-builds.js';
import { cleanHint } from './bench.js';
import type { ClusterSession } from '../redis/cluster.js';
import { nodeName, routedRedis } from '../redis/routed.js';
import { openCluster, primariesOf } from './cluster-read.js';
import {
  addClusterOptions,
  addJsonOption,
  addRedisOptions,
  parser,
  printJson,
  sessionFromFlags,
  turnWaitMs,
  waitForRunsOption,
  useColor,
  wantsCluster,
  type ClusterFlags,
  type RedisFlags,
} from './options.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';

interface VerifyFlags extends RedisFlags, ClusterFlags, BuildsFlags {
  layout?: LayoutName[];
  calls: number;
  seed?: number;
  lights: number;
  json?: boolean;
  progress: boolean;
  scripts?: string;
  trustScripts?: boolean;
  /** `--wait-for-runs`, seconds. */
  waitForRuns?: number;
}

const DEFAULT_CALLS = 20_000;
const CALLS = { min: 1, max: 2_000_000, integer: true };
const LIGHTS = { min: 1, max: 64, integer: true };
/** A generous bound on the bytes one call leaves in Redis at once (a 5.x event is about 120). */
const PEAK_BYTES_PER_CALL = 250;

const layoutList = parser((v) => parseList('--layout', v, (p) => resolveLayoutName(p)));

/** `swc verify`: randomized traffic through a layout and the reference model; every disagreement shrunk to a short reproduction. */
export function verifyCommand(): Command {
  const command = new Command('verify')
    .description(
      'drive seeded random traffic through a layout and the reference model on an injected clock; report disagreements (shrunk to a short reproduction), script errors, keys without a TTL and cluster slots',
    )
    .addOption(
      new Option(
        '--layout <list>',
        `layouts, comma-separated: ${layoutNames.join(', ')}, or manifest files (default all registered; with --scripts, the layouts that folder has)`,
      ).argParser(layoutList),
    )
    .addOption(
      new Option('--calls <n>', 'calls per layout, over every light')
        .argParser(parser((v) => parseNumber('--calls', v, CALLS)))
        .default(DEFAULT_CALLS, DEFAULT_CALLS.toLocaleString('en-US')),
    )
    .option(
      '--seed <n>',
      'seed of the traffic, to replay a run (default random; always printed)',
      parser((v) => parseNumber('--seed', v, LIMITS.seed)),
    )
    .option(
      '--lights <n>',
      'lights per layout, each with its own window',
      parser((v) => parseNumber('--lights', v, LIGHTS)),
      8,
    )
    .option('--trust-scripts', TRUST_SCRIPTS_HELP)
    .addOption(waitForRunsOption())
    .option('--scripts <dir>', "run the layouts' scripts from this folder, e.g. an edited copy of swc's lua/ folder")
    .option('--no-progress', 'no progress on stderr');
  addJsonOption(command);
  addRedisOptions(command, { privateServer: true });
  addClusterOptions(command);
  addBuildsOption(command);
  command.addHelpText(
    'after',
    `
Traffic: both outcomes, reads between writes, irregular gaps, bursts inside a
second, reads either side of the window's edge, idle gaps longer than the
window, events in the first second of an hour, windows from 1 s to 2 h, and
(from 6,000 calls) one light whose single call evicts over 4,000 buckets.
A disagreement is replayed on fresh lights and shrunk to the fewest calls
that still disagree. Deviations a layout declares are reported apart and are
not findings. On a server swc did not start, every key goes under
swc-bench:<run id>: and exactly those keys are deleted at the end.

On Redis Cluster (--cluster-shards <n> for a private one, or --cluster
--redis-url <node>): each call goes to the primary that owns its keys' slot.
A call Redis refuses because its keys hash to different slots is a finding,
"not cluster-safe: operation <op>, Redis said CROSSSLOT …" (JSON: crossSlot).

Exit codes: 0 no finding, 1 a finding, 2 bad usage, 3 Redis unreachable or
unusable.

Examples:
  swc verify
  swc verify --layout stoplight-v6 --calls 100000
  swc verify --seed 1234 --json
  swc verify --cluster-shards 3 --layout stoplight-v5,stoplight-v6
  # check an edit before committing it:
  swc verify --scripts ./my-lua-copy --layout stoplight-v6`,
  );
  return command.action(
    action(async (flags: VerifyFlags) => {
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
      if (flags.scripts !== undefined && flags.layout === undefined)
        for (const note of scriptsDirNotes(flags.scripts)) process.stderr.write(`swc verify: ${note}\n`);
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
      // Scripts swc did not write are probed on a private server before they may reach the user's (src/safety/probe.ts).
      const usersUrl = usersServer(flags);
      const untrusted = await guardUntrustedScripts({
        layouts: names,
        layoutOptions: scripts,
        privateServer: usersUrl === undefined,
        trust: flags.trustScripts === true,
        target: usersUrl === undefined ? '' : redactUrl(usersUrl),
        command: 'swc verify',
      });
      const say = (line: string): void => {
        if (flags.progress) process.stderr.write(`swc verify: ${line}\n`);
      };
      // The seed is printed whatever the flags: a finding is only useful if it can be replayed.
      process.stderr.write(`swc verify: seed ${seed} (replay with --seed ${seed})\n`);
      const cluster = wantsCluster(flags) ? await openCluster(flags) : undefined;
      const session = cluster
        ? { redis: routedRedis(cluster), url: cluster.shards[0]?.url ?? '', private: cluster.cluster !== undefined, nodes: cluster.shards.map((s) => s.redis) }
        : await sessionFromFlags(flags).then((one) => ({ redis: one.redis, url: one.url, private: one.server !== undefined, nodes: [one.redis] }));
      if (cluster)
        say(
          `on a cluster of ${cluster.shards.length} primaries (${cluster.shards.map((_, i) => nodeName(cluster, i)).join(', ')})${cluster.cluster ? ', started by swc' : ''}`,
        );
      const namespace = createNamespace();
      const stop = new AbortController();
      let running: Promise<unknown> | undefined;
      let heartbeat: RunHandle | undefined;
      onShutdown(async () => {
        stop.abort();
        await running?.catch(() => undefined);
        heartbeat?.stop();
        if (session.private) return;
        try {
          await purgeNamespace(session.redis, namespace);
        } catch {
          process.stderr.write(`swc verify: could not remove this run's keys; when Redis is back: ${cleanHint(session.url, namespace)}\n`);
        }
      });
      if (!session.private) {
        // As bench: check before writing (every primary of a cluster), mark the run so
        // `swc clean` spares it and a bench on this server waits, and take turns with other runs.
        for (const [i, node] of session.nodes.entries()) {
          // On a cluster each node's probe keys carry a hash tag that node owns (still under the run's namespace).
          const prefix = cluster ? `${namespace.prefix}:{${tagOwnedBy(cluster, i)}}` : namespace.prefix;
          const report = await preflight(node, { prefix, peakBytes: flags.calls * PEAK_BYTES_PER_CALL });
          // verify has no --allow-eviction: the way out is a smaller run.
          const refusal = refusalOf(report, false, ' (fewer --calls need less memory)');
          const which = cluster ? `cluster node ${nodeName(cluster, i)}` : 'this server';
          if (refusal) throw new SwcError(`refusing to write to ${which}: ${refusal}`, ExitCode.runtime);
          for (const finding of report.findings) process.stderr.write(`swc verify: note: ${cluster ? `${which}: ` : ''}${finding.detail}\n`);
        }
        // Always shown (--no-progress too): the run id is what finds leftovers.
        process.stderr.write(`swc verify: run ${namespace.prefix}: writing only under ${namespace.pattern}; removed at the end\n`);
        heartbeat = await markRun(session.redis, namespace);
        await waitForTurn(session.redis, heartbeat, {
          signal: stop.signal,
          timeoutMs: turnWaitMs(flags.waitForRuns),
          onWait: (others) =>
            say(`another swc run is writing to this server (${others.join(', ')}); waiting for it to end (at most ${turnWaitMs(flags.waitForRuns) / 1000} s)`),
        });
      }
      // After the probe, on the user's server: the scripts run as the run's temporary ACL user (src/safety/acl.ts).
      const runUser = untrusted ? await confineOrRefuse(untrusted, cluster ? session.nodes : session.redis, namespace, (c) => void onShutdown(c)) : null;
      const results: VerifyResult[] = [];
      for (const name of names) {
        const layout = namespacedLayout(name, namespace.prefix, scripts);
        let shown = -1;
        const task = verifyLayout(session.redis, layout, {
          seed,
          calls: flags.calls,
          lights: flags.lights,
          signal: stop.signal,
          // On a server of its own swc may MONITOR a replay to show what a failing script sent.
          monitorRejected: session.private && !cluster,
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
        running = task;
        const result = await deniedAsFinding(task, session.redis, runUser);
        say(`${name}: ${result.findings === 0 ? 'no finding' : `${result.findings} finding(s)`} in ${result.durationSeconds.toFixed(1)} s`);
        results.push(stripNamespace(result, `${namespace.prefix}:`));
      }
      const findings = results.reduce((sum, r) => sum + r.findings, 0);
      if (flags.json)
        printJson({
          schemaVersion: SCHEMA_VERSION,
          swcVersion: SWC_VERSION,
          seed,
          findings,
          results: results.map(verifyResultJson),
          ...(cluster ? { cluster: { primaries: primariesOf(cluster) } } : {}),
        });
      else process.stdout.write(wrapText(renderVerify(results, useColor()), proseWidth(), 4));
      return findings > 0 ? ExitCode.finding : ExitCode.ok;
    }),
  );
}

/** A hash tag whose slot primary `index` of the cluster owns. */
function tagOwnedBy(cluster: ClusterSession, index: number): string {
  for (let n = 0; ; n += 1) if (cluster.shardOfKey(`{n${n}}`) === index) return `n${n}`;
}

/** Key names as the layout writes them, without this run's namespace. */
function stripNamespace(result: VerifyResult, prefix: string): VerifyResult {
  return {
    ...result,
    keysWithoutTtl: result.keysWithoutTtl.map((k) => ({ ...k, key: k.key.startsWith(prefix) ? k.key.slice(prefix.length) : k.key })),
    scriptErrors: result.scriptErrors.map((e) => (e.rejected === undefined ? e : { ...e, rejected: e.rejected.split(prefix).join('') })),
  };
}
