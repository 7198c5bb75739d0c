/**
 * `swc bench --client` and `swc verify --client` as a user runs them: the
 * packages' tables, the JSON against the shipped schemas, `--suggest`
 * ranking a package beside layouts, and verify's exit code. Spawns at once:
 * each starts its own private server.
 */
import { describe, expect, it } from 'vitest';
import type { ClientReport } from '../../src/bench/client-run.js';
import type { Suggestion } from '../../src/bench/suggest.js';
import type { ClientVerifyResult } from '../../src/verify/clients.js';
import { schemaErrors } from '../schema-check.js';
import { runCli } from './run-cli.js';

const SMALL = ['--rate', '4', '--limit', '4', '--no-throughput', '--no-progress'];

describe.concurrent('swc bench --client (CLI)', () => {
  it('prints the packages, their figures and the line against the designs', async () => {
    const run = await runCli(['bench', '--client', 'rate-limiter-flexible,@fastify/rate-limit', '--layout', 'ring', ...SMALL]);
    expect(run.code).toBe(0);
    // The real-time packages are said up front, with the run's duration.
    expect(run.stderr).toMatch(/rate-limiter-flexible, @fastify\/rate-limit: window timed by a key's TTL on the server, so real time: about \d+ s each/);
    expect(run.stdout).toContain('Packages: memory per client');
    expect(run.stdout).toContain('Packages: accuracy against an exact sliding window');
    // The package on a line of its own above its row (the name stays whole), its figures on the next.
    expect(run.stdout).toMatch(/│ rate-limiter-flexible \d+\.\d+\.\d+ +│\n│ real time +│ +72 B │/);
    // The line against the designs (wrapped to the terminal: read as one line).
    expect(run.stdout.replace(/\s+/g, ' ')).toMatch(
      /@fastify\/rate-limit \d+\.\d+\.\d+: \d+ B per client at 4\/s, window 1 s, limit 4; .*per light \(package over design\): ring \d+ B/,
    );
  });

  it('--json --suggest: the schema holds, each package has its figures and is ranked beside the layouts', async () => {
    const run = await runCli(['bench', '--client', 'rate-limit-redis', '--suggest', '--layout', 'ring,sliding-log', '--json', ...SMALL]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ClientReport & { suggestion: Suggestion };
    expect(schemaErrors('bench', report)).toEqual([]);
    const [client] = report.clients;
    expect(client).toMatchObject({ packageName: 'rate-limit-redis', algorithm: 'fixed-window', clock: { kind: 'real-time' }, limit: 4 });
    // One counter key per client, at the offered rate and at four times the limit alike.
    expect(client?.memory.atRate.keysPerClient).toBe(1);
    expect(client?.memory.growsWithTraffic).toBe(false);
    // Its script's commands (PTTL, then SET or INCR) and the EVALSHA: three per decision, counted on swc's own server.
    expect(client?.commands).toMatchObject({ perDecision: 3, scriptCalls: 1 });
    expect(client?.accuracy.burst.sent).toBe(2 * 4 + 1);
    const names = report.suggestion.ranking.map((r) => r.layout);
    expect(names).toEqual(expect.arrayContaining([`rate-limit-redis@${client?.version}`, 'ring', 'sliding-log']));
    expect(report.suggestion.ranking.every((r) => r.rank !== null)).toBe(true);
  });

  it('verify --client: the three TTL-windowed packages agree with the fixed-window model (exit 0), in JSON its schema holds', async () => {
    const run = await runCli('verify --client rate-limiter-flexible,rate-limit-redis,fastify-rate-limit --calls 24 --seed 5 --json --no-progress'.split(' '));
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout) as { findings: number; clients: ClientVerifyResult[] };
    expect(schemaErrors('verify', document)).toEqual([]);
    expect(document.findings).toBe(0);
    expect(document.clients.map((c) => [c.client, c.finding])).toEqual([
      ['rate-limiter-flexible', null],
      ['rate-limit-redis', null],
      ['fastify-rate-limit', null],
    ]);
  });
});
