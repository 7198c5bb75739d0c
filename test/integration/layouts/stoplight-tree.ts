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
  write(root, 'window_metrics/_evict.lua', evict);
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
  write(
    root,
    'window_metrics/record_success.lua',
    [
      ...head,
      `-- KEYS[1] metrics hash, KEYS[2] bucket index; ${time ? '' : 'ARGV[1] time (seconds), '}${a(1)} window, ${a(2)} TTL`,
      `local stamp = ${stamp}`,
      `local second = ${second}`,
      `swc_v6_evict(KEYS[1], KEYS[2], second - tonumber(${a(1)}))`,
      "swc_v6_record(KEYS[1], KEYS[2], second, stamp, ':s', 'total_successes', 'last_success_at', 'consecutive_errors', 'consecutive_successes')",
      `redis.call('EXPIRE', KEYS[1], tonumber(${a(2)}))`,
      'return second',
      '',
    ].join('\n'),
  );
  write(
    root,
    'window_metrics/record_failure.lua',
    [
      ...head,
      `-- ${a(1)} error JSON, ${a(2)} window, ${a(3)} TTL; replies successes, failures, last_success_at, last_error_json, consecutive_errors, consecutive_successes`,
      `local stamp = ${stamp}`,
      `local second = ${second}`,
      `swc_v6_evict(KEYS[1], KEYS[2], second - tonumber(${a(2)}))`,
      "if swc_v6_record(KEYS[1], KEYS[2], second, stamp, ':f', 'total_failures', 'last_error_at', 'consecutive_successes', 'consecutive_errors') then",
      `  redis.call('HSET', KEYS[1], 'last_error_json', ${a(1)})`,
      'end',
      `redis.call('EXPIRE', KEYS[1], tonumber(${a(3)}))`,
      'local s = swc_v6_snapshot(KEYS[1])',
      'return { s[1], s[2], s[3], s[5], s[6], s[7] }',
      '',
    ].join('\n'),
  );
  write(
    root,
    'window_metrics/metrics_snapshot.lua',
    [
      ...head,
      `-- ${a(1)} window, then the metadata fields to return after the two counts`,
      `local stamp = ${stamp}`,
      `local second = ${second}`,
      `swc_v6_evict(KEYS[1], KEYS[2], second - tonumber(${a(1)}))`,
      "local fields = { 'total_successes', 'total_failures' }",
      `for i = ${time ? 2 : 3}, #ARGV do fields[#fields + 1] = ARGV[i] end`,
      "return redis.call('HMGET', KEYS[1], unpack(fields))",
      '',
    ].join('\n'),
  );
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
