/** `swc bench --json` (also with --instructions and --suggest): one result per layout, window and rate. */
import { z } from 'zod';
import { ttlFinding } from './client-keys.js';
import { clientComparison, clientResult } from './clients.js';
import { figure, header, moment, spread } from './common.js';

const roundStats = z.looseObject({
  count: z.number().int(),
  opsPerSec: spread,
  p50Ms: spread,
  p99Ms: spread,
  p999Ms: spread,
  serverUsecPerCall: spread.nullable(),
  serverCpuUsecPerCall: spread.nullable().optional(),
});

const latency = z.looseObject({
  opsPerSec: z.number(),
  p50Ms: z.number(),
  p99Ms: z.number(),
  p999Ms: z.number(),
  meanMs: z.number(),
  percentilesMs: z.record(z.string(), z.number()).optional(),
  ops: z.number(),
  durationSeconds: z.number(),
  serverUsecPerCall: figure,
  serverCpuUsecPerCall: figure.optional(),
  rounds: roundStats.optional(),
  noisy: z.boolean().optional(),
});

/** One key of a light as measured; `role` names it as `swc inspect` does. */
export const keyMemory = z.looseObject({
  role: z.string(),
  key: z.string(),
  type: z.string(),
  encoding: z.string(),
  elements: z.number().int(),
  bytes: z.number(),
  copies: z.number().int().optional(),
  longest: z
    .looseObject({ name: z.object({ text: z.string(), bytes: z.number() }), value: z.object({ field: z.string(), bytes: z.number() }).optional() })
    .optional(),
  largest: z.array(z.object({ field: z.string(), bytes: z.number() })).optional(),
});

const throughput = z.looseObject({
  write: latency,
  read: latency,
  request: latency,
  connections: z.number().int(),
  pipeline: z.number().int(),
  rounds: z.number().int().optional(),
  ratio: z
    .looseObject({
      reference: z.string(),
      write: spread,
      read: spread,
      request: spread,
      serverUsecPerRequest: spread.nullable(),
    })
    .optional(),
  app: z
    .looseObject({ meanMs: z.number(), p50Ms: z.number(), p99Ms: z.number(), rmePercent: z.number(), samples: z.number(), opsPerSec: z.number() })
    .optional(),
  clockEndAt: moment.optional(),
});

const realtime = z.looseObject({
  requestedRate: z.number(),
  achievedRate: z.number(),
  shortfallFraction: z.number(),
  durationSeconds: z.number(),
  events: z.number(),
  eventsTotal: z.number(),
  lights: z.number(),
  lateP50Ms: z.number(),
  lateP99Ms: z.number(),
  lateMaxMs: z.number(),
  write: z.looseObject({ p50Ms: z.number(), p99Ms: z.number(), p999Ms: z.number(), meanMs: z.number(), maxMs: z.number(), ops: z.number() }),
  startedAt: moment,
  endedAt: moment,
});

const accuracy = z.looseObject({
  reads: z.number(),
  maxAbsError: z.number(),
  meanAbsError: z.number(),
  threshold: z.number(),
  decisionMismatchFraction: z.number(),
  events: z.number().optional(),
  durationSeconds: z.number().optional(),
});

const opInstructions = z.looseObject({
  instructionsPerCall: z.number(),
  repeats: z.array(z.number()),
  min: z.number(),
  max: z.number(),
  spreadFraction: z.number(),
  noisy: z.boolean(),
});

const perCallSpread = z.looseObject({ mean: z.number(), min: z.number(), max: z.number() });
/** One operation's commands and bytes per call (src/measure/commandstats.ts). */
const commandsPerCall = z.looseObject({
  calls: z.number().int(),
  commands: perCallSpread,
  breakdown: z.array(perCallSpread.extend({ command: z.string() })),
  scriptCalls: z.number(),
  replyBytes: z.number(),
  requestBytes: z.number(),
});

/** One layout at one window and rate. */
export const cellResult = z.looseObject({
  layout: z.string(),
  windowSeconds: z.number(),
  rate: z.number(),
  durationSeconds: z.number(),
  eventsInWindow: z.number(),
  events: z.number(),
  memory: z.looseObject({ bytesPerLight: z.number(), usedMemoryDeltaPerLight: z.number(), keys: z.array(keyMemory), lights: z.number().int() }),
  throughput: throughput.optional(),
  realtime: realtime.optional(),
  published: z.looseObject({ kb: z.number(), bytes: z.number() }).optional(),
  accuracy: accuracy.optional(),
  serverCost: z.looseObject({ writeUsecPerCall: z.number(), readUsecPerCall: z.number(), requestUsecPerCall: z.number(), calls: z.number() }).optional(),
  commands: z.looseObject({ write: commandsPerCall, failure: commandsPerCall, read: commandsPerCall }).optional(),
  shards: z.array(z.looseObject({ node: z.string(), lights: z.number(), keys: z.number(), bytes: z.number() })).optional(),
  instructions: z.looseObject({ write: opInstructions.optional(), read: opInstructions.optional(), request: opInstructions.optional() }).optional(),
  ttlFindings: z
    .array(ttlFinding)
    .optional()
    .meta({ description: 'bench --client: keys the package wrote with no TTL or a TTL past its window plus slack; any one fails swc compare (exit 1)' }),
});

const suggestRow = z.looseObject({
  layout: z.string(),
  status: z.enum(['measured', 'failed', 'skipped']),
  rank: z.number().int().nullable(),
  bytesPerLight: figure,
  bytesPerWindowSecond: figure,
  ratioToSmallest: figure,
  serverUsecPerRequest: figure,
  maxAbsError: figure,
  decisionFlipFraction: figure,
  reads: figure,
  exact: z.boolean().nullable(),
  verdict: z.string(),
});

const suggestion = z.looseObject({
  windowSeconds: z.number(),
  rate: z.number(),
  lights: z.number(),
  threshold: figure,
  pick: z.string().nullable(),
  runnerUp: z.string().nullable(),
  ranking: z.array(suggestRow),
  paragraph: z.string(),
});

/** The whole `swc bench --json` document. */
export const benchSchema = z
  .looseObject({
    ...header,
    redis: z.looseObject({
      version: z.string(),
      memAllocator: z.string(),
      mode: z.string(),
      private: z.boolean(),
      where: z.string().optional(),
      notMeasured: z.array(z.string()).optional(),
      config: z.record(z.string(), z.number().nullable()),
      server: z.string().optional(),
      serverVersion: z.string().optional(),
    }),
    options: z.record(z.string(), z.unknown()),
    results: z.array(cellResult),
    startedAt: moment,
    elapsedSeconds: z.number(),
    measuringSeconds: z.number().optional(),
    serverScriptSeconds: figure.optional(),
    accuracyServerScriptSeconds: figure.optional(),
    commandsSkipped: z.string().optional(),
    encodingHints: z.array(z.looseObject({ layout: z.string(), role: z.string(), setting: z.string(), bytes: z.number() })).optional(),
    cluster: z
      .looseObject({
        shards: z.number().int(),
        nodes: z.array(z.string()),
        private: z.boolean(),
        lightSpread: z.string(),
        findings: z.array(z.looseObject({ layout: z.string() })),
      })
      .optional(),
    instructionsSeconds: z.number().optional(),
    layoutLabels: z.record(z.string(), z.string()).optional(),
    generations: z
      .record(z.string(), z.looseObject({ id: z.string(), commit: z.string().nullable(), name: z.string(), what: z.string() }))
      .optional()
      .meta({ description: 'with --scripts <Stoplight tree>: the upstream 6.0 generation each layout ran as, by layout name; name is `stoplight-v6 (hash-b, 4975eb6)`' }),
    incomplete: z
      .looseObject({
        layout: z.string(),
        phase: z.enum(['throughput', 'commands-per-call', 'accuracy']),
        error: z.string(),
        rejected: z.string().optional(),
        stoppedWith: z.string().optional().meta({ description: "with rejected: the run's own error; error is then the replayed call's, the one that sent rejected" }),
        cells: z.looseObject({ measured: z.number().int(), planned: z.number().int() }).optional(),
        cause: z.looseObject({ id: z.string(), name: z.string(), why: z.string() }).optional(),
      })
      .optional()
      .meta({ description: 'Set when a script error stopped the run after a memory phase: results hold what was measured until then.' }),
    suggestion: suggestion.optional(),
    suggestions: z.array(suggestion).optional(),
    clients: z.array(clientResult).optional().meta({ description: 'with --client: each package driven through its own calls' }),
    clientComparisons: z.array(clientComparison).optional(),
    clientsSkipped: z
      .array(z.looseObject({ client: z.string(), reason: z.string() }))
      .optional()
      .meta({ description: 'with --client all: packages that could not be loaded here, each with why' }),
  })
  .meta({ title: 'swc bench --json', description: 'One result per layout, window and rate (docs/output.md).' });
