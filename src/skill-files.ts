// Which files of a skill folder are served to the model (listed, read, copied into the sandbox), one rule for every
// place that lists or opens them: the catalogue's resource list, read_skill_file, load-all, token audits and the
// sandbox copy. A skill folder is untrusted input.
import { accessSync, constants, lstatSync, statSync, type Stats } from 'node:fs';

/**
 * Why a file name (one path segment) is refused, or null. Control characters (a newline would split one entry of the
 * `<skill_resources>` listing into several lines, one of them a fake tag), backslashes (read_skill_file takes them
 * for separators, so the file could be listed but never read) and bytes that are not UTF-8 (shown as U+FFFD, a name
 * that leads nowhere).
 */
export function refusedName(segment: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(segment)) return 'a control character or line break in its name';
  if (segment.includes('\\')) return 'a backslash in its name';
  if (segment.includes('\ufffd')) return 'bytes that are not UTF-8 in its name';
  return null;
}

/** How a refused name is shown: JSON-quoted, so that it stays on one line whatever it holds. */
export function shownName(path: string): string {
  return JSON.stringify(path);
}

/**
 * Why a regular file of a skill folder may not be served, or null. A file with more than one hard link may be a second
 * name of a file outside the folder (a hard link to a root-only file looks like any other file; only its link count
 * gives it away); a file skillbench's user cannot read is not served either. `st` is the file's stat (links followed).
 */
export function unservableFile(abs: string, st: Stats = statSync(abs)): string | null {
  if (!st.isFile()) return 'not a regular file';
  if (st.nlink > 1) return `it has ${st.nlink} hard links (a hard link can bring in a file from outside the skill folder; copy the file instead)`;
  try {
    accessSync(abs, constants.R_OK);
  } catch {
    return 'skillbench cannot read it (permission denied)';
  }
  return null;
}

/** The same for a path that may be a symbolic link (its own link count is checked, not its target's). */
export function unservableEntry(abs: string): string | null {
  const st = lstatSync(abs);
  if (st.isSymbolicLink()) return null; // links are judged by where they lead (inside the folder or not)
  if (st.isDirectory()) return null;
  return unservableFile(abs, st);
}
