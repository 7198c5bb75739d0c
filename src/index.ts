/**
 * swc as a library: layouts, the reference model, and Redis helpers. Nothing
 * here prints or exits; errors are typed (see ./errors.ts).
 */
export * from './errors.js';
export { SWC_VERSION } from './version.js';
export * from './layouts/types.js';
export {
  layoutNames,
  defaultLayoutNames,
  isLayoutName,
  isManifestPath,
  createLayout,
  namespacedLayout,
  registerLayout,
  registerManifestLoader,
  registeredLayouts,
  resolveLayout,
  resolveLayoutName,
  type LayoutDefinition,
  type LayoutName,
  type ManifestLoader,
} from './layouts/index.js';
export { TemplateInspector, parseKeyTemplate, sha256Id, type KeyTemplate, type KeyPlaceholder, type TemplateInspectorOptions, type TemplateTarget } from './layouts/template-inspector.js';
export { StoplightV5, hourStart, HOUR_SECONDS, V5_MAX_WINDOW_SECONDS } from './layouts/stoplight-v5.js';
export { StoplightV6, shortId } from './layouts/stoplight-v6.js';
export { SlidingLog } from './layouts/sliding-log.js';
export { Ring } from './layouts/ring.js';
export { Packed, PACKED_SLOT_BYTES } from './layouts/packed.js';
export { Coarse, coarseUncounted, DEFAULT_BUCKET_SECONDS, type CoarseOptions } from './layouts/coarse.js';
export { TwoWindow, TWO_WINDOW_APPROXIMATION } from './layouts/two-window.js';
export { LayoutClient } from './layouts/client.js';
export { SlidingWindowModel, type WindowCounts } from './model/sliding-window.js';
export { createRng, type Rng } from './traffic/random.js';
export { evenTraffic, errorJsonFor, eventCount, BENCH_EPOCH, type TrafficEvent, type TrafficSpec } from './traffic/events.js';
export {
  installScripts,
  loadScripts,
  runScript,
  execPipeline,
  ioredisChannel,
  type PipelineReply,
  type RunnerOptions,
  type ScriptChannel,
  type RedisCommand,
} from './redis/scripts.js';
export { classifyRedisError, type ErrorContext } from './redis/errors.js';
export { RespConnection, RequestWriter, type BatchErrors, type RespTarget } from './redis/resp.js';
export {
  readScript,
  loadScript,
  withInjectedClock,
  injectedTimeArg,
  type IncludeConvention,
  type LuaScript,
  type ScriptCall,
  type ScriptSource,
} from './lua/source.js';
export { ManifestLayout, loadManifestLayout, manifestDefinition, parseReply, readManifest, type ManifestLayoutOptions } from './layouts/manifest.js';
export { MANIFEST_VERSION, PLACEHOLDERS, parseManifest, type ClockSource, type Manifest } from './layouts/manifest-schema.js';
export { classifyScriptsDir, scriptsDirLayouts, stoplightLayout, withScriptsDir, type ScriptsDir } from './layouts/manifest-scripts.js';
export { connect, openSession, parseRedisUrl, type Session, type SessionOptions, type ConnectOptions } from './redis/connect.js';
export { startPrivateServer, freePort, type PrivateServer, type PrivateServerOptions } from './redis/server.js';
export { serverInfo, parseInfo, compareVersions, ENCODING_SETTINGS, type ServerInfo } from './redis/info.js';
export { inspectLight, resolveTargets, inspectionDocument, INSPECT_SCHEMA_VERSION, type InspectRequest, type InspectDocument, type LayoutTargets } from './inspect/inspect.js';
export { listLights, selectLights, totalsOf, globRegExp, lightOrders, type ListOptions, type LightOrder, type LightSelection } from './inspect/list.js';
export { StoplightV5Inspector, type V5Target } from './layouts/stoplight-v5-inspector.js';
export { StoplightV6Inspector, type V6Target } from './layouts/stoplight-v6-inspector.js';
export type * from './layouts/inspection.js';
export { loadScenario, parseScenario, type Scenario, type ScenarioThroughput } from './bench/scenario.js';
export { loadReport, parseReport, RESULT_SCHEMA_VERSION } from './compare/load.js';
export {
  compareReports,
  cellName,
  DEFAULT_COMPARE_OPTIONS,
  OPERATIONS,
  type CompareOptions,
  type CompareRow,
  type Figure,
  type Mismatch,
  type Operation,
  type RowStatus,
  type Verdict,
} from './compare/diff.js';
export type {
  BenchReport,
  CellResult,
  MemoryResult,
  KeyMemory,
  LatencyStats,
  ThroughputResult,
  ThroughputRatio,
  RoundStats,
  Spread,
  AppView,
  RealtimeResult,
  RealtimeLatency,
} from './measure/types.js';
export { driveRealtime, type RealtimeOptions } from './bench/realtime.js';
export type { EncodingHint, LongestParts } from './measure/types.js';
export { withLongestParts } from './measure/encoding.js';
export { causesOf, encodingHints, type LimitCause } from './measure/encoding-advice.js';
export {
  parseSweep,
  combinationsOf,
  summarize as summarizeSweep,
  adviseSweep,
  type SweepAxis,
  type SweepReport,
  type SweepRun,
  type SweepSummaryRow,
  type SweepAdvice,
} from './bench/sweep.js';
export { runLoad, type LoadOptions, type LoadResult, type LoadProgress, type LoadStop } from './measure/load.js';
export {
  readScriptCommandStats,
  parseScriptCommandStats,
  scriptCommandDelta,
  type ScriptCommandStats,
  type ScriptCommandDelta,
} from './measure/commandstats.js';
export {
  measureThroughput,
  measureThroughputRounds,
  spreadOf,
  type ThroughputOptions,
  type ThroughputPhase,
  type ThroughputProgress,
  type ThroughputTarget,
  type RoundsOptions,
  type RoundsProgress,
  type ShardedRedis,
} from './measure/throughput.js';
export { runLoadGroups, type LoadGroup } from './measure/load.js';
export { StoplightV5Tagged, STOPLIGHT_V5_TAGGED } from './layouts/stoplight-v5-tagged.js';
export { openClusterSession, startPrivateCluster, readTopology, type ClusterSession, type ClusterTopology, type ClusterNode, type PrivateCluster } from './redis/cluster.js';
export { clusterShards, singleShard, spreadLights, shardOfLight, type Shard, type ShardSet } from './bench/shards.js';
export { clusterSafePlan, type ClusterPlan } from './bench/cluster-safety.js';
export { measureAppView, type AppViewOptions } from './measure/app-view.js';
export { NOISY_SPREAD } from './measure/types.js';
export { defaultErrorJson, type ErrorJson } from './measure/workload.js';
export { EventClock, type ClockTick } from './traffic/event-clock.js';
export { verifyLayout, type VerifyOptions } from './verify/verify.js';
export { generateTraffic, type TrafficOptions } from './verify/traffic.js';
export type * from './verify/types.js';
export { preflight, refusalOf, type PreflightReport, type PreflightFinding, type PreflightOptions, type MemoryHeadroom } from './redis/preflight.js';
export { estimatePeakBytes, type PeakEstimate } from './bench/footprint.js';
export { footprints } from './layouts/footprint.js';
export { runBench, type BenchRun, type BenchProgress } from './bench/run.js';
export type { BenchPlan, ThroughputPlan, Cell } from './bench/plan.js';
export {
  createNamespace,
  listNamespaces,
  namespaceOf,
  purgeNamespace,
  deleteKeys,
  CleanupIncompleteError,
  type Namespace,
  type NamespaceUsage,
} from './bench/namespace.js';
