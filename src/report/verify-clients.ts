/** `swc verify --client`: a line per package, and a finding's reproduction. */
import type { ClientVerifyResult } from '../verify/clients.js';

const word = (allowed: boolean): string => (allowed ? 'allowed' : 'refused');

/** Findings of one package: a decision differing from the model, keys without a TTL, keys over the TTL bound. */
export function clientFindings(r: ClientVerifyResult): number {
  return (r.finding ? 1 : 0) + (r.ttl.withoutTtl.length > 0 ? 1 : 0) + (r.ttl.overBound.length > 0 ? 1 : 0);
}

/** The lines of one package's verification. */
export function clientVerifyLines(r: ClientVerifyResult): string[] {
  const head = `${r.packageName} ${r.version} (${r.algorithm}, ${r.clock.kind === 'injected' ? `injected clock: ${r.clock.source}` : 'real time'})`;
  const moved = r.moved > 0 ? `; ${r.moved} decision(s) moved off a window's edge, where the server's clock and swc's differ by a round trip` : '';
  const declared = r.deviation ? `; declared deviation: ${r.deviation.why}` : '';
  const ttl = [
    ...(r.ttl.withoutTtl.length > 0
      ? [
          `${head}: FINDING: ${r.ttl.withoutTtl.length} of its keys have no TTL (maxmemory-policy ${r.ttl.maxmemoryPolicy ?? 'not readable'}: under a volatile-* policy they are never evicted), e.g. ${r.ttl.withoutTtl[0]}`,
        ]
      : []),
    ...(r.ttl.overBound.length > 0
      ? [`${head}: FINDING: ${r.ttl.overBound.length} key(s) with a TTL over ${r.ttl.boundMs} ms (its window and stated slack)`]
      : []),
  ];
  if (!r.finding) return [`${head}: ${r.calls} decisions agree with the ${r.algorithm} model${moved}${declared}`, ...ttl];
  const f = r.finding;
  return [
    ...ttl,
    `${head}: FINDING: decision ${f.atCall + 1} (client ${f.id}): the ${r.algorithm} model ${word(f.expected)}, the package ${word(f.got)}${declared}`,
    `  reproduction (one client, fresh keys, ${f.reproduction.length} decision(s)${f.shrunk ? '' : ', shrinking stopped by its budget'}):`,
    ...f.reproduction.map((d) => `    at ${Math.round(d.atMs)} ms: model ${word(d.expected)}, package ${word(d.got)}`),
  ];
}

/** The whole text output: a verdict line, then each package. */
export function renderClientVerify(results: readonly ClientVerifyResult[], seed: number): string {
  const findings = results.reduce((n, r) => n + clientFindings(r), 0);
  const verdict = findings === 0 ? `no finding (${results.length} package(s), seed ${seed})` : `${findings} finding(s) (seed ${seed})`;
  return `${[verdict, ...results.flatMap(clientVerifyLines)].join('\n')}\n`;
}
