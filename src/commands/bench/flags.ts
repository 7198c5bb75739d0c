/** The flags of `swc bench` and their defaults: read by the definition and, lazily, by the action. */
import type { SweepAxis } from '../../bench/sweep.js';
import type { LayoutName } from '../../layouts/index.js';
import type { PanelName } from '../../report/chart-data.js';
import type { BenchFormat } from '../../report/bench.js';
import type { BuildsFlags } from '../builds.js';
import type { CompareFlags } from '../../compare/options.js';
import type { ClusterFlags, RedisFlags } from '../options.js';
import type { InstructionFlags } from './options-instructions.js';

/** Every flag of `swc bench`, as commander gives them. */
export interface BenchFlags extends RedisFlags, CompareFlags, ClusterFlags, InstructionFlags, BuildsFlags {
  trustScripts?: boolean;
  unconfinedScripts?: boolean;
  /** `--wait-for-runs`, seconds. */
  waitForRuns?: number;
  /** `--max-ops`: a load cap for every phase (fill, accuracy, throughput). */
  maxOps?: number;
  rate?: number[];
  window?: number[];
  layout?: LayoutName[];
  failureRate: number;
  lights: number;
  duration?: number;
  preset?: string;
  seed: number;
  throughput: boolean;
  connections: number;
  pipeline: number;
  ops?: number;
  time?: number;
  rounds: number;
  appView: boolean;
  format: BenchFormat | 'github';
  json?: boolean;
  progress: boolean;
  scenario?: string;
  baseline?: string;
  realtime?: boolean;
  accuracy?: boolean;
  commands?: boolean;
  threshold?: number;
  suggest?: boolean;
  scripts?: string;
  chart?: boolean;
  chartOut?: string;
  chartPanels?: PanelName[];
  output?: string;
  wide?: boolean;
  /** `-q`: the headline only (bytes per light and ratios; --suggest's pick; a comparison's verdict). */
  quiet?: boolean;
  dryRun?: boolean;
  percentiles?: number[];
  allowEviction?: boolean;
  sweep: SweepAxis[];
  /** `--client`: packages to drive through their own calls (src/commands/bench/clients.ts). */
  client?: string[];
  /** `--limit`: decisions a package allows per window. */
  limit?: number;
}

export {
  APP_VIEW_MS,
  DEFAULT_PHASE_SECONDS,
  DEFAULT_RATES,
  DEFAULT_REALTIME_SECONDS,
  DEFAULT_ROUNDS,
  DEFAULT_THRESHOLD,
  DEFAULT_WINDOWS,
} from '../../bench/defaults.js';
