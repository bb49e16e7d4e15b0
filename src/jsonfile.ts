// Reading a JSON file the user gave (requests, a catalogue, results, cases, a scenario): an unreadable file or one
// that is not JSON is a UserError naming the file, what it was meant to be, and the fix; never a stack trace.
import { readFile } from 'node:fs/promises';
import { UserError } from './errors.js';
import { decodeUtf8 } from './textfile.js';

export interface JsonFileSpec {
  /** The path as the user should see it (default: as given). */
  shown?: string;
  /** What the file is, for "cannot read <what>": e.g. 'the request set'. */
  what: string;
  /** The fix for a file that is not valid JSON (and, unless `readFix` is set, for one that cannot be read). */
  fix: string;
  readFix?: string;
  /** The words before the parser's message (default 'not valid JSON'). */
  notJson?: string;
}

/** Reads and parses a JSON file (UTF-8: a UTF-16 file or bytes that are not UTF-8 are refused); a byte-order mark is
 *  ignored. */
export async function readJsonFile(file: string, spec: JsonFileSpec): Promise<unknown> {
  return (await readJsonText(file, spec)).data;
}

/** The same, keeping the text too (for line numbers in later messages). */
export async function readJsonText(file: string, spec: JsonFileSpec): Promise<{ text: string; data: unknown }> {
  const shown = spec.shown ?? file;
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new UserError(`${shown}: cannot read ${spec.what} (${code})`, spec.readFix ?? spec.fix);
  }
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) throw new UserError(`${shown}: ${spec.what} ${decoded.problem}`, decoded.fix);
  const text = decoded.text.replace(/^\uFEFF/, '');
  try {
    return { text, data: JSON.parse(text) };
  } catch (err) {
    throw new UserError(`${shown}: ${spec.notJson ?? 'not valid JSON'} (${(err as Error).message})`, spec.fix);
  }
}
