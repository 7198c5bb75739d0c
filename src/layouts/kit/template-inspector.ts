import type { Redis } from 'ioredis';
import { DEFAULT_SYSTEM } from '../../core/light.js';
import { UsageError } from '../../core/errors.js';
import { describeKeys, keyTypes, limitsOf, Longest, readConsistently, readHash, readSortedSet, scanKeys, summarize, windowOf } from '../inspection-keys.js';
import type { EncodingLimits, JudgeOptions, KeysInspection } from '../inspection.js';
import { escapeGlob, escapeRegExp } from '../parse.js';
import type { InspectTarget, KeyOwner, KeySearch, LayoutInspector, TargetRequest } from '../types.js';
import type { CarriedPart, KeyDef, KeyPlaceholder, KeyTable, LightKey } from './keys.js';

/** What a key name carries besides the prefix: every placeholder but `{prefix}`. */
type Carried = Exclude<KeyPlaceholder, 'prefix'>;

/** Known values of placeholders; absent = unknown (scanned for, or the template is skipped). */
type Values = Partial<Record<Carried, string>>;

/** A light by the placeholder values its keys carry. */
export interface TemplateTarget extends InspectTarget {
  /** Any namespace in front of the keys, with its trailing colon; '' for none. */
  readonly namespace: string;
  readonly values: Values;
}

const GROUP: Record<Carried, string> = {
  name: '(.+)',
  system: '(.+)',
  lightId: '([0-9a-f]+)',
  systemId: '([0-9a-f]+)',
  hour: '(\\d+)',
  number: '(\\d+)',
};

interface Compiled {
  readonly def: KeyDef;
  /** The row's template with the prefix as literal text. */
  readonly parts: readonly CarriedPart[];
  /** Namespace (group 1), then one group per placeholder in order. */
  readonly regex: RegExp;
  readonly placeholders: Carried[];
}

/**
 * A generic inspector for any layout by its key table: it finds a light's
 * keys (the table's templates as patterns) and reports each key's type, encoding, elements, exact bytes,
 * TTL, cluster slot and distance to the listpack limits. It does not decode
 * what the keys hold (no buckets, no drift check): a layout that wants that
 * brings an inspector of its own.
 */
export class TemplateInspector implements LayoutInspector {
  private readonly compiled: Compiled[];
  private readonly hashName: (name: string) => string;

  /** The inspector of the layout named `layout`, over the rows of its key table. */
  constructor(
    private readonly layout: string,
    private readonly table: KeyTable,
  ) {
    this.hashName = table.hashName;
    this.compiled = table.defs.map((def) => {
      const parts = table.resolved(def);
      const placeholders: Carried[] = [];
      const body = parts
        .map((part) => {
          if (typeof part === 'string') return escapeRegExp(part);
          placeholders.push(part.placeholder);
          return GROUP[part.placeholder];
        })
        .join('');
      return { def, parts, regex: new RegExp(`^((?:.*?:)??)${body}$`, 's'), placeholders };
    });
    if (!this.compiled.some((c) => c.placeholders.includes('name') || c.placeholders.includes('lightId'))) {
      throw new UsageError(`layout ${layout}: no key template names the light ({name} or {lightId})`);
    }
  }

  scanPatterns(): string[] {
    return this.table.scanPatterns();
  }

  /** The placeholder values a key carries under one template; null when it does not fit. */
  private match(c: Compiled, key: string): { namespace: string; values: Values } | null {
    const m = c.regex.exec(key);
    if (!m) return null;
    const values: Values = {};
    for (const [i, name] of c.placeholders.entries()) {
      const value = m[i + 2] as string;
      // A placeholder used twice must hold the same text both times.
      if (values[name] !== undefined && values[name] !== value) return null;
      values[name] = value;
    }
    return { namespace: m[1] ?? '', values };
  }

  lightOfKey(key: string): KeyOwner | null {
    for (const c of this.compiled) {
      const found = this.match(c, key);
      const light = found?.values.name ?? found?.values.lightId;
      if (!found || light === undefined) continue;
      return {
        light,
        system: found.values.system ?? found.values.systemId ?? null,
        role: c.def.inspectRole ?? c.def.role,
        scoresAreSeconds: c.def.scoresAreSeconds ?? false,
      };
    }
    return null;
  }

  targetsFor(request: TargetRequest): TemplateTarget[] {
    const { light } = request;
    for (const c of this.compiled) {
      const found = this.match(c, light);
      if (found && (found.values.name !== undefined || found.values.lightId !== undefined)) {
        const values: Values = {};
        for (const name of ['name', 'lightId', 'system', 'systemId'] as const) {
          if (found.values[name] !== undefined) values[name] = found.values[name];
        }
        return [this.target(light, found.namespace, values)];
      }
    }
    const system = request.system ?? DEFAULT_SYSTEM;
    const byName = this.target(light, '', { name: light, lightId: this.hashName(light), system, systemId: this.hashName(system) });
    // `<system>/<light>`, as swc lights prints a light of a layout with systems (names or ids, as the keys carry them).
    const slash = light.indexOf('/');
    const usesSystems = this.compiled.some((c) => c.placeholders.includes('system') || c.placeholders.includes('systemId'));
    if (slash > 0 && request.system === undefined && usesSystems) {
      const [s, l] = [light.slice(0, slash), light.slice(slash + 1)];
      const uses = (p: Carried): boolean => this.compiled.some((c) => c.placeholders.includes(p));
      const values: Values = {
        ...(uses('name') ? { name: l, lightId: this.hashName(l) } : { lightId: l }),
        ...(uses('system') ? { system: s, systemId: this.hashName(s) } : { systemId: s }),
      };
      return [this.target(light, '', values), byName];
    }
    // Text shaped like an id is tried as an id first (keys that carry only ids), then as a name.
    const idShaped = /^[0-9a-f]+$/.test(light) && light.length === this.hashName('').length;
    const usesIds = this.compiled.some((c) => c.placeholders.includes('lightId'));
    if (!idShaped || !usesIds) return [byName];
    return [this.target(light, '', { lightId: light, system, systemId: this.hashName(system) }), byName];
  }

  private target(light: string, namespace: string, values: Values): TemplateTarget {
    const lookedFor = this.compiled
      .map((c) => this.keyOrPattern(c, namespace, values))
      .filter((k): k is { text: string; exact: boolean } => k !== null)
      .map((k) => k.text);
    return { light, namespace, values, lookedFor };
  }

  /** A template with the target's values filled in: an exact key, a SCAN pattern (hours, numbers), or null (the light's name is unknown). */
  private keyOrPattern(c: Compiled, namespace: string, values: Values): { text: string; exact: boolean } | null {
    let exact = true;
    const pieces: string[] = [escapeGlob(namespace)];
    const plain: string[] = [namespace];
    for (const part of c.parts) {
      if (typeof part === 'string') {
        pieces.push(escapeGlob(part));
        plain.push(part);
        continue;
      }
      const value = values[part.placeholder];
      if (value !== undefined) {
        pieces.push(escapeGlob(value));
        plain.push(value);
      } else if (part.placeholder === 'hour' || part.placeholder === 'number') {
        pieces.push('*');
        exact = false;
      } else {
        return null;
      }
    }
    return exact ? { text: plain.join(''), exact } : { text: pieces.join(''), exact };
  }

  /** The keys of a target that exist, in template order. */
  private async keysOf(redis: Redis, target: TemplateTarget, search: KeySearch): Promise<{ key: string; role: string }[]> {
    const keys: { key: string; role: string }[] = [];
    const seen = new Set<string>();
    for (const c of this.compiled) {
      const found = this.keyOrPattern(c, target.namespace, target.values);
      if (!found) continue;
      const candidates = found.exact
        ? [found.text]
        : // Sorted, as a scan of its own returns them: a shared pass meets keys in the server's order.
          [...(await search(found.text, 'unnamed'))].sort().filter((key) => {
            const m = this.match(c, key.slice(target.namespace.length));
            // A pattern's `*` also matches lights whose name extends this one: keep exact fits.
            return (
              m !== null &&
              m.namespace === '' &&
              Object.entries(target.values).every(([k, v]) => m.values[k as Carried] === undefined || m.values[k as Carried] === v)
            );
          });
      for (const key of candidates) {
        if (seen.has(key)) continue;
        seen.add(key);
        keys.push({ key, role: c.def.inspectRole ?? c.def.role });
      }
    }
    const types = await keyTypes(
      redis,
      keys.map((k) => k.key),
    );
    return keys.filter((_, i) => types[i] !== 'none');
  }

  async inspect(redis: Redis, target: TemplateTarget, judge: JudgeOptions, limits: EncodingLimits, search?: KeySearch): Promise<KeysInspection | null> {
    const found = await this.keysOf(redis, target, search ?? ((pattern) => scanKeys(redis, pattern)));
    if (found.length === 0) return null;
    const types = await keyTypes(
      redis,
      found.map((k) => k.key),
    );
    // Any type is the light's here: each key is read as the type it has.
    const specs: LightKey[] = found.map((k, i) => ({ ...k, type: types[i] ?? 'none' }));
    const { result, consistent } = await readConsistently(
      redis,
      () => specs,
      async () => {
        const { headers, unavailable } = await describeKeys(redis, specs);
        const longest = new Map<string, Longest>();
        for (const header of headers) {
          const seen = new Longest();
          longest.set(header.key, seen);
          if (header.wrongType) continue;
          if (header.type === 'hash') {
            for (const [field, value] of await readHash(redis, header.key)) {
              seen.see(field, `field ${field}`);
              seen.see(value, `value of ${field}`);
            }
          } else if (header.type === 'zset') {
            await readSortedSet(redis, header.key, (members) => {
              for (const member of members) seen.see(member, `member ${member}`);
            });
          }
        }
        return { headers, longest, unavailable };
      },
    );
    const keys = result.headers.map((header) => ({
      ...header,
      limits: limitsOf(header, limits, result.longest.get(header.key) ?? new Longest()),
    }));
    return {
      kind: 'keys',
      layout: this.layout,
      light: target.light,
      keys,
      window: windowOf(judge),
      totals: null,
      windowTotals: null,
      summary: summarize(null, keys, { windowSeconds: judge.windowSeconds }),
      consistent,
      // A key that changed type between the two reads is the only problem a template layout can show.
      problems: result.headers.filter((h) => h.wrongType).map((h) => `${h.key} changed from a ${h.expectedType} to a ${h.type} while being read`),
      unavailable: result.unavailable === null ? [] : [result.unavailable],
    };
  }
}
