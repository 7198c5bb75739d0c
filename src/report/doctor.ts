import type { Diagnosis } from '../doctor/diagnose.js';
import { palette } from './style.js';

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
    diagnosis.ok ? c.green('ready') : c.red('not ready: see FAIL above'),
    '',
  ].join('\n');
}
