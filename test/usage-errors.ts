import { expect } from 'vitest';

/** What a run of swc printed and how it ended (spawned or in-process). */
interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A usage error: exit 2, nothing on stdout, one `swc: ` line on stderr matching `pattern`. */
export function expectUsageError(r: Output, pattern: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^swc: /);
  expect(r.stderr).toMatch(pattern);
}

/** A refused input file: exit 2, nothing on stdout, one line `swc: <file>: …` matching `problem` (`place` labels the failures). */
export function expectRefusedFile(result: Output, file: string, problem: RegExp, place: string): void {
  expect(result.code, place).toBe(2);
  expect(result.stdout, place).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, place).toHaveLength(1);
  expect(lines[0], place).toContain(`swc: ${file}: `);
  expect(lines[0], place).toMatch(problem);
}
