import { describe, expect, it } from 'vitest';
import { ownServer } from '../helpers.js';
import type { PrivateServer } from '../../src/redis/server.js';
import { plain, runInPty } from './in-pty.js';
import { runCli } from './run-cli.js';

let server: PrivateServer;
ownServer((s) => (server = s));

/**
 * The names a listing printed in its light column: the cell under `light`,
 * or, where the names stand on lines of their own above their rows, those
 * lines (a row of one cell).
 */
function printedNames(output: string): string[] {
  const rows = plain(output)
    .split('\n')
    .filter((l) => l.startsWith('│'))
    // A name longer than the box runs past its right border: that line has none.
    .map((l) => (l.endsWith('│') ? l.slice(1, -1) : l.slice(1)).split('│').map((c) => c.trim()));
  const head = rows[0] ?? [];
  const column = head.indexOf('light');
  if (column >= 0) return rows.slice(1).flatMap((r) => (r[column] ? [r[column]] : []));
  return rows.slice(1).flatMap((r) => (r.length === 1 && r[0] ? [r[0]] : []));
}

describe('swc lights in a terminal: every name printed is one swc inspect takes as printed', () => {
  it('at 80 and 60 columns, after swc demo --write, each reference is whole and inspect finds it (exit 0)', async () => {
    const demo = await runCli(['demo', '--redis-url', server.url, '--write']);
    expect(demo.code, demo.stderr).toBe(0);
    const listed = await runCli(['lights', '--redis-url', server.url, '--json']);
    const references = (JSON.parse(listed.stdout) as { lights: { reference: string }[] }).lights.map((l) => l.reference).sort();
    expect(references).toHaveLength(8);
    const [at80, at60] = await Promise.all([80, 60].map((columns) => runInPty(['lights', '--redis-url', server.url], { columns })));
    const seen = new Set<string>();
    for (const [columns, run] of [
      [80, at80],
      [60, at60],
    ] as const) {
      expect(run?.code, run?.output).toBe(0);
      const output = run?.output ?? '';
      expect(plain(output), `${columns} columns`).not.toContain('…');
      const names = printedNames(output);
      // Every light is listed, each under the name a user copies (the reference, or the name swc knows it by).
      expect(names, `${columns} columns:\n${plain(output)}`).toHaveLength(8);
      for (const name of names) seen.add(name);
      // A column given up for the names is said, with how to see it.
      if (/not shown at/.test(output)) expect(plain(output).replace(/\n {2}/g, ' ')).toMatch(new RegExp(`not shown at ${columns} columns: .*\\(--wide`));
    }
    const inspected = await Promise.all([...seen].map((name) => runCli(['inspect', name, '--redis-url', server.url])));
    inspected.forEach((r, i) => expect(r.code, `swc inspect ${[...seen][i]}: ${r.stderr}`).toBe(0));
    expect(seen.size).toBeGreaterThanOrEqual(8);
  });
});
