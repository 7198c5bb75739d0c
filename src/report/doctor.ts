import type { Diagnosis } from '../doctor/diagnose.js';
import { palette } from './style.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';
import { SWC_VERSION } from '../core/version.js';

/** Renders a diagnosis as lines for a terminal. */
export function renderDiagnosis(diagnosis: Diagnosis, where: string, color: boolean): string {
  const c = palette(color);
  const mark = { ok: c.green('ok  '), warn: c.yellow('warn'), fail: c.red('FAIL') } as const;
  const width = Math.max(...diagnosis.checks.map((check) => check.name.length));
  const { server } = diagnosis;
  const limits = Object.entries(server.config)
    .map(([name, value]) => `${name}=${value ?? '?'}`)
    .join(' ');
  return [
    `${c.bold('swc doctor')}  ${where}`,
    `Redis ${server.version}  allocator ${server.memAllocator}  mode ${server.mode}  ${server.os}`,
    `limits: ${limits}`,
    '',
    ...diagnosis.checks.map((check) => `${mark[check.status]}  ${check.name.padEnd(width)}  ${check.detail}`),
    '',
    diagnosis.ok
      ? c.green(
          diagnosis.access.readOnly
            ? `ready for ${diagnosis.access.allows.join(', ')} (read-only user: bench, verify, demo --write and clean are refused)`
            : 'ready',
        )
      : c.red('not ready: see FAIL above'),
    '',
  ].join('\n');
}

/** The `--json` document of `swc doctor` (schemas/doctor.json); `where` is the server as shown (URL redacted). */
export function doctorDocument(diagnosis: Diagnosis, where: string, privateServer: boolean): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    redis: { url: where, private: privateServer, ...diagnosis.server },
    scripts: diagnosis.scripts,
    checks: diagnosis.checks,
    memory: diagnosis.preflight.memory,
    permissions: diagnosis.preflight.permissions,
    access: diagnosis.access,
    ok: diagnosis.ok,
  };
}
