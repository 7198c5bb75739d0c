import type { DemoLightResult, DemoResult } from '../demo/demo.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';
import { SWC_VERSION } from '../core/version.js';

/** Where the demo went, as the commands to try name it. */
export interface DemoWhere {
  /** The URL to pass to `--redis-url` (credentials redacted). */
  readonly url: string;
  /** swc's own private server (it stops when `swc demo` ends). */
  readonly private: boolean;
}

/** The `swc inspect` command line that shows one demo light (REDIS_URL set as {@link tryLines} says). */
export function inspectLine(light: DemoLightResult): string {
  // A 6.0 demo light on a user's server lives under the demo's mark: opened by its key, quoted for the shell ({…}).
  if (light.key !== undefined) return `swc inspect '${light.key}' --window 5m`;
  return `swc inspect ${light.name}${light.system === null ? '' : ` --system ${light.system}`} --window 5m`;
}

/** The commands worth trying next, in order, starting with the REDIS_URL they read. */
export function tryLines(result: DemoResult, where: DemoWhere): string[] {
  const red = result.lights.find((l) => l.state === 'red' && l.layout === 'stoplight-v6');
  const recovered = result.lights.find((l) => l.recovered);
  const lines = [`export REDIS_URL=${where.url}`, 'swc lights --window 5m', 'swc lights --window 5m --state red,yellow'];
  for (const light of [red, recovered]) if (light) lines.push(inspectLine(light));
  if (!where.private) lines.push('swc clean --yes');
  return lines;
}

/** What `swc demo` prints: each light with its state and story, the commands to try, and how the demo ends. */
export function demoLines(result: DemoResult, where: DemoWhere): string[] {
  // On a user's server every 5.x name and 6.0 system starts with the demo's mark: said once, above the list.
  const mark = result.prefix === null ? '' : `${result.prefix}:`;
  const bare = (name: string): string => (name.startsWith(mark) ? name.slice(mark.length) : name);
  const shown = (l: DemoLightResult): string => (l.system === null ? bare(l.name) : `${bare(l.system)}/${l.name}`);
  const width = Math.max(...result.lights.map((l) => shown(l).length));
  const out = [
    where.private
      ? `swc demo: a private redis-server at ${where.url} with ${result.lights.length} lights`
      : `swc demo: ${result.lights.length} lights under ${result.prefix ?? '?'} on ${where.url}`,
    `(${result.calls.toLocaleString('en-US')} calls over the last 4 min through swc's 5.x and 6.0 writers)`,
    ...(mark === '' ? [] : [`each 5.x light name and 6.0 system name starts with ${mark}, and so does every 6.0 key`]),
    '',
  ];
  for (const light of result.lights) {
    out.push(`  ${light.layout === 'stoplight-v5' ? '5.x' : '6.0'}  ${shown(light).padEnd(width)}  ${light.state.padEnd(12)}  ${light.story}`);
  }
  out.push('', where.private ? 'try, in another terminal:' : 'try:', ...tryLines(result, where).map((line) => `  ${line}`), '');
  out.push(
    where.private
      ? 'Ctrl-C stops the server; its lights go with it.'
      : `swc clean --yes removes exactly these ${result.keys.length} keys and the marker ${result.prefix ?? '?'}:run.`,
  );
  return out;
}

/** The `--json` document of `swc demo` (schemas/demo.schema.json). */
export function demoDocument(result: DemoResult, where: DemoWhere): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    redis: { url: where.url, private: where.private },
    prefix: result.prefix,
    at: new Date(result.at * 1000).toISOString(),
    windowSeconds: result.windowSeconds,
    calls: result.calls,
    keys: result.keys,
    lights: result.lights.map((l) => ({ ...l, inspect: inspectLine(l) })),
    try: tryLines(result, where),
  };
}
