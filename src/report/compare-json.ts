import type { Verdict } from '../compare/diff.js';
import type { RoleChange } from '../compare/builds.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';
import { SWC_VERSION } from '../core/version.js';
import { verdictLine, type CompareSide } from './compare.js';

const sideJson = (s: CompareSide) => ({
  label: s.label,
  swcVersion: s.report.swcVersion,
  redis: { version: s.report.redis.version, memAllocator: s.report.redis.memAllocator },
});

/** The `--json` verdict of `swc compare` and `swc bench --baseline` (schemas/compare.json). */
export function verdictDocument(verdict: Verdict, baseline: CompareSide, current: CompareSide): Record<string, unknown> {
  const o = verdict.options;
  // The unit in every name (docs/output.md): tolerances are fractions (0.01 = the flag's 1%), or bytes.
  const options = {
    memoryToleranceFraction: o.memoryToleranceBytes === undefined ? o.memoryTolerance : null,
    memoryToleranceBytes: o.memoryToleranceBytes ?? null,
    throughputToleranceFraction: o.throughputTolerance,
    absolute: o.absolute,
    serverToleranceFraction: o.serverTolerance ?? null,
    // Null unless --instructions-tolerance set one for every row; each instruction row's `tolerance` says what it got and why.
    instructionsToleranceFraction: o.instructionsTolerance ?? null,
    instructionsSpreadFactor: o.instructionsTolerance === undefined ? (o.instructionsSpreadFactor ?? null) : null,
    instructionsToleranceFloorFraction: o.instructionsTolerance === undefined ? (o.instructionsToleranceFloor ?? null) : null,
  };
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    baseline: sideJson(baseline),
    current: sideJson(current),
    comparable: verdict.mismatches.length === 0,
    // The verdict as the table's first line says it, whole.
    verdictLine: verdictLine(verdict),
    ...verdict,
    options,
  };
}

/** The `--json` of `swc compare --across-builds`: what the build changed per key role. */
export function acrossBuildsDocument(
  baseline: CompareSide,
  current: CompareSide,
  builds: { baseline: string; current: string },
  changes: readonly RoleChange[],
): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    acrossBuilds: true,
    baseline: { label: baseline.label, build: builds.baseline },
    current: { label: current.label, build: builds.current },
    changes,
  };
}
