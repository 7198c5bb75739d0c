/**
 * Result files carrying hostile strings (terminal escapes, an 8 MiB value), for
 * the checks that none reaches a terminal raw: shared by
 * test/cli/safety/escape-files.test.ts (spawned) and
 * test/unit/commands/escape-files.test.ts (in-process).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { at, type ReportJson } from './documents.js';

const SMALL = fileURLToPath(new URL('../fixtures/baselines/small.json', import.meta.url));

/** An OSC title change, a screen clear and a bell: what a hostile file would slip to a terminal. */
export const HOSTILE = '\x1b]0;pwned\x07\x1b[2J\r';

export const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f\x9b]/;

/** Hostile strings in every place a compared file's strings are shown. */
function hostile(r: ReportJson): void {
  r.redis.version = `7.0.15${HOSTILE}`;
  r.swcVersion = `0.1.0${HOSTILE}`;
  r.options.scenario = `${HOSTILE}${'s'.repeat(8 * 1024 * 1024 - 100)}`;
  at(r.results, 0).layout = `evil${HOSTILE}`;
}

export interface HostileResults {
  baseline: string;
  /** The baseline's build, with the first cell's memory doubled. */
  current: string;
  /** Another build: compare refuses it (exit 2) in one line that names both builds, escaped too. */
  otherBuild: string;
}

/** Writes the hostile copies of the small baseline into a folder of the calling file's own, removed after its tests. */
export function hostileResults(): HostileResults {
  const dir = mkdtempSync(path.join(tmpdir(), 'swc-escape-files-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const copy = (name: string, edit: (r: ReportJson) => void): string => {
    const report = JSON.parse(readFileSync(SMALL, 'utf8')) as ReportJson;
    hostile(report);
    edit(report);
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(report));
    return file;
  };
  return {
    baseline: copy('baseline.json', () => undefined),
    current: copy('current.json', (r) => (at(r.results, 0).memory.bytesPerLight *= 2)),
    otherBuild: copy('other-build.json', (r) => (r.redis.version = `7.2.0${HOSTILE}`)),
  };
}
