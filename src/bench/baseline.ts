/** bench `--baseline`: a baseline measured on another server build is refused before any cell runs. */
import { reportBuild, serverBuild } from '../compare/builds.js';
import { UsageError } from '../core/errors.js';
import type { BenchReport } from '../measure/types.js';
import { serverInfo } from '../redis/info.js';
import type { Shard, Target } from '../redis/target.js';
import { shown } from '../safety/text.js';

/**
 * `--baseline` from another server build (version, allocator, or Valkey
 * against Redis): exit 2 naming both builds, pointing at
 * `swc compare --across-builds`, which reports what the build changed.
 */
export async function refuseOtherBuild(baseline: { label: string; report: BenchReport }, target: Target, output: string | undefined): Promise<void> {
  const info = await serverInfo((target.shards[0] as Shard).session.redis);
  const here = serverBuild({
    version: info.version,
    memAllocator: info.memAllocator,
    ...(info.server ? { server: info.server.name, serverVersion: info.server.version } : {}),
  });
  const there = reportBuild(baseline.report);
  if (here === there) return;
  const saved = output ?? 'run.json';
  throw new UsageError(
    `--baseline: ${shown(baseline.label)} was measured on ${shown(there)}, this server is ${here}; a regression verdict across builds would blame the layout for what the build changed. ` +
      `Save this run (--output ${shown(saved)}) and run swc compare --across-builds ${shown(baseline.label)} ${shown(saved)}, or take a baseline on this build`,
  );
}
