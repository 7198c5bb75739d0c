/**
 * The one way swc writes a file (`--output`, `--chart-out`, `swc chart
 * --out`, …): never through a symbolic link, and never in place. The data
 * goes to a new temporary file in the same folder (created exclusively, so
 * an existing file or link of that name is not followed), which is then
 * renamed over the path: the path ends up a regular file of swc's, and the
 * file a link pointed at (a result JSON, someone's ~/.bashrc) is untouched.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, lstatSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { InputFileError } from '../core/errors.js';

/** Refuses a path that is a symbolic link (exit 2, naming `flag`); a missing path is fine. */
export function refuseSymlink(flag: string, file: string): void {
  let isLink = false;
  try {
    isLink = lstatSync(file).isSymbolicLink();
  } catch {
    return; // a new file
  }
  if (isLink) {
    throw new InputFileError(file, `a symbolic link: ${flag} never writes through a link (it would change the file the link points to); give the real path`);
  }
}

/**
 * Writes `data` to `file` as a new file renamed over the path. Throws an
 * InputFileError (exit 2) for a symlink, and the system error of a failed
 * write otherwise (the temporary file removed).
 */
export function writeFileSafely(flag: string, file: string, data: string | Uint8Array): void {
  refuseSymlink(flag, file);
  const temporary = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  // O_EXCL with O_CREAT fails on any existing name, a link included; O_NOFOLLOW says so twice.
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    const buffer = typeof data === 'string' ? Buffer.from(data) : data;
    let written = 0;
    while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written);
    fsyncSync(fd);
    closeSync(fd);
    // A link may have appeared since the first check: rename replaces the link itself, never its target.
    renameSync(temporary, file);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(temporary, { force: true });
    throw err;
  }
}
