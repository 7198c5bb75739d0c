import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { InputFileError } from './errors.js';

/**
 * The largest input file swc reads. Real scenarios and results are a few
 * kilobytes (the committed 8-cell baseline is under 9 KiB; a result grows
 * by about 1 KiB per cell); the cap keeps a wrong path (a disk image,
 * /dev/zero behind a symlink) from exhausting memory.
 */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

const MIB = 1024 * 1024;

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** Refuses anything but a regular file under the cap. */
function checkStats(file: string, stats: Stats): void {
  if (!stats.isFile()) {
    throw new InputFileError(file, `${kindOf(stats)}, not a regular file: swc reads input only from regular files (save it to a file first)`);
  }
  if (stats.size > MAX_INPUT_BYTES) {
    throw new InputFileError(file, `too large: ${(stats.size / MIB).toFixed(1)} MiB, at most ${MAX_INPUT_BYTES / MIB} MiB`);
  }
}

/**
 * Reads a text input file safely: only a regular file (checked before
 * opening, so a FIFO or a device is never opened, and again on the open
 * descriptor, in case the path changed in between), at most
 * {@link MAX_INPUT_BYTES} even if it grows while read, as UTF-8 with an
 * optional byte-order mark. Every failure is an {@link InputFileError}
 * naming the file.
 */
export function readInputFile(file: string): string {
  const fail = (err: unknown): never => {
    if (err instanceof InputFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputFileError(file, 'no such file');
    if (code === 'EACCES' || code === 'EPERM') throw new InputFileError(file, `permission denied (${code})`);
    if (code === 'EISDIR') throw new InputFileError(file, 'a directory, not a regular file');
    throw new InputFileError(file, `cannot read (${code ?? (err as Error).message})`);
  };
  let fd: number | undefined;
  const chunks: Buffer[] = [];
  try {
    checkStats(file, statSync(file));
    // O_NONBLOCK: had the path become a FIFO since the check, the open would
    // not wait for a writer, and the descriptor check below refuses it.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    checkStats(file, fstatSync(fd));
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      total += read;
      if (total > MAX_INPUT_BYTES) throw new InputFileError(file, `too large: more than ${MAX_INPUT_BYTES / MIB} MiB`);
      chunks.push(chunk.subarray(0, read));
    }
  } catch (err) {
    fail(err);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return decode(file, Buffer.concat(chunks));
}

/** UTF-8 (a UTF-8 byte-order mark is dropped); UTF-16 and invalid bytes are named, not guessed at. */
function decode(file: string, bytes: Buffer): string {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new InputFileError(file, 'UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8');
  }
  // UTF-16 without a byte-order mark decodes as "valid" UTF-8 full of NULs:
  // no text swc reads (JSON, Lua, a names list) holds a NUL byte.
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    throw new InputFileError(file, `not UTF-8 text: a NUL byte at offset ${nul} (UTF-16 text, or a binary file); save it as UTF-8`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new InputFileError(file, 'not UTF-8 text (a binary file, or another encoding); save it as UTF-8');
  }
  return text;
}

/**
 * Reads and parses a JSON file, turning every way it can fail (missing,
 * unreadable, not a regular file, too large, empty, cut short, malformed)
 * into one {@link InputFileError} that names the file.
 */
export function readJsonFile(file: string): unknown {
  return parseJsonText(file, readInputFile(file));
}

/** Parses JSON text that came from `file`; see {@link readJsonFile}. */
export function parseJsonText(file: string, text: string): unknown {
  if (text.trim() === '') throw new InputFileError(file, 'empty file, expected JSON');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const message = (err as Error).message;
    // V8 says "end of JSON input", or points at a position at or past the
    // last character, when the document is cut off: name that truncated, the
    // likely cause being an interrupted write or a partial artifact download.
    const position = /at position (\d+)/.exec(message)?.[1];
    const atEnd = position !== undefined && Number(position) >= text.trimEnd().length;
    if (/end of JSON input/i.test(message) || atEnd) {
      throw new InputFileError(file, `truncated JSON: the file ends before the document does (${text.length} bytes)`);
    }
    throw new InputFileError(file, `not valid JSON: ${message}`);
  }
}

/**
 * Refuses an output path that exists and is not a regular file (a FIFO, a
 * device, a socket, a folder), naming `flag`: writing to a FIFO blocks swc
 * beyond the reach of Ctrl-C, and the write-then-rename of a result would
 * replace a device node such as /dev/full when run as root.
 */
export function checkOutputTarget(flag: string, file: string): void {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch {
    return; // a new file
  }
  if (!stats.isFile()) throw new InputFileError(file, `${kindOf(stats)}: ${flag} writes only to a regular file (give a file name)`);
}
