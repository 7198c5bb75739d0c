import type { ComparedFields, ReproCall, VerifyResult } from '../verify/types.js';
import { palette, serverLine, visible } from './style.js';
import { isoMoment, unixSecondsOf } from '../core/format.js';
import { namedRejection } from '../core/rejection.js';

const n = (x: number): string => x.toLocaleString('en-US');

function window(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

function fields(f: ComparedFields, only: readonly (keyof ComparedFields)[]): string {
  return only.map((k) => `${k} ${f[k] ?? 'none'}`).join(', ');
}

/** A reproduction, one call a line, times as offsets from the first call. */
function reproduction(calls: readonly ReproCall[], windowSeconds: number): string[] {
  const t0 = calls[0]?.at ?? 0;
  const lines = [`    reproduction (${calls.length} call${calls.length === 1 ? '' : 's'} on a fresh light, window ${windowSeconds} s, first at ${t0}):`];
  const shown = calls.length > 24 ? [...calls.slice(0, 12), null, ...calls.slice(-12)] : calls;
  shown.forEach((call, i) => {
    if (call === null) {
      lines.push(`      … ${n(calls.length - 24)} more calls …`);
      return;
    }
    const index = calls.length > 24 && i > 12 ? calls.length - (shown.length - i) : i;
    lines.push(`      ${String(index + 1).padStart(3)}. ${call.op.padEnd(7)} at +${(call.at - t0).toFixed(3)} s`);
  });
  return lines;
}

/** What a layout's findings are, counted by kind: `2 disagreement(s), 1 key(s) without a TTL`. */
function findingKinds(r: VerifyResult): string {
  const kinds: [number, string][] = [
    [r.lightsDisagreeing, 'light(s) disagreeing with the model'],
    [r.lightsWithErrors, 'light(s) with script errors'],
    [r.deviationMisses.length, 'declared deviation(s) that did not happen'],
    [r.keysWithoutTtl.length, 'key(s) without a TTL'],
    [r.crossSlot.length, 'operation(s) refused with CROSSSLOT'],
  ];
  return kinds
    .filter(([count]) => count > 0)
    .map(([count, what]) => `${n(count)} ${what}`)
    .join(', ');
}

/**
 * The answer of `swc verify` in one line, printed first: `ok` with what
 * was compared, or `FAIL` with each failing layout and its findings.
 */
export function verifyVerdictLine(results: readonly VerifyResult[]): string {
  const failing = results.filter((r) => r.findings > 0);
  const calls = results.reduce((sum, r) => sum + r.calls, 0);
  const compared = results.reduce((sum, r) => sum + r.compared, 0);
  const layouts = results.length === 1 ? (results[0]?.layout ?? '') : `${results.length} layouts`;
  if (failing.length === 0) return `ok: ${layouts} agree${results.length === 1 ? 's' : ''} with the model (${n(calls)} calls, ${n(compared)} replies compared)`;
  const findings = failing.reduce((sum, r) => sum + r.findings, 0);
  const where = failing.map((r) => `${r.layout}: ${findingKinds(r) || `${n(r.findings)} finding(s)`}`).join('; ');
  return `FAIL: ${n(findings)} finding(s) in ${failing.length} of ${results.length} layout(s) (${where})`;
}

/** `swc verify -q`: the verdict line, then a line per layout. */
export function renderQuietVerify(results: readonly VerifyResult[], color: boolean): string {
  const c = palette(color);
  const first = verifyVerdictLine(results);
  const lines = results.length === 1 ? [] : results.map((r) => `  ${r.layout}: ${r.findings === 0 ? 'ok' : findingKinds(r) || `${n(r.findings)} finding(s)`}`);
  return `${[first.startsWith('ok') ? c.green(first) : c.red(first), ...lines].join('\n')}\n`;
}

/** Where a verification wrote (without credentials), and what it could not see there. */
export interface VerifyServer {
  readonly where: string;
  readonly notMeasured: readonly string[];
}

/**
 * `swc verify` as text: the verdict line, the server it wrote to (when
 * given) directly under it, then one block per layout, findings with their
 * reproductions, deviations apart.
 */
export function renderVerify(results: readonly VerifyResult[], color: boolean, server?: VerifyServer): string {
  const c = palette(color);
  const first = verifyVerdictLine(results);
  const out: string[] = [first.startsWith('ok') ? c.green(first) : c.red(first)];
  if (server !== undefined) out.push(c.dim(serverLine(visible(server.where), server.notMeasured)));
  for (const r of results) {
    const windows = [...new Set(r.windows)].sort((a, b) => a - b);
    out.push(
      `${c.bold(r.generation?.name ?? r.layout)}: ${n(r.calls)} calls on ${r.lights} lights (windows ${windows.map(window).join(', ')}), ` +
        `${n(r.compared)} replies compared, largest eviction ${n(r.largestEviction)} buckets in one call, ${r.durationSeconds.toFixed(1)} s`,
    );
    if (r.findings === 0) {
      const agree = r.unreproduced.length === 0 ? 'every reply agrees with the model' : 'every reply agrees with the model but those not reproduced below';
      out.push(`  ${c.green('ok')}: ${agree}, no script error, every key has a TTL`);
    }
    for (const x of r.crossSlot) {
      out.push(
        `  ${c.red('not cluster-safe')}: operation ${x.op}, Redis said ${x.error} (${n(x.calls)} call${x.calls === 1 ? '' : 's'} refused; ` +
          `the first passed ${x.keys} key${x.keys === 1 ? '' : 's'} in slots ${x.slots.join(', ')})`,
      );
    }
    for (const d of r.disagreements) {
      out.push(
        `  ${c.red('disagreement')} on a ${d.op} (window ${window(d.windowSeconds)}): expected ${fields(d.expected, d.fields)}; got ${fields(d.actual, d.fields)}`,
      );
      out.push(...reproduction(d.reproduction, d.windowSeconds));
    }
    if (r.lightsDisagreeing > r.disagreements.length) out.push(`  … ${r.lightsDisagreeing - r.disagreements.length} more light(s) disagreed`);
    for (const e of r.scriptErrors) {
      out.push(`  ${c.red('script error')} on a ${e.op} (window ${window(e.windowSeconds)}): ${e.error}`);
      if (e.rejected !== undefined) out.push(`    the server received: ${e.rejected}`);
      const cause = namedRejection(e.error, e.rejected);
      if (cause) out.push(`    cause: ${cause.name}: ${cause.why}`);
      out.push(...reproduction(e.reproduction, e.windowSeconds));
    }
    if (r.lightsWithErrors > r.scriptErrors.length) out.push(`  … ${r.lightsWithErrors - r.scriptErrors.length} more light(s) got errors`);
    for (const m of r.deviationMisses) {
      out.push(
        `  ${c.red('declared deviation did not happen')}: ${m.deviation} (window ${window(m.windowSeconds)}): predicted ${fields(m.predicted, ['successes', 'failures'])}; got the exact window, ${fields(m.actual, ['successes', 'failures'])}`,
      );
      out.push(...reproduction(m.reproduction, m.windowSeconds));
    }
    for (const k of r.keysWithoutTtl.slice(0, 10)) out.push(`  ${c.red('no TTL')}: ${k.key}`);
    if (r.keysWithoutTtl.length > 10) out.push(`  … ${r.keysWithoutTtl.length - 10} more key(s) without a TTL`);
    for (const u of r.unreproduced) {
      out.push(
        `  ${c.yellow('not reproduced')} (not a finding): a ${u.kind === 'disagreement' ? 'disagreement' : 'declared deviation that did not happen'} on a ${window(u.windowSeconds)} window ` +
          `went away when the light's ${n(u.calls)} calls were replayed at once: it waited ${u.pauseSeconds.toFixed(1)} s before that call, and the server expired keys on its own clock meanwhile`,
      );
    }
    for (const d of r.deviations) {
      out.push(`  deviation (declared, not a finding): ${d.id}: seen ${n(d.observed)} time(s) exactly as declared. ${d.description}`);
    }
    out.push(
      r.crossSlot.length > 0
        ? `  cluster: Redis Cluster refused ${r.crossSlot.map((x) => x.op).join(', ')} with CROSSSLOT: ${r.slots.lightsSpanningSlots} of ${r.slots.lightsChecked} lights span several slots`
        : r.slots.oneSlotPerLight
          ? "  cluster: every light's keys share one slot"
          : `  cluster: the keys of ${r.slots.lightsSpanningSlots} of ${r.slots.lightsChecked} lights span several slots (a multi-key script fails with CROSSSLOT on Redis Cluster)`,
    );
    if (r.shrink.budgetExhausted) out.push(`  shrinking stopped at its budget after ${n(r.shrink.replays)} replays: reproductions may be longer than needed`);
  }
  return `${out.join('\n')}\n`;
}

const reproJson = (calls: readonly ReproCall[]) => calls.map((c) => ({ ...c, at: isoMoment(c.at) }));
const fieldsJson = (f: ComparedFields) => ({
  ...f,
  lastSuccessAt: f.lastSuccessAt === null ? null : isoMoment(f.lastSuccessAt),
  lastErrorAt: f.lastErrorAt === null ? null : isoMoment(f.lastErrorAt),
});

/**
 * One result as `swc verify --json` prints it: every moment (a call's
 * injected time, a success's or failure's stamp) as ISO 8601, the rest as
 * measured (docs/output.md).
 */
export function verifyResultJson(r: VerifyResult) {
  return {
    ...r,
    disagreements: r.disagreements.map((d) => ({
      ...d,
      expected: fieldsJson(d.expected),
      actual: fieldsJson(d.actual),
      reproduction: reproJson(d.reproduction),
    })),
    scriptErrors: r.scriptErrors.map((e) => ({ ...e, reproduction: reproJson(e.reproduction) })),
    deviationMisses: r.deviationMisses.map((m) => ({
      ...m,
      predicted: fieldsJson(m.predicted),
      actual: fieldsJson(m.actual),
      reproduction: reproJson(m.reproduction),
    })),
  };
}

/** One result as `swc verify --json` prints it. */
export type VerifyResultJson = ReturnType<typeof verifyResultJson>;
type ResultJson = VerifyResultJson;
const reproOf = (calls: ResultJson['disagreements'][number]['reproduction']): ReproCall[] => calls.map((c) => ({ ...c, at: unixSecondsOf(c.at) }));
const fieldsOf = (f: ReturnType<typeof fieldsJson>): ComparedFields => ({
  ...f,
  lastSuccessAt: f.lastSuccessAt === null ? null : unixSecondsOf(f.lastSuccessAt),
  lastErrorAt: f.lastErrorAt === null ? null : unixSecondsOf(f.lastErrorAt),
});

/** A result read back from `swc verify --json` (another build's run): its moments as Unix seconds again, to replay. */
export function verifyResultOfJson(r: ResultJson): VerifyResult {
  return {
    ...r,
    disagreements: r.disagreements.map((d) => ({ ...d, expected: fieldsOf(d.expected), actual: fieldsOf(d.actual), reproduction: reproOf(d.reproduction) })),
    scriptErrors: r.scriptErrors.map((e) => ({ ...e, reproduction: reproOf(e.reproduction) })),
    deviationMisses: r.deviationMisses.map((m) => ({
      ...m,
      predicted: fieldsOf(m.predicted),
      actual: fieldsOf(m.actual),
      reproduction: reproOf(m.reproduction),
    })),
  };
}
