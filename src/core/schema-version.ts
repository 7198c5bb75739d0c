/**
 * The version of every `--json` document swc prints: one number for all
 * commands, bumped together when any field is renamed or changes meaning
 * (docs/output.md). 3: the first shared one (bench, compare, clean, doctor
 * and verify printed 1, lights and inspect 2).
 */
export const SCHEMA_VERSION = 3;

/** The bench results of this version or older that `swc compare` still reads (src/compare/load.ts upgrades them). */
export const READABLE_RESULT_VERSIONS: readonly number[] = [1, SCHEMA_VERSION];
