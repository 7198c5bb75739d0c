import { checkInstructions, countAfterRun, DEFAULT_INSTRUCTION_CALLS, DEFAULT_INSTRUCTION_REPEATS, type InstructionsPlan } from '../../bench/instructions.js';
import type { InstructionFlags } from './options-instructions.js';
import type { BenchPlan } from '../../bench/plan.js';
import { UsageError } from '../../core/errors.js';
import type { ValgrindTools } from '../../measure/callgrind.js';
import type { BenchReport } from '../../measure/types.js';
import type { Target } from '../../run/open.js';

export type { InstructionFlags } from './options-instructions.js';

/** What a run that counts needs: the plan and valgrind found; undefined when the run does not count. Refusals are thrown before any server starts. */
export function instructionsOf(
  flags: InstructionFlags & {
    redisUrl?: string;
    redisUrls?: string[];
    cluster?: boolean;
    clusterShards?: number;
    realtime?: boolean;
    sweep?: readonly unknown[];
  },
): { plan: InstructionsPlan; tools: ValgrindTools } | undefined {
  const wanted = flags.instructions === true || flags.profile === true;
  if (!wanted) {
    const stray = flags.instructionCalls !== undefined ? '--instruction-calls' : flags.instructionRepeats !== undefined ? '--instruction-repeats' : undefined;
    if (stray) throw new UsageError(`${stray}: sets the instruction count; add --instructions`);
    return undefined;
  }
  const flag = flags.profile && !flags.instructions ? '--profile' : '--instructions';
  if ((flags.sweep?.length ?? 0) > 0) throw new UsageError(`${flag}/--sweep: give one of them`);
  // REDIS_URL names a server swc did not start, as --redis-url does: refused here, at plan
  // time, not after the run's calls reached that server (7,200 EVALSHA used to).
  if (flags.redisUrl === undefined && (flags.redisUrls?.length ?? 0) === 0 && process.env.REDIS_URL) {
    throw new UsageError(
      `${flag}: REDIS_URL is set, and valgrind must start and own the server process it counts, so it needs swc's private server (run with REDIS_URL= (empty))`,
    );
  }
  const tools = checkInstructions(flags, flag);
  return {
    tools,
    plan: {
      calls: flags.instructionCalls ?? DEFAULT_INSTRUCTION_CALLS,
      repeats: flags.instructionRepeats ?? DEFAULT_INSTRUCTION_REPEATS,
      profile: flags.profile === true,
    },
  };
}

/** Counts the plan's cells on a server under callgrind beside the run's private one (src/bench/instructions.ts), its progress on stderr. */
export function countForReport(
  counting: { plan: InstructionsPlan; tools: ValgrindTools },
  target: Target,
  plan: BenchPlan,
  report: BenchReport,
  options: { progress: boolean; signal?: AbortSignal },
): Promise<BenchReport> {
  return countAfterRun(counting, target, plan, report, {
    ...(options.progress ? { say: (text: string) => void process.stderr.write(`swc bench: counting instructions: ${text}\n`) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
