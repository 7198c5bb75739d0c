import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaFiles } from '../../../tools/schema-files.js';
import { schemaErrors } from '../../schema-check.js';

describe('schemas/ (the shipped JSON Schema files)', () => {
  it('are what npm run schemas writes from src/schemas/: none stale, none missing, none left over', () => {
    const expected = schemaFiles();
    expect(readdirSync('schemas').sort()).toEqual(Object.keys(expected).sort());
    for (const [file, text] of Object.entries(expected)) expect(readFileSync(`schemas/${file}`, 'utf8'), `${file}: run npm run schemas`).toBe(text);
  });

  it('refuse an old document: another schemaVersion, a Unix-second moment, a renamed field', () => {
    const good = {
      schemaVersion: 3,
      swcVersion: '0.1.0',
      dryRun: true,
      cells: [],
      phases: [{ phase: 'fill', estimatedSeconds: 1 }],
      servers: 1,
      estimatedSeconds: 1,
    };
    expect(schemaErrors('bench-dry-run', good)).toEqual([]);
    expect(schemaErrors('bench-dry-run', { ...good, schemaVersion: 1 }).join('\n')).toMatch(/\/schemaVersion/);
    expect(schemaErrors('bench-dry-run', { ...good, phases: [{ phase: 'fill', seconds: 1 }] }).join('\n')).toMatch(/estimatedSeconds/);
    const clean = { schemaVersion: 3, swcVersion: '0.1.0', redis: { url: 'redis://x' }, removed: [], kept: [], runUsers: [], removedUsers: [] };
    const ns = { prefix: 'swc-bench:12345678', keys: 1, bytes: 10, host: null, pid: null, alive: false, marked: true };
    expect(schemaErrors('clean', { ...clean, namespaces: [{ ...ns, startedAt: '2026-12-01T21:00:00.123Z' }] })).toEqual([]);
    expect(schemaErrors('clean', { ...clean, namespaces: [{ ...ns, startedAt: 1_764_450_000_000 }] }).join('\n')).toMatch(/startedAt/);
  });
});
