/**
 * Hostile manifests for the probe: the example manifest copied into a folder
 * of its own, with its record.lua given extra lines or the manifest edited.
 * Shared by the in-process probe test (every case) and the CLI test (a few
 * representative spawns per command).
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { at, type ManifestJson } from './documents.js';

const EXAMPLE = fileURLToPath(new URL('../fixtures/manifests/example/', import.meta.url));

/** How a case changes the example: lines before the last line of record.lua, a first line, or an edit of the manifest. */
export interface HostileEdit {
  readonly extra?: string;
  readonly first?: string;
  readonly edit?: (m: ManifestJson) => void;
}

/** The example manifest under `dir`/`name`, changed by `how`; `layoutName` renames the layout (one process registers a name once). */
export function hostile(dir: string, name: string, { extra, first, edit }: HostileEdit, layoutName?: string): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE, folder, { recursive: true });
  if (first !== undefined) {
    const file = path.join(folder, 'record.lua');
    writeFileSync(file, `${first}\n${readFileSync(file, 'utf8')}`);
  }
  if (extra !== undefined) {
    const file = path.join(folder, 'record.lua');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\nreturn now\n$/, `\n${extra}\nreturn now\n`));
  }
  const manifest = path.join(folder, 'my-log.json');
  if (edit || layoutName !== undefined) {
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as ManifestJson;
    edit?.(m);
    if (layoutName !== undefined) m.name = layoutName;
    writeFileSync(manifest, JSON.stringify(m));
  }
  return manifest;
}

/** [label, edit, the refusal's message]: each misdeed the probe (or the manifest's own checks) refuses. */
export const HOSTILE_CASES: readonly (readonly [string, HostileEdit, RegExp])[] = [
  ['a script that calls FLUSHALL', { extra: "redis.call('FLUSHALL')" }, /record\.lua:\d+: refused: this script ran FLUSHALL/],
  [
    'a script that writes a user key by name',
    { extra: "redis.call('SET', 'app:user:1', 'pwned')" },
    /record\.lua:\d+: refused: this script ran SET on "app:user:1", outside the run's namespace/,
  ],
  [
    'templates that leave out {prefix}',
    {
      edit: (m: ManifestJson) => {
        at(m.keys, 0).template = 'myapp:cb:{{name}}:successes';
        m.operations.recordSuccess.keys[0] = 'myapp:cb:{{name}}:successes';
        m.operations.getMetrics.keys[0] = 'myapp:cb:{{name}}:successes';
      },
    },
    /my-log\.json: keys\[0\]\.template: must start with "\{prefix\}"/,
  ],
  [
    'a script that deletes a key it was not given',
    { extra: "redis.call('DEL', 'app:session')" },
    /record\.lua:\d+: refused: this script ran DEL on "app:session", outside the run's namespace/,
  ],
  [
    'a script that SELECTs another database',
    { extra: "redis.call('SELECT', 1) redis.call('SET', KEYS[1], 'x')" },
    /record\.lua:\d+: refused: this script ran SELECT/,
  ],
  [
    'a script that writes a key built from ARGV',
    { extra: "redis.call('SET', 'app:' .. ARGV[3], 'x')" },
    /record\.lua:\d+: refused: this script ran SET on "app:0+1", outside the run's namespace/,
  ],
  ['a script that calls KEYS', { extra: "redis.call('KEYS', '*')" }, /record\.lua:\d+: refused: this script ran KEYS/],
  [
    'a script that reads CONFIG (Redis refuses it in scripts)',
    { extra: "redis.call('CONFIG', 'GET', 'maxmemory')" },
    /record\.lua: refused: this script called a command Redis refuses inside scripts \(at .*record\.lua:\d+\)/,
  ],
  [
    'a script that loops forever before writing',
    { first: 'while true do end' },
    /record\.lua: refused: this script did not finish within 2 s \(it was stopped with SCRIPT KILL\)/,
  ],
  [
    'a script that writes, then loops forever',
    { extra: "redis.call('SET', KEYS[1] .. ':x', 1) while true do end" },
    /record\.lua: refused: this script did not finish within 2 s and wrote before, so SCRIPT KILL could not stop it \(UNKILLABLE/,
  ],
];

/** Whether a case's message is the manifest's own check (refused as a --layout error, before any trust question). */
export const isManifestError = (message: RegExp): boolean => message.source.startsWith('my-log');

/** The refusal of scripts swc did not write bound for a user's server without --trust-scripts. */
export const UNTRUSTED = /--trust-scripts: refused: .*record\.lua.* not byte-identical/;

/** [label, Lua run from a light's 16th call on (after a probe's dozen)]: scripts only content can tell from swc's own. */
export const LATE_CASES: readonly (readonly [string, string])[] = [
  ['APPENDs 256 KB per call past the memory budget', "redis.call('APPEND', KEYS[2] .. ':big', string.rep('x', 262144))"],
  ['RESETs the slow log', "redis.call('SLOWLOG', 'RESET')"],
  ['loops after the probe', 'while true do end'],
  // A fixed count of Lua steps (about 0.5 s on this machine's Redis), not a wait on TIME: under swc's injected clock TIME stands still, and that loop would never end.
  ['takes about 1 s per call', 'local x = 0 for i = 1, 30000000 do x = x + i end'],
];

/** The record.lua lines that run `late` from a light's 16th call on. */
export const lateEdit = (late: string): HostileEdit => ({ extra: `if redis.call('HINCRBY', KEYS[2], 'calls', 1) > 15 then ${late} end` });

/** The one line bench and verify print for such scripts bound for a user's server without --trust-scripts. */
export const REFUSED =
  /^swc: --trust-scripts: refused: .* scripts swc did not write .*not byte-identical to the installed swc's lua\/.*nothing was sent to redis:\/\/127\.0\.0\.1:\d+.*pass --trust-scripts/;

/** A copy of the example manifest in `dir`/`name`; returns its manifest file. */
export function exampleCopy(dir: string, name: string): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE, folder, { recursive: true });
  return path.join(folder, 'my-log.json');
}

/** bench flags of a run that writes for up to 30 s (10 events a second, a 60 s window): long enough to be stopped mid-cell. */
export const LONG_RUN = ['--rate', '10', '--window', '60', '--time', '30'];
