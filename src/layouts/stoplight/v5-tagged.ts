import { keyDef } from '../kit/keys.js';
import type { Layout } from '../types.js';
import { StoplightV5, V5_MAX_WINDOW_SECONDS, type StoplightV5Options, type V5KeyRows } from './v5.js';
import { StoplightV5Inspector } from './v5-inspector.js';

/** The variant's registered name. */
export const STOPLIGHT_V5_TAGGED = 'stoplight-v5-tagged';

/** 5.x's keys with the light's name as a hash tag. */
export const V5_TAGGED_KEYS: V5KeyRows = {
  metadata: keyDef('metadata', '{prefix}:metadata:{{name}}', 'hash'),
  success: keyDef('success events', '{prefix}:metrics:{{name}}:success:{hour}', 'zset', { scoresAreSeconds: true }),
  failure: keyDef('failure events', '{prefix}:metrics:{{name}}:failure:{hour}', 'zset', { scoresAreSeconds: true }),
};

/**
 * Stoplight 5.x's design with the light's name in a `{…}` hash tag:
 * `<prefix>:metadata:{<name>}` and `<prefix>:metrics:{<name>}:<outcome>:<hour>`,
 * so every key of a light hashes to one cluster slot. **Stoplight never
 * shipped this**: 5.x's keys carry the raw name, and its scripts take keys
 * in several slots, which a Redis Cluster refuses (CROSSSLOT). swc offers it
 * so a cluster run still compares 5.x's design (one sorted-set member per
 * event) with 6.0's. The scripts are 5.x's own (`lua/stoplight-v5/`, or a
 * `--scripts` tree's): only the key names differ. Its prefix,
 * `stoplight:v5t`, keeps its keys apart from 5.x's, so each key name is three
 * bytes longer than 5.x's (the braces and the `t`).
 */
export class StoplightV5Tagged extends StoplightV5 {
  override readonly name: string = STOPLIGHT_V5_TAGGED;
  override readonly inspector: StoplightV5Inspector;

  constructor(options: StoplightV5Options = {}) {
    super({ ...options, prefix: options.prefix ?? 'stoplight:v5t' }, V5_TAGGED_KEYS);
    this.inspector = new StoplightV5Inspector(STOPLIGHT_V5_TAGGED, this.keyTable, V5_MAX_WINDOW_SECONDS);
  }
}

/** The registry's entry (a variant of stoplight-v5, registered when its name is first asked for). */
export const stoplightV5TaggedDefinition = {
  name: STOPLIGHT_V5_TAGGED,
  create: (options?: StoplightV5Options): Layout => new StoplightV5Tagged(options),
  label: '5.x + hash tag, not shipped',
} as const;
