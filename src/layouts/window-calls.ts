import { readScript, type LuaScript, type ScriptCall } from '../lua/source.js';
import { timeArg } from './parse.js';
import { parseCountsReply } from './snapshot.js';
import type { CallOptions, FailureOptions, Light, RecordOptions, Snapshot } from './types.js';

/** A layout's three scripts, in the order its calls use them. */
export type OperationScripts = readonly [success: LuaScript, failure: LuaScript, read: LuaScript];

/** Reads `<folder>/record_success`, `record_failure` and `get_metrics` under `root` (default swc's `lua/`). */
export function operationScripts(folder: string, root?: string): OperationScripts {
  return [
    readScript(`${folder}/record_success`, root),
    readScript(`${folder}/record_failure`, root),
    readScript(`${folder}/get_metrics`, root),
  ];
}

/**
 * The calling convention most layouts share: KEYS are the light's keys, ARGV
 * the window and the time, and a failure adds its error JSON; the read
 * replies the window's counts and a write replies nothing of the window. A
 * layout with that convention extends this and says only which keys a light
 * has.
 */
export abstract class WindowCalls {
  abstract readonly scripts: OperationScripts;

  /** Every key the scripts touch for `light`, in KEYS order. */
  protected abstract callKeys(light: Light): string[];

  recordSuccess(light: Light, options: RecordOptions): ScriptCall {
    return { script: this.scripts[0], keys: this.callKeys(light), args: [options.windowSeconds, timeArg(options.at)] };
  }

  recordFailure(light: Light, options: FailureOptions): ScriptCall {
    return {
      script: this.scripts[1],
      keys: this.callKeys(light),
      args: [options.windowSeconds, timeArg(options.at), options.errorJson],
    };
  }

  getMetrics(light: Light, options: CallOptions): ScriptCall {
    return { script: this.scripts[2], keys: this.callKeys(light), args: [options.windowSeconds, timeArg(options.at)] };
  }

  /** The read's reply: the window's success and failure counts. */
  parseMetrics(reply: unknown): Snapshot {
    return parseCountsReply(reply);
  }

  /** A failure's reply carries no snapshot (such layouts declare `failureReturnsSnapshot: false`). */
  parseFailure(): null {
    return null;
  }
}
