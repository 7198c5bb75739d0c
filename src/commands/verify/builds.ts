import { ExitCode } from '../../core/errors.js';
import { addAccepted, buildDifferences, isVerifyOutput, type VerifyBuildsInput } from '../../verify/builds.js';
import { renderVerify, verifyResultOfJson, type VerifyResultJson } from '../../report/verify.js';
import { palette } from '../../report/style.js';
import { buildsJson, childJson, runAcrossBuilds, withoutFlags, type ChildRun } from '../builds.js';
import { printJson, useColor } from '../options.js';

/**
 * `swc verify … --redis-server A --redis-server B`: the same traffic (one
 * seed) on each build's private server, a finding per build, and each
 * finding some builds have and others not named as such. Returns the exit
 * code: a run that failed gives its code, else 1 for any finding.
 */
export async function verifyAcrossBuilds(
  binaries: readonly string[],
  seed: number,
  json: boolean,
  input: VerifyBuildsInput = { settings: [] },
): Promise<number> {
  const args = [...withoutFlags(process.argv.slice(2), ['--redis-server', '--json', '--seed']), '--json', '--seed', String(seed)];
  const runs: ChildRun[] = await runAcrossBuilds(binaries, args);
  const printed = runs.map((r) => childJson(r));
  // Read back in Unix seconds (the JSON's moments are ISO 8601): a reproduction is replayed on the other builds.
  const outputs = printed.map((parsed) =>
    isVerifyOutput(parsed) ? { ...parsed, results: parsed.results.map((r) => verifyResultOfJson(r as unknown as VerifyResultJson)) } : undefined,
  );
  const differences = buildDifferences(runs.map((r, i) => ({ label: r.label, output: outputs[i] })));
  await addAccepted(differences, runs, outputs, input);
  const findings = outputs.reduce((sum, o) => sum + (o?.findings ?? 0), 0);
  if (json)
    printJson(
      buildsJson(
        runs,
        printed.map((p) => (isVerifyOutput(p) ? p : undefined)),
        { seed, findings, differences },
      ),
    );
  else {
    const c = palette(useColor());
    const parts: string[] = [];
    if (differences.length > 0) {
      parts.push(c.bold('Findings that differ between builds'));
      for (const d of differences) {
        parts.push(`  ${d.layout}: ${c.red(d.text)}`);
        for (const r of d.received ?? []) parts.push(`    ${r.build} received: ${r.command} (${r.rejected ? 'rejected' : 'accepted'})`);
      }
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
