import { readScript, type LuaScript, type ScriptCall } from '../../lua/source.js';
import type { Light } from '../../core/light.js';
import { timeArg } from '../parse.js';
import { parseCountsReply } from '../snapshot.js';
import type { CallOptions, FailureOptions, RecordOptions, Snapshot } from '../types.js';
import type { KeyTable, LightKey } from './keys.js';

/** A layout's three scripts, in the order its calls use them. */
export type OperationScripts = readonly [success: LuaScript, failure: LuaScript, read: LuaScript];

/** Reads `<folder>/record_success`, `record_failure` and `get_metrics` under `root` (default swc's `lua/`). */
export function operationScripts(folder: string, root?: string): OperationScripts {
  return [readScript(`${folder}/record_success`, root), readScript(`${folder}/record_failure`, root), readScript(`${folder}/get_metrics`, root)];
}

/**
 * The calling convention most layouts share: KEYS are the light's keys of
 * its key table (every row without `{hour}`, in table order), ARGV the
 * window and the time, then what {@link writeArgs} adds to a write, and a
 * failure ends with its error JSON; the read replies the window's counts and
 * a write replies nothing of the window. A layout with that convention
 * extends this and states its key table; `keysOf` comes from the table.
 */
export abstract class WindowCalls {
  abstract readonly scripts: OperationScripts;
  /** The light's keys, stated once. */
  abstract readonly keyTable: KeyTable;

  /**
   * ARGV a write passes after the window and the time (before a failure's
   * error JSON), pushed onto `args`: none unless a layout says so.
   */
  protected writeArgs(_args: (string | number)[], _options: RecordOptions): void {}

  recordSuccess(light: Light, options: RecordOptions): ScriptCall {
    const args: (string | number)[] = [options.windowSeconds, timeArg(options.at)];
    this.writeArgs(args, options);
    return { script: this.scripts[0], keys: this.keyTable.callKeys(light), args };
  }

  recordFailure(light: Light, options: FailureOptions): ScriptCall {
    const args: (string | number)[] = [options.windowSeconds, timeArg(options.at)];
    this.writeArgs(args, options);
    args.push(options.errorJson);
    return { script: this.scripts[1], keys: this.keyTable.callKeys(light), args };
  }

  getMetrics(light: Light, options: CallOptions): ScriptCall {
    return { script: this.scripts[2], keys: this.keyTable.callKeys(light), args: [options.windowSeconds, timeArg(options.at)] };
  }

  /** The read's reply: the window's success and failure counts. */
  parseMetrics(reply: unknown): Snapshot {
    return parseCountsReply(reply);
  }

  /** A failure's reply carries no snapshot (such layouts declare `failureReturnsSnapshot: false`). */
  parseFailure(_reply?: unknown): Snapshot | null {
    return null;
  }

  /** The light's keys for a span of seconds (which only keys by the hour depend on), off its key table. */
  keysOf(light: Light, fromSecond = 0, toSecond = fromSecond): LightKey[] {
    return this.keyTable.keysOf(light, fromSecond, toSecond);
  }
}
