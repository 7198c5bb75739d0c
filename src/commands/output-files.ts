/**
 * The files a command writes its results to (`--output`, `--chart-out`,
 * `--out`): checked before any work is done, so a run is not lost to a typo,
 * and written whole.
 */
import { jsonText } from '../core/format.js';
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { EnvironmentError, UsageError } from '../core/errors.js';
import { checkOutputTarget } from '../core/json-file.js';
import { refuseSymlink, writeFileSafely } from '../safety/write-file.js';
import { printError } from './lifecycle.js';

/** Checks before a run that `--output` can be written: a path whose folder exists and that is not a folder itself. */
export function checkOutputPath(flag: string, file: string): string {
  const folder = dirname(resolve(file));
  let ok = false;
  try {
    ok = statSync(folder).isDirectory();
  } catch {
    // said below
  }
  if (!ok) throw new UsageError(`${flag}: folder ${folder} does not exist`);
  try {
    if (statSync(file).isDirectory()) throw new UsageError(`${flag}: ${file} is a folder; give a file name`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
  }
  checkOutputTarget(flag, file);
  refuseSymlink(flag, file);
  return file;
}

/** Writes a result as JSON to `file` whole (a temporary file renamed over it), so a reader never sees half of one. */
export function writeJsonFile(flag: string, file: string, value: unknown): void {
  // Again at write time: the path may have become a FIFO or a device since the check.
  checkOutputTarget(flag, file);
  try {
    writeFileSafely(flag, file, `${jsonText(value)}\n`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new EnvironmentError(`${flag}: cannot write ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  printError(`swc: result saved to ${file}`);
}

/**
 * Checks a chart's output path before any work is done (a run is not lost to
 * a typo): the name ends in .svg or .png, so a result file cannot be
 * overwritten by mistake, and its folder exists.
 */
export function checkChartPath(flag: string, file: string): string {
  if (!/\.(svg|png)$/i.test(file)) throw new UsageError(`${flag}: expected a file name ending in .svg or .png, got "${file}"`);
  const folder = dirname(resolve(file));
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    // reported below
  }
  if (!isFolder) throw new UsageError(`${flag}: folder ${folder} does not exist`);
  checkOutputTarget(flag, file);
  refuseSymlink(flag, file);
  return file;
}
