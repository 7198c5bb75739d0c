/** `swc bench --client --json`: each package's figures, and its comparison with the designs (docs/output.md). */
import { z } from 'zod';
import { ttlFinding } from './client-keys.js';
import { spread } from './common.js';

const memory = z.looseObject({
  clients: z.number().int(),
  keys: z.number().int(),
  bytes: z.number(),
  bytesPerClient: z.number().meta({ description: "MEMORY USAGE … SAMPLES 0 summed over every key the package made for a client, averaged over the phase's clients" }),
  keysPerClient: z.number(),
  kinds: z.array(z.looseObject({ type: z.string(), encoding: z.string(), keys: z.number().int() })),
  withoutTtl: z.array(z.string()).meta({ description: 'keys the package left without a TTL' }),
  maxTtlMs: z.number().nullable(),
});

const accuracy = z.looseObject({
  sent: z.number().int(),
  allowed: z.number().int(),
  exactAllowed: z.number().int().meta({ description: 'what an exact sliding window with the same limit allows of the same traffic' }),
  maxInWindow: z.number().int().meta({ description: 'the most the package allowed one client in any window of its length' }),
  overLimit: z.number().int(),
  overAdmitted: z.number().int(),
  lockouts: z.number().int(),
  mismatchFraction: z.number(),
});

/** One package's figures. */
export const clientResult = z.looseObject({
  client: z.string(),
  packageName: z.string(),
  version: z.string(),
  algorithm: z.enum(['fixed-window', 'sliding-log', 'two-window']),
  clock: z.looseObject({
    kind: z.enum(['injected', 'real-time']).meta({ description: "injected: swc drove the package's time source; real-time: the window is timed by something swc cannot move" }),
    source: z.string(),
    why: z.string().optional(),
  }),
  windowSeconds: z.number(),
  rate: z.number(),
  limit: z.number().int(),
  memory: z.looseObject({ atRate: memory, atMultiple: memory.extend({ multiple: z.number() }), growsWithTraffic: z.boolean() }),
  ttl: z.looseObject({ withoutTtl: z.number().int(), maxTtlMs: z.number().nullable(), overWindow: z.boolean() }),
  ttlFindings: z
    .array(ttlFinding)
    .optional()
    .meta({ description: "keys the package left with no TTL, or past its window plus slack, with the server's maxmemory-policy; any one fails swc compare (exit 1)" }),
  commands: z.union([
    z.looseObject({
      perDecision: z.number().meta({ description: 'commands per decision, those run inside scripts and the script calls included (INFO commandstats)' }),
      inScripts: z.number(),
      scriptCalls: z.number(),
      replyBytes: z.number(),
      requestBytes: z.number(),
      breakdown: z.array(z.looseObject({ command: z.string(), mean: z.number() })),
    }),
    z.looseObject({ skipped: z.string() }),
  ]),
  throughput: z.looseObject({ decisionsPerSec: spread, rounds: z.number().int(), seconds: z.number() }).nullable(),
  accuracy: z.looseObject({ steady: accuracy, overload: accuracy, burst: accuracy }),
  elapsedSeconds: z.number(),
  findings: z.array(z.string()).meta({ description: "how the package ran on this server, one line each (a script the server refused as sent, and what swc ran in its place)" }),
});

/** A package against the designs measured at its window and rate. */
export const clientComparison = z.looseObject({
  client: z.string(),
  bytesPerClient: z.number(),
  designs: z.array(z.looseObject({ layout: z.string(), bytesPerLight: z.number(), ratio: z.number() })),
});

const decision = z.looseObject({ atMs: z.number(), expected: z.boolean(), got: z.boolean() });

/** `swc verify --client`: one package held to the model of its algorithm. */
export const clientVerifyResult = z.looseObject({
  client: z.string(),
  packageName: z.string(),
  version: z.string(),
  algorithm: z.enum(['fixed-window', 'sliding-log', 'two-window']),
  clock: z.looseObject({ kind: z.enum(['injected', 'real-time']), source: z.string(), why: z.string().optional() }),
  deviation: z.looseObject({ why: z.string(), marginMs: z.number() }).nullable(),
  calls: z.number().int(),
  moved: z.number().int().meta({ description: "real time: decisions moved off a window's edge as the model places it" }),
  finding: z
    .looseObject({
      id: z.string(),
      atCall: z.number().int(),
      expected: z.boolean(),
      got: z.boolean(),
      reproduction: z.array(decision).meta({ description: 'the shortest sequence found (one client, fresh keys) whose last decision still differs' }),
      shrunk: z.boolean(),
    })
    .nullable(),
  ttl: z.looseObject({
    keys: z.number().int(),
    withoutTtl: z.array(z.string()).meta({ description: 'keys the package wrote with no TTL (a finding)' }),
    overBound: z.array(z.string()).meta({ description: "keys whose TTL was over the package's window and stated slack (a finding)" }),
    boundMs: z.number(),
    maxmemoryPolicy: z.string().nullable(),
  }),
  elapsedSeconds: z.number(),
});
