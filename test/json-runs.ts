/**
 * Runs of `swc … --json` checked against the schema files swc ships, shared by
 * test/cli/json-schemas.test.ts (spawned) and
 * test/integration/commands/json-schemas.test.ts (in-process).
 */
import { expect } from 'vitest';
import { SCHEMA_VERSION } from '../src/core/schema-version.js';
import { RUN_CLI_TIMEOUT_MS } from './cli/run-cli.js';
import { schemaErrors } from './schema-check.js';

/** A bench small enough for a test: two lights, a 30-second window, memory only. */
export const SMALL = ['--window', '30', '--rate', '1', '--lights', '2', '--no-throughput', '--no-progress'];
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** How a file runs swc: spawned (runCli) or in-process (runInProcess). */
type Runner = (args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number) => Promise<{ code: number | null; stdout: string; stderr: string }>;

/** Runs swc with `run`, expects `code`, parses stdout and checks it against schemas/<schema>.schema.json. */
export function jsonChecker(run: Runner) {
  return async (
    schema: string,
    args: readonly string[],
    code = 0,
    env: NodeJS.ProcessEnv = {},
    timeoutMs = RUN_CLI_TIMEOUT_MS,
  ): Promise<Record<string, unknown>> => {
    const result = await run(args, { REDIS_URL: '', ...env }, timeoutMs);
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(code);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(schemaErrors(schema, json), args.join(' ')).toEqual([]);
    expect(json.schemaVersion).toBe(SCHEMA_VERSION);
    return json;
  };
}
