/**
 * `swc bench --baseline … --chart/--chart-out` headlines the gate's own
 * verdict, with the user's tolerances: one in-process run of the shipped
 * small scenario against a baseline whose 6.0 lights are 56 B smaller. At
 * compare's default (1%) that fails the smaller 6.0 cells; at
 * `--memory-tolerance 64B` it passes, and the charts must say so too.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareReports } from '../../../src/compare/diff.js';
import { plantBaseline, shippedBaseline, smallAgainst } from '../../cli/bench-fixtures.js';
import { redisUrl } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';
import { words } from '../../words.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-chart-verdict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const shipped = shippedBaseline();
// The run will measure the shipped bytes (listpacks: the same on every run of the build), so 6.0 grows by 56 B per light.
const { report: smaller, file: baselineFile } = plantBaseline(dir, 'smaller.json', (r) =>
  r.layout === 'stoplight-v6' ? r.memory.bytesPerLight - 56 : undefined,
);

describe("bench --baseline's chart headlines the gate's verdict", () => {
  it('--memory-tolerance 64B: the gate passes and the terminal chart and the SVG say ok, where compare at 1% would fail', async () => {
    // The case: the default tolerance fails this change, the user's passes it.
    expect(compareReports(smaller, shipped).ok).toBe(false);
    const svg = path.join(dir, 'chart.svg');
    const r = await runInProcess([...smallAgainst(redisUrl(), baselineFile), ...words('--memory-tolerance 64B --chart --chart-out'), svg, '--no-progress']);
    expect(r.stderr).not.toMatch(/not comparable/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok: no regression in 8 cell\(s\)/m);
    // The hero's headline, in the terminal chart and in the file: the gate's 64 B, none past it.
    expect(r.stdout).toMatch(/ok: nearest to the tolerance 64 B, stoplight-v6 \+\d\.\d% at [^;]*;\s+8 of 8/);
    expect(r.stdout).not.toMatch(/FAIL: stoplight-v6/);
    const drawn = readFileSync(svg, 'utf8');
    expect(drawn).toMatch(/ok: nearest to the tolerance 64 B/);
    expect(drawn).not.toContain('FAIL:');
  });
});
