/** The flags of `swc verify`, read by the definition and, lazily, by the action. */
import type { LayoutName } from '../../layouts/index.js';
import type { BuildsFlags } from '../builds.js';
import type { ClusterFlags, RedisFlags } from '../options.js';

/** Every flag of `swc verify`, as commander gives them. */
export interface VerifyFlags extends RedisFlags, ClusterFlags, BuildsFlags {
  layout?: LayoutName[];
  calls: number;
  seed?: number;
  lights: number;
  json?: boolean;
  /** `-q`: the verdict line and a line per layout. */
  quiet?: boolean;
  progress: boolean;
  scripts?: string;
  trustScripts?: boolean;
  unconfinedScripts?: boolean;
  /** `--wait-for-runs`, seconds. */
  waitForRuns?: number;
  /** `--client`: packages to verify instead of layouts (src/commands/verify/clients.ts). */
  client?: string[];
  limit?: number;
  /** `--window` with --client, seconds. */
  window?: number;
}
