/**
 * The generations of Stoplight 6.0's window-metrics scripts, told apart by
 * the files of a `window_metrics/` folder (and, where the scripts are the
 * same and only the Ruby caller differs, by one line of that caller). Each
 * generation is run through the manifest swc ships for its caller's
 * convention (fixtures/manifests/stoplight/); docs/layouts.md lists them
 * with the commits of Stoplight's public repository they were read from.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { readInputFile } from '../../core/json-file.js';

/** A 6.0 generation: its storage design and, within one design, its place in time. */
export type V6GenerationId = 'hourly-a' | 'hourly-b' | 'hourly-c' | 'hourly-d' | 'sliding-log-a' | 'sliding-log-b' | 'hash-a' | 'hash-b' | 'hash-c';

/** What a window_metrics folder was recognised as. */
export interface V6Generation {
  readonly id: V6GenerationId;
  /** The manifest under fixtures/manifests/stoplight/ that calls these scripts. */
  readonly manifestFile: string;
  /** For messages: the design and its convention. */
  readonly what: string;
  /** The commit of Stoplight's public repository the generation's caller was read from (docs/layouts.md); null where it was not resolved. */
  readonly commit: string | null;
  /** Whether the keys are 6.0's per-second hash and its index (the built-in 6.0 inspector decodes them). */
  readonly hashBuckets: boolean;
  /** Said on stderr when the choice rests on a default rather than on the files (e.g. no caller next to the folder). */
  readonly note?: string;
}

const GENERATIONS: Readonly<Record<V6GenerationId, Omit<V6Generation, 'id' | 'note'>>> = {
  'hourly-a': {
    commit: '0aaf27f',
    manifestFile: '6.0-hourly-a.json',
    what: 'Stoplight 6.0 hourly event ZSETs (bucket TTL 1 h, metadata TTL 1 day)',
    hashBuckets: false,
  },
  'hourly-b': {
    commit: 'c72dfc2',
    manifestFile: '6.0-hourly-b.json',
    what: 'Stoplight 6.0 hourly event ZSETs (bucket TTL window + 1 h)',
    hashBuckets: false,
  },
  'hourly-c': {
    commit: '87afe69',
    manifestFile: '6.0-hourly-c.json',
    what: 'Stoplight 6.0 hourly event ZSETs (a failure replies the snapshot)',
    hashBuckets: false,
  },
  'hourly-d': {
    commit: '67627bb',
    manifestFile: '6.0-hourly-d.json',
    what: 'Stoplight 6.0 hourly event ZSETs (both writes reply the snapshot)',
    hashBuckets: false,
  },
  'sliding-log-a': {
    commit: 'b2a2866',
    manifestFile: '6.0-sliding-log-a.json',
    what: 'Stoplight 6.0 sliding-log ZSETs (member id from the client)',
    hashBuckets: false,
  },
  'sliding-log-b': {
    commit: 'fabfe8a',
    manifestFile: '6.0-sliding-log-b.json',
    what: 'Stoplight 6.0 sliding-log ZSETs (member id from a seq counter)',
    hashBuckets: false,
  },
  'hash-a': { commit: '61e346e', manifestFile: '6.0-argv-clock.json', what: 'Stoplight 6.0 hash buckets with the clock as first argument', hashBuckets: true },
  'hash-b': {
    commit: '4975eb6',
    manifestFile: '6.0-argv-clock.json',
    what: 'Stoplight 6.0 hash buckets with the clock as first argument (eviction in batches)',
    hashBuckets: true,
  },
  'hash-c': { commit: null, manifestFile: '6.0-redis-time.json', what: 'Stoplight 6.0 hash buckets with the clock from Redis TIME', hashBuckets: true },
};

const isFile = (file: string): boolean => existsSync(file) && statSync(file).isFile();

/** The `.lua` files of a folder, sorted, for messages. */
export function luaFilesIn(folder: string): string[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
  return readdirSync(folder)
    .filter((f) => f.endsWith('.lua'))
    .sort();
}

/** Whether the script has an include line naming `name` (Stoplight's convention). */
function includes(text: string, name: string): boolean {
  return text.split('\n').some((line) => new RegExp(`^--\\s*@include\\s+${name}$`).test(line));
}

/** Whether some line, outside comments, calls `command` (as `'command'` or `"command"`). */
function calls(text: string, command: string): boolean {
  return text.split('\n').some((line) => {
    const code = line.replace(/--.*$/, '');
    return code.includes(`'${command}'`) || code.includes(`"${command}"`);
  });
}

function generation(id: V6GenerationId, note?: string): V6Generation {
  return { id, ...GENERATIONS[id], ...(note !== undefined ? { note } : {}) };
}

/**
 * The hourly generations a and b have the same scripts; their callers differ
 * in the TTLs they pass (`bucket_ttl = bucket_size`, one hour, and a metadata
 * TTL of one day, in the older). The caller, `window_metrics.rb`, sits next
 * to the folder in a checkout or gem; without it, the newer is assumed.
 */
function hourlyAOrB(root: string): V6Generation {
  const caller = path.join(root, 'window_metrics.rb');
  if (!isFile(caller)) {
    return generation('hourly-b', `${caller} not found: the TTLs of the newer caller (bucket TTL window + 1 h, metadata TTL 7 days) are assumed`);
  }
  const code = readInputFile(caller)
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''));
  return code.some((line) => /\bbucket_ttl\s*=\s*bucket_size\s*$/.test(line)) ? generation('hourly-a') : generation('hourly-b');
}

/**
 * Tells which 6.0 generation the scripts under `root` (the folder holding
 * `window_metrics/`) are, from the files present and a line in them; null
 * when they match none.
 */
export function recognizeV6(root: string): V6Generation | null {
  const folder = path.join(root, 'window_metrics');
  const read = (file: string): string => (isFile(path.join(folder, file)) ? readInputFile(path.join(folder, file)) : '');
  const success = read('record_success.lua');
  if (success === '') return null;
  if (isFile(path.join(folder, '_evict.lua'))) {
    if (includes(success, 'now')) return generation('hash-c');
    return /^\s*local\s+EVICT_BATCH_SIZE\b/m.test(read('_evict.lua')) ? generation('hash-b') : generation('hash-a');
  }
  if (isFile(path.join(folder, '_metrics_snapshot.lua'))) {
    return includes(success, 'window_metrics/_metrics_snapshot') ? generation('hourly-d') : generation('hourly-c');
  }
  if (calls(success, 'ZREMRANGEBYSCORE')) {
    return /'seq'|"seq"/.test(success.replace(/--.*$/gm, '')) ? generation('sliding-log-b') : generation('sliding-log-a');
  }
  if (calls(success, 'ZADD') && isFile(path.join(folder, 'metrics_snapshot.lua'))) return hourlyAOrB(root);
  return null;
}

/** How outputs name the layout a generation runs as: `stoplight-v6 (hash-b, 4975eb6)`. */
export function generationName(layout: string, generation: Pick<V6Generation, 'id' | 'commit'>): string {
  return `${layout} (${generation.id}, ${generation.commit ?? 'commit not resolved'})`;
}

/** One line saying what a folder holds, for a message about a folder that is not used or not recognised. */
export function whatIsIn(folder: string): string {
  const files = luaFilesIn(folder);
  return files.length === 0 ? 'no .lua files' : `files: ${files.join(', ')}`;
}
