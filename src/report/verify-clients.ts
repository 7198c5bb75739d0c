/** `swc verify --client`: a line per package, and a finding's reproduction. */
import type { ClientVerifyResult } from '../verify/clients.js';

const word = (allowed: boolean): string => (allowed ? 'allowed' : 'refused');

/** The lines of one package's verification. */
export function clientVerifyLines(r: ClientVerifyResult): string[] {
  const head = `${r.packageName} ${r.version} (${r.algorithm}, ${r.clock.kind === 'injected' ? `injected clock: ${r.clock.source}` : 'real time'})`;
  const moved = r.moved > 0 ? `; ${r.moved} decision(s) moved off a window's edge, where the server's clock and swc's differ by a round trip` : '';
  const declared = r.deviation ? `; declared deviation: ${r.deviation.why}` : '';
  if (!r.finding) return [`${head}: ${r.calls} decisions agree with the ${r.algorithm} model${moved}${declared}`];
  const f = r.finding;
  return [
    `${head}: FINDING: decision ${f.atCall + 1} (client ${f.id}): the ${r.algorithm} model ${word(f.expected)}, the package ${word(f.got)}${declared}`,
    `  reproduction (one client, fresh keys, ${f.reproduction.length} decision(s)${f.shrunk ? '' : ', shrinking stopped by its budget'}):`,
    ...f.reproduction.map((d) => `    at ${Math.round(d.atMs)} ms: model ${word(d.expected)}, package ${word(d.got)}`),
  ];
}

/** The whole text output: a verdict line, then each package. */
export function renderClientVerify(results: readonly ClientVerifyResult[], seed: number): string {
  const findings = results.filter((r) => r.finding).length;
  const verdict = findings === 0 ? `no finding (${results.length} package(s), seed ${seed})` : `${findings} finding(s) (seed ${seed})`;
  return `${[verdict, ...results.flatMap(clientVerifyLines)].join('\n')}\n`;
}
