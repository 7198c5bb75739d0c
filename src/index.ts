/**
 * swc as a library: the same use cases the CLI runs, returning plain data.
 * Nothing here prints or exits; failures are typed errors carrying the exit
 * code the CLI would use (see ./errors.ts).
 *
 * This list is the public API, kept short on purpose: everything else in
 * src/ is internal and may change without notice. See docs/architecture.md.
 */

// Errors and version.
export { ExitCode, SwcError, UsageError, InputFileError, RedisUnavailableError, ScriptError, ServerStateError } from './core/errors.js';
export { SWC_VERSION } from './core/version.js';

// A connection (or a private redis-server swc starts and stops).
export { openSession, type Session, type SessionOptions } from './redis/connect.js';

// Layouts: the registry, a client to drive one, manifests.
export { createLayout, layoutNames, registerLayout, type LayoutDefinition, type LayoutName } from './layouts/index.js';
export type { Layout } from './layouts/types.js';
export { LayoutClient } from './layouts/client.js';
export { loadManifestLayout } from './layouts/manifest.js';
export { shortId } from './layouts/stoplight/v6.js';
export { SlidingWindowModel } from './model/sliding-window.js';

// Where a run writes: one server, or a cluster's primaries.
export { openClusterSession, type ClusterSession } from './redis/cluster.js';
export { clusterTarget, singleTarget, type Target } from './redis/target.js';
// The one door: a target opened from what names it (a URL, a cluster's seeds, a private server or cluster).
export { openTarget, type TargetSpec, type TargetLimits } from './run/open.js';

// bench: memory, accuracy and throughput of layouts, in a namespace of its own,
// behind the same guards as the CLI (probe, preflight, CROSSSLOT, ACL confinement, clean-up).
export { runGuardedBench as runBench, type GuardedBench as BenchRun } from './bench/guarded-bench.js';
export type { BenchPlan } from './bench/plan.js';
// How scripts swc did not write may run on a server swc did not start: runBench's and verifyLayout's trust options.
export type { ScriptTrust } from './safety/trust.js';
export { createNamespace, purgeNamespace } from './run/namespace.js';
export { loadScenario } from './bench/scenario.js';
export type { BenchReport, CellResult } from './measure/types.js';

// verify: a layout against the reference model.
export { verifyLayout, type VerifyOptions, type VerifyTarget } from './verify/verify.js';
export { UntrustedRefusal } from './safety/probe.js';
export type { VerifyResult } from './verify/types.js';

// inspect and lights: reading what is stored.
export { inspectLight, type InspectRequest } from './inspect/inspect.js';
export { listLights, type ListOptions } from './inspect/list.js';
export type { Inspection, LightList } from './layouts/inspection.js';

// compare: two bench results, with a verdict.
export { compareReports, DEFAULT_COMPARE_OPTIONS, type CompareOptions, type Verdict } from './compare/diff.js';
export { loadReport } from './compare/load.js';

// doctor: what a server allows.
export { diagnose, type Diagnosis } from './doctor/diagnose.js';
