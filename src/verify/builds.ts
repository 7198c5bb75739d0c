/**
 * `swc verify` across server builds: the findings some builds have and
 * others not, and for a script error one build has, what each other build
 * received in its place (the reproduction replayed on a private server of
 * that build, opened through src/run/open.ts). The runs themselves (one
 * `swc verify --json` per build) are the CLI's (src/commands/verify/builds.ts).
 */
import { namespacedLayout, type LayoutName } from '../layouts/index.js';
import { openTarget } from '../run/open.js';
import type { VerifyResult } from './types.js';
import { acceptedInstead } from './verify.js';

/** A build's run, as the differences need it: its label and its server binary. */
export interface BuildRun {
  readonly label: string;
  readonly build: { readonly path: string };
}

/** What one build's `swc verify --json` prints. */
export interface VerifyOutput {
  readonly findings: number;
  readonly results: readonly VerifyResult[];
}

export const isVerifyOutput = (value: unknown): value is VerifyOutput =>
  typeof value === 'object' && value !== null && Array.isArray((value as { results?: unknown }).results);

/** The kinds of finding, each with how a result counts it. */
const KINDS: readonly { readonly name: string; readonly count: (r: VerifyResult) => number }[] = [
  { name: 'script error', count: (r) => r.lightsWithErrors },
  { name: 'disagreement', count: (r) => r.lightsDisagreeing },
  { name: 'declared deviation missed', count: (r) => r.deviationMisses.length },
  { name: 'key without a TTL', count: (r) => r.keysWithoutTtl.length },
  { name: 'not cluster-safe', count: (r) => r.crossSlot.length },
];

/** A finding that some builds have and others not. */
export interface BuildDifference {
  readonly layout: string;
  readonly kind: string;
  readonly on: readonly string[];
  readonly noneOn: readonly string[];
  /** "script error on Redis 7.0.15 …; none on Redis 7.4.1 … / Valkey 8.0.1 …" */
  readonly text: string;
  /** For a script error: the command a build rejected, and what each build without the error received in its place. */
  received?: { readonly build: string; readonly command: string; readonly rejected: boolean }[];
}

/** What to start a build's server with and which scripts to run, for the replays that show what another build accepted. */
export interface VerifyBuildsInput {
  readonly settings: readonly string[];
  readonly scriptsDir?: string;
}

/**
 * For each script error that only some builds have: the reproduction of the
 * first failing build's error replayed on each build without it, under
 * MONITOR on a private server of that build, to show the command it
 * received where the other build rejected one.
 */
export async function addAccepted(
  differences: BuildDifference[],
  runs: readonly BuildRun[],
  outputs: readonly (VerifyOutput | undefined)[],
  input: VerifyBuildsInput,
): Promise<void> {
  for (const d of differences) {
    if (d.kind !== 'script error') continue;
    const failing = runs.findIndex((r) => r.label === d.on[0]);
    const error = outputs[failing]?.results.find((r) => r.layout === d.layout)?.scriptErrors.find((e) => e.rejected !== undefined);
    if (!error?.rejected) continue;
    d.received = [{ build: d.on[0] as string, command: error.rejected, rejected: true }];
    for (const label of d.noneOn) {
      const run = runs.find((r) => r.label === label);
      if (!run) continue;
      const server = await openTarget({ privateServer: { binary: run.build.path, settings: input.settings } }).catch(() => undefined);
      if (!server) continue;
      const { redis } = server;
      try {
        const layout = namespacedLayout(d.layout as LayoutName, 'swc-verify-builds', input.scriptsDir !== undefined ? { scriptsDir: input.scriptsDir } : {});
        const command = await acceptedInstead(redis, layout, error.windowSeconds, error.reproduction, error.rejected).catch(() => null);
        if (command !== null) d.received.push({ build: label, command: command.split('swc-verify-builds:').join(''), rejected: false });
      } finally {
        await server.close();
      }
    }
  }
}

/** Per layout and kind of finding, the builds that have it where others do not. */
export function buildDifferences(runs: readonly { label: string; output: VerifyOutput | undefined }[]): BuildDifference[] {
  const measured = runs.filter((r): r is { label: string; output: VerifyOutput } => r.output !== undefined);
  const layouts = [...new Set(measured.flatMap((r) => r.output.results.map((x) => x.layout)))];
  const out: BuildDifference[] = [];
  for (const layout of layouts) {
    for (const kind of KINDS) {
      const on: string[] = [];
      const noneOn: string[] = [];
      for (const r of measured) {
        const result = r.output.results.find((x) => x.layout === layout);
        if (!result) continue;
        (kind.count(result) > 0 ? on : noneOn).push(r.label);
      }
      if (on.length > 0 && noneOn.length > 0) {
        out.push({ layout, kind: kind.name, on, noneOn, text: `${kind.name} on ${on.join(' / ')}; none on ${noneOn.join(' / ')}` });
      }
    }
  }
  return out;
}
