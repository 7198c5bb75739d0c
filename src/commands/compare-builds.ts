import { shown, shownDeep } from '../safety/text.js';
import { ExitCode, UsageError } from '../core/errors.js';
import { differentBuilds, roleChanges } from '../compare/builds.js';
import { renderRoleChanges } from '../report/across-builds.js';
import type { CompareSide } from '../report/compare.js';
import { SWC_VERSION } from '../core/version.js';
import { printJson, useColor } from './options.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';

/**
 * Results of two server builds differ by the build (encodings, allocator,
 * per-node overhead), not by a change to a layout: comparing them as a
 * regression check would blame the layout. Without `acrossBuilds` that is
 * refused (exit 2); with it, the report says per key role what the build
 * changed: encoding, element count, bytes. Returns undefined for results of
 * one build (the usual comparison goes on).
 */
export function compareAcrossBuilds(
  baseline: CompareSide,
  current: CompareSide,
  output: { acrossBuilds: boolean; json: boolean; format: string },
): number | undefined {
  const builds = differentBuilds(baseline.report, current.report);
  if (!builds) return undefined;
  if (!output.acrossBuilds) {
    throw new UsageError(
      `compare: ${shown(baseline.label)} was measured on ${shown(builds.baseline)}, ${shown(current.label)} on ${shown(builds.current)}; pass --across-builds to see what the build changes per key role (no regression verdict across builds)`,
    );
  }
  const changes = roleChanges(baseline.report, current.report);
  if (output.json) {
    printJson({
      schemaVersion: SCHEMA_VERSION,
      swcVersion: SWC_VERSION,
      acrossBuilds: true,
      baseline: { label: baseline.label, build: builds.baseline },
      current: { label: current.label, build: builds.current },
      changes,
    });
  } else {
    // Labels and builds come from the files: escaped, as every human format of compare.
    process.stdout.write(renderRoleChanges(shownDeep(changes), shownDeep(builds), output.format === 'markdown' ? 'markdown' : 'table', useColor()));
  }
  return ExitCode.ok;
}
