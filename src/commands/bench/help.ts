/** The text after `swc bench --help`'s options: how a run works, exit codes and examples. */
import { LIMITS } from '../../run/values.js';
import { DEFAULT_REALTIME_SECONDS } from './flags.js';

export const BENCH_HELP_AFTER = `
By default time is injected: a 10-minute window fills in well under a second.
Memory is MEMORY USAGE <key> SAMPLES 0 summed over each light's keys. On a server swc did
not start, every key goes under swc-bench:<run id>: and is deleted at the end,
also on Ctrl-C (swc clean removes what a killed run left). Before writing there,
swc refuses (exit 3) when the run could make Redis evict or refuse writes
(maxmemory; --allow-eviction runs anyway), when the server is a replica or lacks
replicas for min-replicas-to-write, or when the user lacks a permission; a cell
during which Redis evicted, restarted or was paused fails instead of reporting.

Throughput: each phase (write, read, request) runs --rounds rounds with the
layouts of a window and rate alternating (A B A B …); figures are medians with
their spread, marked noisy above 25%, and ratios are medians of per-round
ratios. "Engine capacity" is --connections × --pipeline calls in flight (the
server's capacity); "Application's view" is one request at a time through
ioredis, timed with tinybench (what one application thread waits).

With --realtime, nothing is injected: each cell sends every light's events
at --rate per second, evenly spaced on a monotonic clock, for --duration
real seconds (default: ${DEFAULT_REALTIME_SECONDS} s, not one window: a 10-minute window would
be a 10-minute wait per cell), and the scripts take the time from Redis TIME.
Cells run one after another, so layouts never compete for the machine.
A client that falls behind keeps sending as fast as it can and reports the
shortfall; it never drops events. Reported per cell: achieved rate per
light, how late events left (p99, max), write latency (p50/p99/p99.9),
then memory per light as usual. The throughput phase is skipped: the paced
traffic is the measurement. Limits: --duration at most 1 h, rate × lights
at most ${LIMITS.realtimeEventsPerSecond.toLocaleString('en-US')} events/s per cell.

Redis Cluster (--cluster with --redis-url seeds, or --cluster-shards <n> for a
private cluster): light i of a cell goes to primary i mod n (names picked so
their slot is on it), each primary fills its own lights at once, memory per
light sums used_memory over the primaries and reads MEMORY USAGE on the owner,
and throughput keeps --connections sockets on every primary, all busy at once.
A layout whose scripts take keys in several hash slots is not run: it is a
cluster-safety finding (the CROSSSLOT error Redis gave one real call) in the
results, with its hash-tagged variant run in its place where there is one
(stoplight-v5 → stoplight-v5-tagged, which Stoplight never shipped). Findings
do not change the exit code; a run where no layout can run exits 3, as does a
node that dies or a slot that moves during the run. Not with --realtime.

Exit codes: 0 ok, 1 regression against --baseline, 2 bad usage or input
(nothing sent to Redis), 3 runtime failure (Redis unreachable, script error),
130/143 interrupted (the run's keys are removed first).

Examples:
  swc bench --rate 100 --window 300
  swc bench --preset blog
  # which layout to pick, and why:
  swc bench --suggest --window 5m --rate 100 --no-throughput
  swc bench --rate 10,100 --window 1m,10m --format markdown
  swc bench --redis-url redis://127.0.0.1:6379 --json > result.json
  swc bench --scenario fixtures/scenarios/small.json \\
    --baseline fixtures/baselines/small.json
  swc bench --realtime --rate 100 --window 1m --duration 30s
  swc bench --layout all --window 5m --rate 10 --no-throughput \\
    --sweep hash-max-listpack-value=64,128,256
  swc bench --cluster-shards 3 --lights 30 --window 60 --rate 10
  swc bench --cluster \\
    --redis-url redis://10.0.0.1:7000 --redis-url redis://10.0.0.2:7000
  # a layout of your own (docs/manifests.md, "Your own layout"):
  swc bench --layout ./my-window.json,stoplight-v6
  # Stoplight's own scripts, from the installed gem:
  swc bench --scripts "$(bundle show stoplight)"
  # a rate-limiter package through its own calls, beside the designs (docs/clients.md):
  swc bench --client rate-limiter-flexible --rate 50 --limit 100`;
