// The throwaway copy of a skill folder a script runs in: staged under a random name, filled with what may be served
// (links that leave the folder and unservable files left out), shared read-only when skillbench runs as root.
import { randomBytes } from 'node:crypto';
import { chmod, chown, cp, lchown, lstat, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, sep } from 'node:path';
import { refusedName, unservableEntry } from '../skill-files.js';

/**
 * A fresh folder for the copy of the skill inside the throwaway folder `work`, under a random name. Run as root (the
 * script as nobody), `work` is opened for traversal only (0711) and the copy made world-readable, never handed to
 * nobody: bwrap, started as nobody, must reach it to bind it read-only, but no other process of nobody on the host
 * may change it, and nobody else can find it (its name cannot be listed).
 */
export async function stageDir(work: string): Promise<string> {
  const copy = join(work, randomBytes(12).toString('hex'));
  if (process.getuid?.() === 0) await chmod(work, 0o711);
  return copy;
}

/**
 * Copies the skill folder, keeping relative symlinks that stay inside it and leaving out every other one (a link to
 * ~/.ssh must not smuggle its target into the copy, and an absolute link, even to a file of the skill, would point
 * back into the original folder), and leaving out what is never served (skill-files.ts): hard links (a second name of
 * a file from elsewhere, root-only perhaps), files skillbench cannot read, names with line breaks or backslashes.
 * Run as root, the copy is then made readable (not writable) by everyone: see stageDir.
 */
export async function copySkill(skillDir: string, copy: string): Promise<void> {
  const root = await realpath(skillDir);
  await cp(root, copy, {
    recursive: true,
    verbatimSymlinks: true,
    filter: async (src) => {
      if (src !== root && refusedName(src.slice(src.lastIndexOf(sep) + 1))) return false;
      const st = await lstat(src);
      if (!st.isSymbolicLink()) return st.isDirectory() || unservableEntry(src) === null;
      if (isAbsolute(await readlink(src))) return false;
      try {
        return isInside(await realpath(src), root);
      } catch {
        return false; // dangling link
      }
    },
  });
  if (process.getuid?.() === 0) await shareReadOnly(copy);
}

/** Owned by root, readable (and, for folders and executables, traversable) by all, writable by root only. */
async function shareReadOnly(dir: string): Promise<void> {
  await chown(dir, 0, 0);
  await chmod(dir, 0o755);
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSymbolicLink()) await lchown(p, 0, 0);
    else if (e.isDirectory()) await shareReadOnly(p);
    else {
      await chown(p, 0, 0);
      await chmod(p, (await stat(p)).mode & 0o111 ? 0o755 : 0o644);
    }
  }
}

export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
