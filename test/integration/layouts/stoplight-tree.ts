/**
 * Builds Stoplight-shaped script trees in a temporary folder from swc's own
 * Lua: Stoplight's folder layout, file names, `-- @include` lines and calling
 * conventions, with swc's code inside. swc never ships Stoplight's scripts,
 * so this is what the tests point `--scripts` at.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LUA_DIR } from '../../../src/lua/source.js';

const own = (file: string): string => readFileSync(path.join(LUA_DIR, file), 'utf8');

function write(root: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

/** Where a 6.0 tree keeps its scripts, under the tree's root. */
export const V6_STORAGE = 'lib/stoplight/infrastructure/redis/storage';
/** Where a 5.x tree keeps its scripts. */
export const V5_DATA_STORE = 'lib/stoplight/data_store/redis';

/** Variants of a 6.0 tree, as 6.0 generations differ. */
export interface Stoplight6Variant {
  /** argv clock: store ARGV[1] as given (every digit the caller sent) instead of cutting it to milliseconds. */
  readonly keepArgvTime?: boolean;
  /**
   * Eviction subtracts with `HINCRBY … -count` even when the count is 0:
   * Lua's -0 reaches Redis 7.0 as "-0", which HINCRBY refuses; Redis 7.2+
   * and Valkey send "0".
   */
  readonly unguardedEviction?: boolean;
  /** Mark the eviction as batched the way Stoplight's later argv-clock versions name it (`local EVICT_BATCH_SIZE`): generation hash-b. */
  readonly evictBatchSizeLine?: boolean;
}

/**
 * A 6.0 tree. `clock: 'time'`: the scripts read Redis TIME through an
 * included `now` (milliseconds); `'argv'`: the time is ARGV[1], seconds.
 */
export function stoplight6Tree(clock: 'time' | 'argv', variant: Stoplight6Variant = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), `swc-stoplight6-${clock}-`));
  const root = path.join(dir, V6_STORAGE);
  // The shared helpers include another file: includes nest.
  write(root, 'lib/outcome.lua', own('lib/outcome.lua'));
  // The subtraction spliced in: swc's (a zero count skipped) or upstream's (lua/stoplight-v6-upstream/_subtract.lua).
  const subtract = own(variant.unguardedEviction ? 'stoplight-v6-upstream/_subtract.lua' : 'stoplight-v6/_subtract.lua');
  const window = own('stoplight-v6/_window.lua');
  if (!window.includes('--include stoplight-v6/_subtract.lua\n')) throw new Error('stoplight6Tree: the eviction subtraction include was not found');
  const evict = window.replace('--include lib/outcome.lua', '-- @include lib/outcome').replace('--include stoplight-v6/_subtract.lua\n', subtract);
  write(root, 'window_metrics/_evict.lua', variant.evictBatchSizeLine ? `local EVICT_BATCH_SIZE = 1000 -- batches, as swc's own eviction\n${evict}` : evict);
  const time = clock === 'time';
  if (time) {
    write(
      root,
      'now.lua',
      [
        "-- now(): the server's clock in whole milliseconds.",
        'local function now()',
        "  local t = redis.call('TIME')",
        '  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)',
        'end',
        '',
      ].join('\n'),
    );
  }
  // swc's lib/now.lua brings swc_millis, which cuts an argument time to milliseconds as swc's 6.0 scripts stamp it.
  write(root, 'lib/now.lua', own('lib/now.lua'));
  const head = time ? ['-- @include now', '-- @include window_metrics/_evict'] : ['-- @include lib/now', '-- @include window_metrics/_evict'];
  // ARGV slots shift by one when the time is an argument.
  const a = (n: number): string => `ARGV[${time ? n : n + 1}]`;
  // The time in seconds with its milliseconds, then its whole second.
  const stamp = time ? 'now() / 1000' : variant.keepArgvTime ? 'tonumber(ARGV[1])' : 'swc_millis(tonumber(ARGV[1]))';
  const second = 'math.floor(stamp)';
  // Every script starts alike: the includes, a comment naming its slots, the time, then the eviction up to the window's start.
  const script = (file: string, slots: string, windowSlot: string, body: readonly string[]): void =>
    write(
      root,
      `window_metrics/${file}.lua`,
      [
        ...head,
        `-- ${slots}`,
        `local stamp = ${stamp}`,
        `local second = ${second}`,
        `swc_v6_evict(KEYS[1], KEYS[2], second - tonumber(${windowSlot}))`,
        ...body,
        '',
      ].join('\n'),
    );
  script('record_success', `KEYS[1] metrics hash, KEYS[2] bucket index; ${time ? '' : 'ARGV[1] time (seconds), '}${a(1)} window, ${a(2)} TTL`, a(1), [
    "swc_v6_record(KEYS[1], KEYS[2], second, stamp, ':s', 'total_successes', 'last_success_at', 'consecutive_errors', 'consecutive_successes')",
    `redis.call('EXPIRE', KEYS[1], tonumber(${a(2)}))`,
    'return second',
  ]);
  script(
    'record_failure',
    `${a(1)} error JSON, ${a(2)} window, ${a(3)} TTL; replies successes, failures, last_success_at, last_error_json, consecutive_errors, consecutive_successes`,
    a(2),
    [
      "if swc_v6_record(KEYS[1], KEYS[2], second, stamp, ':f', 'total_failures', 'last_error_at', 'consecutive_successes', 'consecutive_errors') then",
      `  redis.call('HSET', KEYS[1], 'last_error_json', ${a(1)})`,
      'end',
      `redis.call('EXPIRE', KEYS[1], tonumber(${a(3)}))`,
      'local s = swc_v6_snapshot(KEYS[1])',
      'return { s[1], s[2], s[3], s[5], s[6], s[7] }',
    ],
  );
  script('metrics_snapshot', `${a(1)} window, then the metadata fields to return after the two counts`, a(1), [
    "local fields = { 'total_successes', 'total_failures' }",
    `for i = ${time ? 2 : 3}, #ARGV do fields[#fields + 1] = ARGV[i] end`,
    "return redis.call('HMGET', KEYS[1], unpack(fields))",
  ]);
  return dir;
}

/** A 5.x tree: no includes (each script carries what it needs), the time as ARGV[1] in whole seconds. */
export function stoplight5Tree(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'swc-stoplight5-'));
  const root = path.join(dir, V5_DATA_STORE);
  const outcome = own('lib/outcome.lua');
  const record = (outcome_: 'success' | 'failure'): string =>
    [
      outcome,
      `-- KEYS[1] metadata, KEYS[2] hour key; ARGV[1] second, ARGV[2] member id, ${outcome_ === 'failure' ? 'ARGV[3] error JSON, ARGV[4] events TTL, ARGV[5] metadata TTL' : 'ARGV[3] events TTL, ARGV[4] metadata TTL'}`,
      'local second = tonumber(ARGV[1])',
      "redis.call('ZADD', KEYS[2], second, ARGV[2])",
      `redis.call('EXPIRE', KEYS[2], tonumber(ARGV[${outcome_ === 'failure' ? 4 : 3}]))`,
      outcome_ === 'failure'
        ? "if swc_record_outcome(KEYS[1], 'last_error_at', second, 'consecutive_successes', 'consecutive_errors') then redis.call('HSET', KEYS[1], 'last_error_json', ARGV[3]) end"
        : "swc_record_outcome(KEYS[1], 'last_success_at', second, 'consecutive_errors', 'consecutive_successes')",
      `redis.call('EXPIRE', KEYS[1], tonumber(ARGV[${outcome_ === 'failure' ? 5 : 4}]))`,
      '',
    ].join('\n');
  write(root, 'record_success.lua', record('success'));
  write(root, 'record_failure.lua', record('failure'));
  write(
    root,
    'get_metadata.lua',
    [
      '-- ARGV[1] n hour keys, ARGV[2] m recovery keys, ARGV[3] window start, ARGV[4] window end, ARGV[5] recovery start',
      '-- KEYS[1] metadata, then n success, n failure, m recovery success, m recovery failure hour keys',
      'local n, m = tonumber(ARGV[1]), tonumber(ARGV[2])',
      'local from, to, recovery_from = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])',
      "local recovered_at = tonumber(redis.call('HGET', KEYS[1], 'recovered_at'))",
      'if recovered_at and recovered_at > from then from = recovered_at end',
      'local function count(first, how_many, start)',
      '  local total = 0',
      "  for i = first, first + how_many - 1 do total = total + redis.call('ZCOUNT', KEYS[i], start, to) end",
      '  return total',
      'end',
      "return { count(2, n, from), count(2 + n, n, from), count(2 + 2 * n, m, recovery_from), count(2 + 2 * n + m, m, recovery_from), redis.call('HGETALL', KEYS[1]) }",
      '',
    ].join('\n'),
  );
  return dir;
}

/** Where the earliest 6.0 development versions kept their storage scripts. */
export const V6_STORAGE_OLDER = 'lib/stoplight/infrastructure/storage/redis';

/** The event-ZSET generations of Stoplight 6.0 (docs/layouts.md): hourly keys (a-d) or one sliding log per outcome (a-b). */
export type ZsetGeneration = 'hourly-a' | 'hourly-b' | 'hourly-c' | 'hourly-d' | 'sliding-log-a' | 'sliding-log-b';

/** Lua that counts the events of n hour keys from KEYS[first] on, over the closed range of two ARGV strings. */
const COUNT_HOURS = [
  '-- swc_count_hours(first, n, from, to): ZCOUNT over n hour keys from KEYS[first], summed',
  'local function swc_count_hours(first, n, from, to)',
  '  local total = 0',
  "  for i = first, first + n - 1 do total = total + redis.call('ZCOUNT', KEYS[i], from, to) end",
  '  return total',
  'end',
  '',
].join('\n');

/**
 * A write: ZADD the event into KEYS[2] with TTL `ttl`, then the outcome
 * fields in the metrics hash KEYS[1] (kept `metaTtl`). `idExpr` is the
 * member: an ARGV slot, or a counter in the hash (sliding-log-b's seq).
 */
function zsetWrite(outcome: 'success' | 'failure', at: string, idExpr: string, ttl: string, metaTtl: string, json?: string): string[] {
  const fields =
    outcome === 'success'
      ? "'last_success_at', stamp, 'consecutive_errors', 'consecutive_successes'"
      : "'last_error_at', stamp, 'consecutive_successes', 'consecutive_errors'";
  return [
    `local stamp = tonumber(${at})`,
    `redis.call('ZADD', KEYS[2], ${at}, ${idExpr})`,
    `redis.call('EXPIRE', KEYS[2], tonumber(${ttl}))`,
    outcome === 'failure' && json !== undefined
      ? `if swc_record_outcome(KEYS[1], ${fields}) then redis.call('HSET', KEYS[1], 'last_error_json', ${json}) end`
      : `swc_record_outcome(KEYS[1], ${fields})`,
    `redis.call('EXPIRE', KEYS[1], tonumber(${metaTtl}))`,
  ];
}

/** The reply of a snapshot: the two counts, then the fields named from ARGV[fieldsFrom] on (or Stoplight's four). */
const SNAPSHOT_TAIL = (s: string, f: string, fieldsFrom?: number): string[] =>
  fieldsFrom === undefined
    ? [
        `local meta = redis.call('HMGET', KEYS[1], 'last_success_at', 'last_error_json', 'consecutive_errors', 'consecutive_successes')`,
        `return { ${s}, ${f}, meta[1], meta[2], meta[3], meta[4] }`,
      ]
    : [
        'local fields = {}',
        `for i = ${fieldsFrom}, #ARGV do fields[#fields + 1] = ARGV[i] end`,
        `return { ${s}, ${f}, unpack(redis.call('HMGET', KEYS[1], unpack(fields))) }`,
      ];

/**
 * A Stoplight 6.0 event-ZSET generation's tree, from swc's own Lua: that
 * generation's folder, file names, includes and KEYS/ARGV slots (hourly keys
 * picked by the caller; a sliding log trimmed on each write), as swc's
 * shipped manifest for it calls them. Hourly a and b differ only in their
 * Ruby caller's TTLs: the tree gets a one-line `window_metrics.rb` saying which.
 */
export function stoplightZsetTree(generation: ZsetGeneration): string {
  const dir = mkdtempSync(path.join(tmpdir(), `swc-stoplight6-${generation}-`));
  const older = generation === 'hourly-a' || generation === 'hourly-b';
  const root = path.join(dir, older ? V6_STORAGE_OLDER : V6_STORAGE);
  write(root, 'lib/outcome.lua', own('lib/outcome.lua'));
  const head = ['-- @include lib/outcome'];
  if (generation.startsWith('sliding-log')) {
    const seq = generation === 'sliding-log-b';
    // ARGV after the time: [member id,] (error JSON,) log TTL, metadata TTL, window start.
    const at = (n: number): string => `ARGV[${seq ? n - 1 : n}]`;
    const id = seq ? "redis.call('HINCRBY', KEYS[1], 'seq', 1)" : 'ARGV[2]';
    const trim = (slot: string): string => `redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ${slot})`;
    write(
      root,
      'window_metrics/record_success.lua',
      [
        ...head,
        `-- KEYS[1] metrics hash, KEYS[2] success log; ARGV[1] time, ${seq ? '' : 'ARGV[2] member id, '}${at(3)} log TTL, ${at(4)} metadata TTL, ${at(5)} window start`,
        ...zsetWrite('success', 'ARGV[1]', id, at(3), at(4)),
        trim(at(5)),
        '',
      ].join('\n'),
    );
    write(
      root,
      'window_metrics/record_failure.lua',
      [
        ...head,
        `-- KEYS[1] metrics hash, KEYS[2] failure log, KEYS[3] success log; ARGV[1] time, ${seq ? '' : 'ARGV[2] member id, '}${at(3)} error JSON, ${at(4)} log TTL, ${at(5)} metadata TTL, ${at(6)} window start`,
        ...zsetWrite('failure', 'ARGV[1]', id, at(4), at(5), at(3)),
        trim(at(6)),
        ...SNAPSHOT_TAIL(`redis.call('ZCOUNT', KEYS[3], ${at(6)}, ARGV[1])`, `redis.call('ZCOUNT', KEYS[2], ${at(6)}, ARGV[1])`),
        '',
      ].join('\n'),
    );
    write(
      root,
      'window_metrics/metrics_snapshot.lua',
      [
        '-- KEYS[1] metrics hash, KEYS[2] success log, KEYS[3] failure log; ARGV[1] window start, ARGV[2] window end, then field names',
        ...SNAPSHOT_TAIL("redis.call('ZCOUNT', KEYS[2], ARGV[1], ARGV[2])", "redis.call('ZCOUNT', KEYS[3], ARGV[1], ARGV[2])", 3),
        '',
      ].join('\n'),
    );
    return dir;
  }
  const snapshotOnWrite = generation === 'hourly-c' || generation === 'hourly-d';
  if (snapshotOnWrite) write(root, 'window_metrics/_metrics_snapshot.lua', COUNT_HOURS);
  const counted = (n: string, from: string, to: string): [string, string] => [
    `swc_count_hours(3, tonumber(${n}), ${from}, ${to})`,
    `swc_count_hours(3 + tonumber(${n}), tonumber(${n}), ${from}, ${to})`,
  ];
  const success = [...head, ...(generation === 'hourly-d' ? ['-- @include window_metrics/_metrics_snapshot'] : [])];
  const successTail = generation === 'hourly-d' ? SNAPSHOT_TAIL(...counted('ARGV[5]', 'ARGV[6]', 'ARGV[7]'), 8) : [];
  write(
    root,
    'window_metrics/record_success.lua',
    [
      ...success,
      `-- KEYS[1] metrics hash, KEYS[2] the hour's success key${generation === 'hourly-d' ? ', then n success and n failure hour keys' : ''}; ARGV[1] time, ARGV[2] member id, ARGV[3] hour key TTL, ARGV[4] metadata TTL${generation === 'hourly-d' ? ', ARGV[5] n, ARGV[6] window start, ARGV[7] window end, then field names' : ''}`,
      ...zsetWrite('success', 'ARGV[1]', 'ARGV[2]', 'ARGV[3]', 'ARGV[4]'),
      ...successTail,
      '',
    ].join('\n'),
  );
  const failureTail = !snapshotOnWrite ? [] : SNAPSHOT_TAIL(...counted('ARGV[6]', 'ARGV[7]', 'ARGV[8]'), generation === 'hourly-d' ? 9 : undefined);
  write(
    root,
    'window_metrics/record_failure.lua',
    [
      ...head,
      ...(snapshotOnWrite ? ['-- @include window_metrics/_metrics_snapshot'] : []),
      `-- KEYS[1] metrics hash, KEYS[2] the hour's failure key${snapshotOnWrite ? ', then n success and n failure hour keys' : ''}; ARGV[1] time, ARGV[2] member id, ARGV[3] error JSON, ARGV[4] hour key TTL, ARGV[5] metadata TTL${snapshotOnWrite ? ', ARGV[6] n, ARGV[7] window start, ARGV[8] window end' : ''}`,
      ...zsetWrite('failure', 'ARGV[1]', 'ARGV[2]', 'ARGV[4]', 'ARGV[5]', 'ARGV[3]'),
      ...failureTail,
      '',
    ].join('\n'),
  );
  // The read's hour keys start at KEYS[2]: count from there.
  const read = [
    `swc_count_hours(2, tonumber(ARGV[1]), ARGV[2], ARGV[3])`,
    `swc_count_hours(2 + tonumber(ARGV[1]), tonumber(ARGV[1]), ARGV[2], ARGV[3])`,
  ] as const;
  write(
    root,
    'window_metrics/metrics_snapshot.lua',
    [
      snapshotOnWrite ? '-- @include window_metrics/_metrics_snapshot' : COUNT_HOURS,
      '-- KEYS[1] metrics hash, then n success and n failure hour keys; ARGV[1] n, ARGV[2] window start, ARGV[3] window end, then field names',
      ...SNAPSHOT_TAIL(read[0], read[1], 4),
      '',
    ].join('\n'),
  );
  if (older)
    write(
      dir,
      path.join(V6_STORAGE_OLDER, 'window_metrics.rb'),
      generation === 'hourly-a' ? 'def bucket_ttl = bucket_size\n' : 'def bucket_ttl = @window_size + bucket_size\n',
    );
  return dir;
}
