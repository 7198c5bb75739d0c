/**
 * Scripts swc did not write, bound for a user's server, in process: every
 * hostile manifest of test/hostile-manifests.ts is refused (exit 2) by
 * guardUntrustedScripts, the check bench and verify both make before they
 * open the user's server: without --trust-scripts for not being swc's,
 * with it by the probe on a private server, naming the misdeed. The CLI
 * test (test/cli/safety/hostile-scripts.test.ts) keeps a few spawns per
 * command, with the user's keys and its EVALSHA count unchanged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode, SwcError } from '../../../src/core/errors.js';
import { resolveLayoutName } from '../../../src/layouts/index.js';
import { guardUntrustedScripts, PROBE_CALL_LIMIT_MS, ProbeRefusal, UntrustedRefusal } from '../../../src/safety/probe.js';
import { HOSTILE_CASES, hostile, isManifestError, LATE_CASES, lateEdit, REFUSED, UNTRUSTED } from '../../hostile-manifests.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-hostile-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TARGET = 'redis://users-server:6379';

/** What guarding `manifest` for the user's server throws (or undefined), trusted or not. */
async function refusal(manifest: string, trust: boolean): Promise<unknown> {
  try {
    // The layout is resolved as --layout resolves it; a manifest that fails its own checks throws here.
    const layout = resolveLayoutName(manifest);
    await guardUntrustedScripts({
      layouts: [layout],
      layoutOptions: {},
      privateServer: false,
      trust: trust ? 'confined' : 'none',
      target: TARGET,
      command: 'swc bench',
    });
    return undefined;
  } catch (err) {
    return err;
  }
}

describe("hostile manifests: refused before anything reaches the user's server", () => {
  it.concurrent.each(HOSTILE_CASES.map(([label, how, message], i) => [label, how, message, i] as const))(
    "%s: refused with exit 2, without --trust-scripts for not being swc's, with it by the probe",
    async (label, how, message, i) => {
      // One process registers a layout name once: each case's manifest declares its own.
      const manifest = hostile(dir, label.replace(/\W+/g, '-'), how, `my-log-${i}`);
      const untrusted = await refusal(manifest, false);
      expect(untrusted).toBeInstanceOf(SwcError);
      expect((untrusted as SwcError).exitCode).toBe(ExitCode.usage);
      if (isManifestError(message)) {
        expect((untrusted as Error).message).toMatch(message);
      } else {
        expect(untrusted).toBeInstanceOf(UntrustedRefusal);
        expect((untrusted as Error).message).toMatch(UNTRUSTED);
      }
      const trusted = await refusal(manifest, true);
      expect(trusted).toBeInstanceOf(SwcError);
      expect((trusted as SwcError).exitCode).toBe(ExitCode.usage);
      expect((trusted as Error).message).toMatch(message);
      if (!isManifestError(message)) {
        expect(trusted).toBeInstanceOf(ProbeRefusal);
        expect((trusted as Error).message).toContain(`nothing was sent to ${TARGET}`);
      }
      // A script that loops forever is stopped by the probe's own bound (PROBE_CALL_LIMIT_MS), which its message names.
      if (/loops forever/.test(label)) expect((trusted as Error).message).toMatch(new RegExp(`did not finish within ${PROBE_CALL_LIMIT_MS / 1000} s`));
    },
  );

  it("a well-behaved manifest passes the probe: what remains is to confine it on the user's server", async () => {
    const layout = resolveLayoutName(hostile(dir, 'fine', {}, 'my-log-fine'));
    const untrusted = await guardUntrustedScripts({
      layouts: [layout],
      layoutOptions: {},
      privateServer: false,
      trust: 'confined',
      target: TARGET,
      command: 'swc bench',
    });
    expect(untrusted?.layouts).toEqual([layout]);
    expect(untrusted?.files).toMatch(/record\.lua/);
    // On a private server, no probe and nothing to confine.
    expect(
      await guardUntrustedScripts({ layouts: [layout], layoutOptions: {}, privateServer: true, trust: 'none', target: '', command: 'swc bench' }),
    ).toBeNull();
    // Built-in layouts: no probe, nothing to confine, no flag needed.
    expect(
      await guardUntrustedScripts({ layouts: ['stoplight-v6'], layoutOptions: {}, privateServer: false, trust: 'none', target: TARGET, command: 'swc bench' }),
    ).toBeNull();
  });
});

describe('scripts that misbehave only after a probe: refused on content alone without --trust-scripts', () => {
  // The CLI test (test/cli/safety/trust-by-content.test.ts) spawns bench, verify and bench by REDIS_URL for one of them.
  it.each(LATE_CASES.map(([label, late], i) => [label, late, i] as const))(
    'a script that %s: an UntrustedRefusal, exit 2, before any probe',
    async (label, late, i) => {
      const manifest = hostile(dir, `late-${label.replace(/\W+/g, '-')}`, lateEdit(late), `my-log-late-${i}`);
      const layout = resolveLayoutName(manifest);
      for (const command of ['swc bench', 'swc verify']) {
        const refused = await guardUntrustedScripts({
          layouts: [layout],
          layoutOptions: {},
          privateServer: false,
          trust: 'none',
          target: 'redis://127.0.0.1:6379/0',
          command,
        }).catch((err: unknown) => err);
        expect(refused).toBeInstanceOf(UntrustedRefusal);
        expect((refused as SwcError).exitCode).toBe(ExitCode.usage);
        // As printed: "swc: " and the message, one line.
        expect(`swc: ${(refused as Error).message}`).toMatch(REFUSED);
        expect((refused as Error).message).not.toContain('\n');
      }
    },
  );
});
