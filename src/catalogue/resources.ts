// A skill folder's resources: which files are listed (and which are refused, see skill-files.ts), the skill's hash
// over them, and a resource's text as a prompt carries it.
import { promises as fs, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { refusedName, unservableEntry } from '../skill-files.js';
import { LOWERCASE_SKILL_FILE, SKILL_FILE, SKIPPED_DIRS } from '../skill-folders.js';
import type { Skill } from '../types.js';
import { decodeText, errCode } from './input.js';
import { compareStrings } from './order.js';

/** Files that only exist to keep an empty folder in git: not resources. */
const IGNORED_FILES = new Set(['.gitkeep', '.DS_Store']);

/** Every other file of the skill folder (relative POSIX paths, sorted); nested skill folders are left out;
 *  symbolic links are listed as themselves and never followed. `skillFile` is the skill's own file name. Files that
 *  may not be served (see skill-files.ts: a name with a line break or a backslash, a hard link, an unreadable file)
 *  are left out and passed to `onRefused`. */
export async function listResources(dir: string, skillFile = SKILL_FILE, onRefused?: (rel: string, reason: string) => void): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(rel ? path.join(dir, rel) : dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && SKIPPED_DIRS.has(e.name)) continue;
      if (!e.isDirectory() && !e.isFile() && !e.isSymbolicLink()) continue;
      if (!e.isDirectory() && ((rel === '' && e.name === skillFile) || IGNORED_FILES.has(e.name))) continue;
      const badName = refusedName(e.name);
      if (badName) {
        onRefused?.(r, badName);
        continue;
      }
      if (e.isDirectory()) {
        if ((await isRegularFile(path.join(dir, r, SKILL_FILE))) || (await isRegularFile(path.join(dir, r, LOWERCASE_SKILL_FILE)))) continue; // a nested skill of its own
        await walk(r);
        continue;
      }
      const unservable = e.isFile() ? unservableEntrySafe(path.join(dir, r)) : null;
      if (unservable) onRefused?.(r, unservable);
      else out.push(r);
    }
  };
  await walk('');
  return out.sort(compareStrings);
}

function unservableEntrySafe(abs: string): string | null {
  try {
    return unservableEntry(abs);
  } catch (err) {
    return `it cannot be read (${errCode(err)})`;
  }
}

/** sha256 of SKILL.md bytes then, per resource in order, its path and bytes (a link's target path, unread);
 *  first 16 hex chars. */
export async function hashSkill(skillBytes: Buffer, dir: string, resources: string[], onError: (rel: string, err: unknown) => void): Promise<string> {
  const h = createHash('sha256');
  h.update(skillBytes);
  for (const rel of resources) {
    const abs = path.join(dir, ...rel.split('/'));
    h.update(`\0${rel}\0`);
    try {
      const st = await fs.lstat(abs);
      if (st.isSymbolicLink()) h.update(`symlink:${await fs.readlink(abs)}`);
      else h.update(await fs.readFile(abs));
    } catch (err) {
      h.update(`unreadable:${errCode(err)}`);
      onError(rel, err);
    }
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * A resource's text as a prompt would carry it (load-all mode, token audits): binary files and symbolic links
 * are described in one line, never read through. Only paths listed in `skill.resources` are read.
 */
export function readResourceText(skill: Skill, rel: string): string {
  if (!skill.dir || !skill.resources.includes(rel)) return '';
  const abs = path.join(skill.dir, ...rel.split('/'));
  try {
    if (lstatSync(abs).isSymbolicLink()) return `[symbolic link to ${readlinkSync(abs)}]`;
    const refused = unservableEntry(abs);
    if (refused) return `[not read: ${refused}]`;
    const bytes = readFileSync(abs);
    return decodeText(bytes) ?? `[binary file, ${bytes.length} bytes]`;
  } catch (err) {
    return `[unreadable: ${errCode(err)}]`;
  }
}

async function isRegularFile(p: string): Promise<boolean> {
  try {
    return (await fs.lstat(p)).isFile();
  } catch {
    return false;
  }
}
