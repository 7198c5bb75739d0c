import type { BenchReport } from '../measure/types.js';
import { kb } from './style.js';
import type { Grid } from './table.js';

/** `60` → `60 s`, `300` → `5 min` (as the other bench tables write windows). */
const windowText = (seconds: number): string => (seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`);

/** Per-shard totals on Redis Cluster: one row per cell, one column per primary (lights, keys, KB). */
export function shardsGrid(report: BenchReport): Grid | undefined {
  const cells = report.results.filter((r) => r.shards);
  if (!report.cluster || cells.length === 0) return undefined;
  const nodes = report.cluster.nodes;
  const head = ['window', 'req/s', 'layout', ...nodes];
  const rows = cells.map((r) => [
    windowText(r.windowSeconds),
    String(r.rate),
    r.layout,
    ...nodes.map((node) => {
      const s = r.shards?.find((x) => x.node === node);
      return s ? `${s.lights} / ${s.keys} / ${kb(s.bytes)}` : '';
    }),
  ]);
  return {
    head,
    rows,
    numeric: head.map((_, i) => i === 1 || i >= 3),
    caption: 'lights / keys / KB (MEMORY USAGE) on each primary',
    fit: { hoist: head.map((h) => h === 'window' || h === 'req/s') },
  };
}

/** Cluster-safety findings: layouts whose scripts take keys in several hash slots, with what Redis said. */
export function findingsGrid(report: BenchReport): Grid | undefined {
  const findings = report.cluster?.findings ?? [];
  if (findings.length === 0) return undefined;
  const head = ['layout', 'what', 'finding'];
  const rows = findings.flatMap((f) => [
    [f.layout, 'across slots', `${f.operations.join(', ')} (one call's keys in slots ${f.slots.join(', ')})`],
    ['', 'Redis said', `${f.operation} on ${f.node}: ${f.error}`],
    [
      '',
      'instead',
      f.variant !== undefined
        ? `${f.variant}${report.layoutLabels?.[f.variant] ? ` (${report.layoutLabels[f.variant]})` : ''}`
        : `nothing: ${f.cells} cell(s) not measured`,
    ],
  ]);
  return { head, rows, numeric: head.map(() => false), caption: 'layouts not measured; the run went on', fit: { legend: head.map((h) => h === 'finding') } };
}

/** Layouts whose name needs a word: `stoplight-v5-tagged = 5.x + hash tag, not shipped`. */
export function labelsLine(report: BenchReport): string | undefined {
  const labels = Object.entries(report.layoutLabels ?? {}).filter(([layout]) => report.generations?.[layout] === undefined);
  const generations = Object.values(report.generations ?? {});
  if (labels.length === 0 && generations.length === 0) return undefined;
  return [...generations.map((g) => `${g.name}: ${g.what}`), ...labels.map(([layout, label]) => `${layout} = ${label}`)].join('; ');
}

/** The cluster in the footer: `Redis Cluster, 3 primaries (127.0.0.1:7000, …), private`. */
export function clusterFooter(report: BenchReport): string | undefined {
  const c = report.cluster;
  if (!c) return undefined;
  return `Redis Cluster, ${c.shards} primar${c.shards === 1 ? 'y' : 'ies'} (${c.nodes.join(', ')})${c.private ? ', private' : ''}; light i on primary i mod ${c.shards}`;
}
