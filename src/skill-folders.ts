// Where the skills of a folder are: every SKILL.md below it, symbolic links to skill folders followed (the common
// installers link `.claude/skills/<name>` to `.agents/skills/<name>`), each real folder searched once so a link
// loop ends; and, for a project root, the standard skill folders of the agents (`.claude/skills`, `skills`, ...).
// Only where the files are is decided here; reading them is catalogue/folder.ts's job.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ruleId } from './rules.js';
import type { Problem, SkillFolderUse } from './types.js';

export const SKILL_FILE = 'SKILL.md';
/** Accepted like the reference validator (skills-ref) does, with a warning: hosts look for SKILL.md. */
export const LOWERCASE_SKILL_FILE = 'skill.md';

/** The folders agents read skills from, relative to a project root, in the order they are searched. */
export const STANDARD_SKILL_FOLDERS: readonly string[] = ['.agents/skills', '.claude/skills', '.codex/skills', '.gemini/skills', 'skills'];
/** What makes a folder holding a plain `skills/` a project root rather than a catalogue with a `skills` category. */
const PROJECT_MARKERS = ['.git', 'package.json'];

/** Folders never searched for skills nor listed as resources. */
export const SKIPPED_DIRS = new Set(['node_modules', '.git']);

export interface FoundSkillFile {
  /** SKILL.md as found: through the links that led to it. */
  file: string;
  /** Real path of the folder holding it: reads and script runs are anchored here. */
  realDir: string;
  /** The folder searched that holds it (the catalogue root, or one standard skill folder of a project). */
  scanRoot: string;
  /** Named skill.md, not SKILL.md. */
  lowercase: boolean;
}

export interface SkillFileScan {
  files: FoundSkillFile[];
  problems: Problem[];
  /** For a project root: the standard skill folders that exist, with what each held. */
  folders?: SkillFolderUse[];
}

/** The standard skill folders a project root holds (absolute paths), or null when `dir` is not a project root. */
export async function standardFoldersOf(dir: string): Promise<string[] | null> {
  if (await isFile(path.join(dir, SKILL_FILE))) return null; // a skill folder, not a project
  const existing: string[] = [];
  for (const rel of STANDARD_SKILL_FOLDERS) if (await isDirectory(path.join(dir, rel))) existing.push(path.join(dir, rel));
  if (existing.length === 0) return null;
  const dotted = existing.some((d) => path.basename(path.dirname(d)).startsWith('.'));
  if (dotted) return existing;
  // Only `skills/`: a project (a git checkout, a package) reads it; a catalogue may just have a category so named.
  for (const m of PROJECT_MARKERS) if (await exists(path.join(dir, m))) return existing;
  return null;
}

/** What `--skills` means when it is not given: the working folder when it is a project root (its standard skill
 *  folders are read), else `skills`, as before. */
export async function defaultSkillsPath(cwd = process.cwd()): Promise<string> {
  return (await standardFoldersOf(cwd)) ? '.' : 'skills';
}

/** Every skill file below `root` (or below the standard skill folders of a project root), sorted by path. */
export async function findSkillFiles(root: string, opts: { project?: string[] | null } = {}): Promise<SkillFileScan> {
  const project = opts.project === undefined ? await standardFoldersOf(root) : opts.project;
  const walk = new Walk();
  await walk.run(project ?? [root]);
  const files = walk.files.sort((a, b) => compare(a.file, b.file));
  if (!project) return { files, problems: walk.problems };
  const folders = project.map((p) => ({
    path: p,
    skills: files.filter((f) => f.scanRoot === p).length,
    alreadyFound: walk.aliases.get(p) ?? 0,
  }));
  return { files, problems: walk.problems, folders };
}

interface Pending {
  /** The folder as reached (through links). */
  shown: string;
  real: string;
  scanRoot: string;
  /** Inside a skill folder: links there are the skill's resources, never followed. */
  inSkill: boolean;
}

/**
 * One search. Real folders are searched before folders reached through links, and every real folder once: a skill
 * reachable both ways is found at its real path, a link into a folder already searched (a loop, or a second name
 * for the same skills) is not followed again.
 */
class Walk {
  readonly files: FoundSkillFile[] = [];
  readonly problems: Problem[] = [];
  /** Per standard folder: skills it reaches through links that were found at their real path elsewhere. */
  readonly aliases = new Map<string, number>();
  private readonly visited = new Set<string>();
  private readonly direct: Pending[] = [];
  private readonly linked: Pending[] = [];

  async run(roots: string[]): Promise<void> {
    for (const root of roots) {
      const real = await fs.realpath(root);
      // A root that is itself a link (`.claude/skills -> ../.agents/skills`) is searched after the real folders.
      const direct = real === path.join(await fs.realpath(path.dirname(root)), path.basename(root));
      (direct ? this.direct : this.linked).push({ shown: root, real, scanRoot: root, inSkill: false });
    }
    this.direct.reverse(); // popped from the end: keep the roots' order
    for (let next = this.next(); next; next = this.next()) await this.visit(next, roots);
  }

  private next(): Pending | undefined {
    return this.direct.pop() ?? this.linked.shift();
  }

  private async visit(dir: Pending, roots: string[]): Promise<void> {
    if (this.visited.has(dir.real)) {
      // Reached again through a link: its skills were found at their real path (real folders are searched first).
      const again = this.files.filter((f) => isInside(f.realDir, dir.real)).length;
      if (again) this.aliases.set(dir.scanRoot, (this.aliases.get(dir.scanRoot) ?? 0) + again);
      return;
    }
    this.visited.add(dir.real);
    let entries;
    try {
      entries = await fs.readdir(dir.real, { withFileTypes: true });
    } catch (err) {
      if (roots.includes(dir.shown)) throw err; // the folder the user named: the caller reports it
      return; // an unreadable subfolder holds no skill we could load anyway
    }
    const names = new Set(entries.map((e) => e.name));
    const skillName = names.has(SKILL_FILE) ? SKILL_FILE : names.has(LOWERCASE_SKILL_FILE) ? LOWERCASE_SKILL_FILE : null;
    let inSkill = dir.inSkill;
    if (skillName && (await isFile(path.join(dir.real, skillName)))) {
      this.files.push({ file: path.join(dir.shown, skillName), realDir: dir.real, scanRoot: dir.scanRoot, lowercase: skillName !== SKILL_FILE });
      inSkill = true;
    }
    for (const e of entries) {
      if (SKIPPED_DIRS.has(e.name) || e.name.startsWith('.')) continue;
      const shown = path.join(dir.shown, e.name);
      if (e.isDirectory()) this.direct.push({ shown, real: path.join(dir.real, e.name), scanRoot: dir.scanRoot, inSkill });
      else if (e.isSymbolicLink() && !inSkill) await this.followLink(shown, path.join(dir.real, e.name), dir);
    }
  }

  /** A link outside any skill folder: to a folder, searched later (unless it leads back up: a loop, reported). */
  private async followLink(shown: string, at: string, parent: Pending): Promise<void> {
    let real: string;
    try {
      real = await fs.realpath(at);
      if (!(await fs.stat(real)).isDirectory()) return;
    } catch {
      return; // dangling: leads to nothing that could be a skill
    }
    if (isInside(parent.real, real)) {
      this.problems.push({
        file: shown,
        line: 1,
        severity: 'warning',
        message: `symbolic link loop: it leads back to ${real === parent.real ? 'the folder it is in' : 'a folder above it'} (${real}); not followed`,
        fix: 'remove the link, or point it at a skill folder',
        rule: ruleId('link-not-followed'),
      });
      return;
    }
    this.linked.push({ shown, real, scanRoot: parent.scanRoot, inSkill: false });
  }
}

/** Folders directly under `root` whose name starts with a dot (never searched) and that hold a skill file within a
 *  few levels: named when a search finds nothing, so a skipped `.cursor/skills` is not a silent "no skill". */
export async function hiddenSkillFolders(root: string, maxDepth = 4): Promise<string[]> {
  let entries;
  try {
    entries = await fs.readdir(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const e of entries) {
    if (!e.name.startsWith('.') || SKIPPED_DIRS.has(e.name) || !(e.isDirectory() || e.isSymbolicLink())) continue;
    if (await holdsSkill(path.join(root, e.name), maxDepth)) found.push(e.name);
  }
  return found.sort(compare);
}

async function holdsSkill(dir: string, depth: number): Promise<boolean> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  if (entries.some((e) => e.name === SKILL_FILE || e.name === LOWERCASE_SKILL_FILE)) return true;
  if (depth <= 1) return false;
  for (const e of entries) {
    if (e.isDirectory() && !SKIPPED_DIRS.has(e.name) && (await holdsSkill(path.join(dir, e.name), depth - 1))) return true;
  }
  return false;
}

/** One line for the terminal: which standard folders of a project root were read. */
export function describeFolders(folders: SkillFolderUse[], shown: (p: string) => string): string {
  const parts = folders.map((f) => {
    const own = `${f.skills} skill${f.skills === 1 ? '' : 's'}`;
    const linked = `${f.alreadyFound} linked to skills found in another folder`;
    return `${shown(f.path)} (${f.alreadyFound === 0 ? own : f.skills === 0 ? linked : `${own}, plus ${linked}`})`;
  });
  return `skills from the standard skill folders: ${parts.join(', ')}`;
}

function isInside(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isFile();
  } catch {
    return false;
  }
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch {
    return false;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
