import { readFileSync } from 'node:fs';
import { InputFileError } from './errors.js';

/**
 * Reads and parses a JSON file, turning every way it can fail (missing,
 * unreadable, empty, cut short, malformed) into one {@link InputFileError}
 * that names the file.
 */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputFileError(file, code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? (err as Error).message})`);
  }
  return parseJsonText(file, text);
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
