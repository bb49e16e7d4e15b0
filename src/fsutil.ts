// File-system helpers shared by the commands and the cache.
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from './errors.js';
import { redact } from './secrets.js';

/** A path that had to be a folder is something else (a file). */
export class NotAFolderError extends Error {
  readonly code = 'ENOTDIR';

  constructor(readonly path: string) {
    super(`${path} is a file, not a folder`);
    this.name = 'NotAFolderError';
  }
}

/**
 * mkdir -p, one level at a time. Node's `mkdir(dir, { recursive: true })` never returns under /proc (it keeps
 * retrying ENOENT): this walks up to the nearest existing folder, then makes each missing level, so a folder that
 * cannot be made fails with that level's error (ENOENT, EACCES...) instead. A level made meanwhile by a concurrent
 * writer is fine (EEXIST); an existing file on the way is a NotAFolderError.
 */
export async function mkdirp(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    let isFolder: boolean;
    try {
      isFolder = (await stat(d)).isDirectory();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(d) === d) throw err;
      missing.unshift(d);
      continue;
    }
    if (isFolder) break;
    throw new NotAFolderError(d);
  }
  for (const d of missing) {
    await mkdir(d).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
}

/** Writes an output file the user named (-o), making its folder; a path that cannot be written is bad input.
 * Every output passes here, so every output is redacted here: no API key or base-URL credential is ever written. */
export async function writeOutputFile(file: string, text: string): Promise<void> {
  const target = path.resolve(file);
  try {
    await mkdirp(path.dirname(target));
    await writeFile(target, redact(text));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new UserError(`${file}: cannot write the output (${code})`, 'choose a writable path for -o');
  }
}
