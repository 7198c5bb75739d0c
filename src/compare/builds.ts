import type { BenchReport, CellResult, KeyMemory } from '../measure/types.js';

/** The build a report was measured on, as a label: "Redis 7.0.15 jemalloc-5.3.0", "Valkey 8.0.1 jemalloc-5.3.0". */
export function reportBuild(report: BenchReport): string {
  return serverBuild(report.redis);
}

/** The same label from a report's `redis` section, or from what a server reports of itself before a run. */
export function serverBuild(redis: Pick<BenchReport['redis'], 'version' | 'memAllocator' | 'server' | 'serverVersion'>): string {
  const name = redis.server ?? 'redis';
  const version = redis.serverVersion ?? redis.version;
  return `${name.charAt(0).toUpperCase()}${name.slice(1)} ${version} ${redis.memAllocator}`;
}

/** The two builds when two reports were measured on different ones; undefined for the same build. */
export function differentBuilds(baseline: BenchReport, current: BenchReport): { baseline: string; current: string } | undefined {
  const a = reportBuild(baseline);
  const b = reportBuild(current);
  return a === b ? undefined : { baseline: a, current: b };
}

/** What one key role holds in a cell, summed over the role's keys of one light. */
export interface RoleFigures {
  readonly encoding: string;
  readonly elements: number;
  readonly bytes: number;
}

/** One key role of one cell in both results, and what changed between the builds. */
export interface RoleChange {
  readonly layout: string;
  readonly windowSeconds: number;
  readonly rate: number;
  readonly role: string;
  readonly baseline: RoleFigures | null;
  readonly current: RoleFigures | null;
  /** `encoding`, `elements`, `bytes`: those that differ. */
  readonly changed: readonly ('encoding' | 'elements' | 'bytes')[];
}

function roles(cell: CellResult): Map<string, RoleFigures> {
  const out = new Map<string, { encodings: Set<string>; elements: number; bytes: number }>();
  for (const key of cell.memory.keys as readonly KeyMemory[]) {
    const entry = out.get(key.role) ?? { encodings: new Set<string>(), elements: 0, bytes: 0 };
    entry.encodings.add(key.encoding);
    entry.elements += key.elements;
    entry.bytes += key.bytes;
    out.set(key.role, entry);
  }
  return new Map([...out].map(([role, e]) => [role, { encoding: [...e.encodings].sort().join('+'), elements: e.elements, bytes: e.bytes }]));
}

/** Per cell both results have (layout, window, rate) and per key role: encoding, element count and bytes on each build. */
export function roleChanges(baseline: BenchReport, current: BenchReport): RoleChange[] {
  const out: RoleChange[] = [];
  for (const a of baseline.results) {
    const b = current.results.find((c) => c.layout === a.layout && c.windowSeconds === a.windowSeconds && c.rate === a.rate);
    if (!b) continue;
    const ra = roles(a);
    const rb = roles(b);
    for (const role of new Set([...ra.keys(), ...rb.keys()])) {
      const x = ra.get(role) ?? null;
      const y = rb.get(role) ?? null;
      const changed: RoleChange['changed'][number][] = [];
      if (x?.encoding !== y?.encoding) changed.push('encoding');
      if (x?.elements !== y?.elements) changed.push('elements');
      if (x?.bytes !== y?.bytes) changed.push('bytes');
      out.push({ layout: a.layout, windowSeconds: a.windowSeconds, rate: a.rate, role, baseline: x, current: y, changed });
    }
  }
  return out;
}
