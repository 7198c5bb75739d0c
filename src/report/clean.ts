import { SCHEMA_VERSION } from '../core/schema-version.js';
import { SWC_VERSION } from '../core/version.js';
import type { CleanResult, FoundNamespace } from '../clean/clean.js';

/** `3 d 4 h`, `12 min`: how long ago a run started. */
function age(startedAt: number | null, now: number): string {
  if (startedAt === null) return 'unknown age (no run marker)';
  const seconds = Math.max(0, Math.round((now - startedAt) / 1000));
  if (seconds < 120) return `${seconds} s old`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes} min old`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min old` : `${Math.floor(hours / 24)} d ${hours % 24} h old`;
}

function describe(ns: FoundNamespace, now: number, escape: (text: string) => string): string {
  if (!ns.marked) return `${escape(ns.prefix)}  ${ns.keys} key(s), not swc's (no run marker): left alone`;
  const size = ns.bytes === null ? 'bytes unavailable (MEMORY not allowed)' : `${(ns.bytes / 1024).toFixed(1)} KB`;
  const origin = ns.host ? `, from ${escape(ns.host)} pid ${ns.pid ?? '?'}` : '';
  const demo = ns.kind === 'demo' ? ', demo lights of swc demo' : '';
  return `${ns.prefix}  ${ns.keys} key(s), ${size}, ${age(ns.startedAt, now)}${origin}${demo}${ns.alive ? ', STILL RUNNING' : ''}`;
}

/**
 * The lines `swc clean` prints: each namespace (with its keys per primary on
 * a cluster), leftover ACL users, what was removed and kept, and the hint
 * to run again with --yes. `escape` makes text from the server safe to show.
 */
export function cleanLines(
  result: CleanResult,
  view: { now: number; where: string; pattern?: string; removing: boolean; escape: (text: string) => string },
): string[] {
  const { found, runUsers, removedUsers, removed, kept } = result;
  const out: string[] = [];
  if (found.length === 0 && runUsers.length === 0)
    out.push(view.pattern !== undefined ? `no keys under ${view.pattern} ${view.where}` : `no swc-bench:* namespaces ${view.where}`);
  for (const ns of found) {
    out.push(describe(ns, view.now, view.escape));
    if (ns.nodes) {
      const perNode = Object.entries(ns.nodes).map(([node, keys]) => `${node}: ${keys} key(s)`);
      out.push(`  ${perNode.join(', ') || 'no key on any primary'}`);
    }
  }
  for (const name of runUsers) if (!removedUsers.includes(name)) out.push(`${name}  temporary ACL user of a run that is gone`);
  for (const r of removed)
    out.push(
      r.prefix.startsWith('swc-demo:') ? `removed the ${r.keys} key(s) of ${r.prefix} (its marker's list)` : `removed ${r.keys} key(s) under ${r.prefix}:*`,
    );
  for (const name of removedUsers) out.push(`removed the temporary ACL user ${name}`);
  for (const k of kept) out.push(`kept ${k.prefix}: ${k.reason}`);
  if (!view.removing && found.some((ns) => ns.marked)) out.push('', 'nothing removed: run again with --yes to remove them');
  return out;
}

/** The `--json` document of `swc clean` (schemas/clean.json); `redis` is the target as shown (URL redacted). */
export function cleanDocument(result: CleanResult, redis: Record<string, unknown>): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    redis,
    // A moment of the contract is ISO 8601; the marker holds milliseconds.
    namespaces: result.found.map((ns) => ({ ...ns, startedAt: ns.startedAt === null ? null : new Date(ns.startedAt).toISOString() })),
    removed: result.removed,
    kept: result.kept,
    runUsers: result.runUsers,
    removedUsers: result.removedUsers,
  };
}
