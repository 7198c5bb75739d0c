import { ExitCode } from '../errors.js';
import { renderVerify } from '../report/verify.js';
import { palette } from '../report/style.js';
import type { VerifyResult } from '../verify/types.js';
import { buildsJson, childJson, runAcrossBuilds, withoutFlags, type ChildRun } from './builds.js';
import { printJson, useColor } from './options.js';

/** What one build's `swc verify --json` prints. */
interface VerifyOutput {
  readonly findings: number;
  readonly results: readonly VerifyResult[];
}

const isVerifyOutput = (value: unknown): value is VerifyOutput =>
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

/**
 * `swc verify … --redis-server A --redis-server B`: the same traffic (one
 * seed) on each build's private server, a finding per build, and each
 * finding some builds have and others not named as such. Returns the exit
 * code: a run that failed gives its code, else 1 for any finding.
 */
export async function verifyAcrossBuilds(binaries: readonly string[], seed: number, json: boolean): Promise<number> {
  const args = [...withoutFlags(process.argv.slice(2), ['--redis-server', '--json', '--seed']), '--json', '--seed', String(seed)];
  const runs: ChildRun[] = await runAcrossBuilds(binaries, args);
  const outputs = runs.map((r) => {
    const parsed = childJson(r);
    return isVerifyOutput(parsed) ? parsed : undefined;
  });
  const differences = buildDifferences(runs.map((r, i) => ({ label: r.label, output: outputs[i] })));
  const findings = outputs.reduce((sum, o) => sum + (o?.findings ?? 0), 0);
  if (json) printJson(buildsJson(runs, outputs, { seed, findings, differences }));
  else {
    const c = palette(useColor());
    const parts: string[] = [];
    if (differences.length > 0) {
      parts.push(c.bold('Findings that differ between builds'));
      for (const d of differences) parts.push(`  ${d.layout}: ${c.red(d.text)}`);
      parts.push('');
    } else if (runs.length > 1) {
      parts.push('Every build gives the same kinds of finding for every layout.', '');
    }
    for (const [i, r] of runs.entries()) {
      const output = outputs[i];
      parts.push(c.bold(`== ${r.label} (${r.build.path}) ==`));
      parts.push(output ? renderVerify(output.results, useColor()).trimEnd() : `  the run failed (exit ${r.code}; its lines above say why)`);
      parts.push('');
    }
    process.stdout.write(`${parts.join('\n')}`);
  }
  const failed = runs.find((r) => r.code !== ExitCode.ok && r.code !== ExitCode.finding);
  if (failed) return failed.code;
  return findings > 0 ? ExitCode.finding : ExitCode.ok;
}
