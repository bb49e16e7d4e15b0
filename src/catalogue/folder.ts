// A folder catalogue: every SKILL.md at any depth (found by skill-folders.ts), each loaded on its own. A SKILL.md is
// untrusted input: it may be binary, malformed or hostile, and each such problem is reported rather than thrown.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { ruleId, type RuleSlug } from '../rules.js';
import { shownName } from '../skill-files.js';
import { describeFolders, findSkillFiles, hiddenSkillFolders, SKILL_FILE, standardFoldersOf, type FoundSkillFile } from '../skill-folders.js';
import type { Catalogue, Problem, Skill } from '../types.js';
import { fieldLine, frontmatterLines, parseFrontmatter } from './frontmatter.js';
import { CATALOGUE_FIX, decodeText, errCode } from './input.js';
import { readSkillMetadata } from './metadata.js';
import { sortByName } from './order.js';
import { recordOrigin } from './origins.js';
import { displayPath, toPosix } from './paths.js';
import { dropDuplicates, sortProblems } from './problems.js';
import { hashSkill, listResources } from './resources.js';
import { readToolProfiles } from './tool-profiles.js';

export async function loadFolder(root: string, shown: string): Promise<Catalogue> {
  const project = await standardFoldersOf(root);
  let scan;
  try {
    scan = await findSkillFiles(root, { project });
  } catch (err) {
    throw new UserError(`${displayPath(root)}: cannot read the folder (${errCode(err)})`, CATALOGUE_FIX);
  }
  const { files } = scan;
  if (files.length === 0) {
    if (project) {
      throw new UserError(
        `${shown}: no ${SKILL_FILE} found in its skill folders (${project.map((p) => toPosix(path.relative(root, p))).join(', ')})`,
        'put each skill in its own folder with a SKILL.md in one of them, or pass the folder that holds your skills with --skills',
      );
    }
    const hidden = await hiddenSkillFolders(root);
    if (hidden.length) {
      throw new UserError(
        `${shown}: no ${SKILL_FILE} found in this folder or below it; folders starting with a dot are not searched, and ${hidden.join(', ')} ${hidden.length === 1 ? 'holds' : 'hold'} skills`,
        `pass that folder with --skills (e.g. --skills ${toPosix(path.join(shown, hidden[0]!))})`,
      );
    }
    throw new UserError(`${shown}: no ${SKILL_FILE} found in this folder or below it`, CATALOGUE_FIX);
  }
  // A project whose skills are all in one plain folder (`skills/`) reads as that folder, as it always did; the
  // standard folders are named on the terminal when a dot-folder or several folders were read.
  const holding = scan.folders?.filter((f) => f.skills > 0 || f.alreadyFound > 0) ?? [];
  const single = holding.length === 1 && !isDotFolder(holding[0]!.path) ? holding[0]!.path : undefined;
  const source = single ?? root;
  const toolProfiles = await readToolProfiles(source);
  const loaded = await mapLimit(files, 32, (f) => loadSkillFile(source, f)); // bounded: large catalogues, few file handles
  const problems: Problem[] = [...scan.problems, ...loaded.flatMap((l) => l.problems)];
  const skills = dropDuplicates(
    loaded.flatMap((l) => (l.skill ? [l.skill] : [])),
    problems,
  );
  const catalogue: Catalogue = { source, kind: 'folder', skills: sortByName(skills), toolProfiles, problems: sortProblems(problems) };
  if (scan.folders && !single) catalogue.folders = scan.folders;
  return catalogue;
}

function isDotFolder(folder: string): boolean {
  return path.basename(path.dirname(folder)).startsWith('.');
}

interface Loaded {
  skill?: Skill;
  problems: Problem[];
}

/** One skill. `root` is what locations are relative to; categories are relative to the folder searched. */
async function loadSkillFile(root: string, found: FoundSkillFile): Promise<Loaded> {
  const { file, realDir } = found;
  const problems: Problem[] = [];
  const fatal = (line: number, message: string, fix: string, rule: RuleSlug): Loaded => {
    problems.push({ file, line, severity: 'error', message, fix, fatal: true, rule: ruleId(rule) });
    return { problems };
  };
  const fileName = path.basename(file);
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (err) {
    return fatal(1, `cannot read ${fileName} (${errCode(err)})`, 'check the file permissions', 'skill-file-unreadable');
  }
  const text = decodeText(bytes);
  if (text === null) {
    return fatal(1, `${fileName} is not UTF-8 text (binary content)`, `write ${SKILL_FILE} as UTF-8 Markdown with a YAML frontmatter`, 'skill-file-not-text');
  }
  const parsed = parseFrontmatter(text);
  if ('error' in parsed) return fatal(parsed.line, parsed.error, parsed.fix, 'frontmatter-invalid');
  const { data, body } = parsed;

  // Values are read trimmed, as the reference library (skills-ref) reads them: a block scalar's final newline or a
  // quoted value's stray spaces are not part of the name or of what the model is shown.
  const rawName = data.name;
  if (rawName === undefined || rawName === null || (typeof rawName === 'string' && rawName.trim() === '')) {
    return fatal(fieldLine(text, 'name'), 'frontmatter has no `name`', 'add `name: <folder-name>` in lowercase letters, digits and hyphens', 'name-missing');
  }
  if (typeof rawName !== 'string') {
    return fatal(fieldLine(text, 'name'), '`name` is not a string', 'write the name as plain text, e.g. `name: my-skill`', 'name-missing');
  }
  const rawDescription = data.description;
  if (rawDescription === undefined || rawDescription === null || (typeof rawDescription === 'string' && rawDescription.trim() === '')) {
    return fatal(
      fieldLine(text, 'description'),
      'frontmatter has no `description` (or it is empty)',
      'add a `description:` of 1-1024 characters saying what the skill does and when to use it',
      'description-missing',
    );
  }
  if (typeof rawDescription !== 'string') {
    return fatal(fieldLine(text, 'description'), '`description` is not a string', 'write the description as plain text', 'description-missing');
  }
  const name = rawName.trim();
  const description = rawDescription.trim();

  if (found.lowercase) {
    problems.push({
      file,
      line: 1,
      severity: 'warning',
      message: `the skill file is named ${fileName}; hosts look for ${SKILL_FILE} (read anyway, as skills-ref does)`,
      fix: `rename it to ${SKILL_FILE}`,
      rule: ruleId('skill-file-lowercase'),
    });
  }
  const { state, toolProfiles } = readSkillMetadata(data, (line, message, fix) =>
    problems.push({ file, line: line(text), severity: 'error', message, fix, rule: ruleId('metadata-invalid') }),
  );
  // Resources, hash, reads and script runs use the real folder; the category and the location shown to the model
  // use the path as found (`.claude/skills/pdf/SKILL.md`, even when `pdf` links to `.agents/skills/pdf`).
  const resources = await listResources(realDir, path.basename(file), (rel, reason) =>
    problems.push({ file, line: 1, severity: 'warning', message: `file ${shownName(rel)} is not served (not listed, read or copied for scripts): ${reason}`, fix: 'rename it, or replace a hard link with a copy of the file', rule: ruleId('resource-not-served') }),
  );
  const hash = await hashSkill(bytes, realDir, resources, (rel, err) =>
    problems.push({ file, line: 1, severity: 'warning', message: `resource ${rel} cannot be read (${errCode(err)})`, fix: 'check its permissions', rule: ruleId('resource-unreadable') }),
  );
  const shownDir = path.dirname(file);
  const categoryRoot = found.scanRoot;
  const skill: Skill = {
    name,
    description,
    body,
    category: shownDir === categoryRoot ? '' : toPosix(path.relative(categoryRoot, path.dirname(shownDir))),
    dir: realDir,
    file,
    location: shownDir === root ? `${path.basename(root)}/${fileName}` : toPosix(path.relative(root, file)),
    hash,
    resources,
    state,
    toolProfiles,
    frontmatter: data,
  };
  recordOrigin(skill, { frontmatter: frontmatterLines(text).join('\n') });
  return { skill, problems };
}

/** The line saying which standard skill folders of a project root were read, or null (a plain catalogue folder). */
export function catalogueNote(catalogue: Catalogue): string | null {
  return catalogue.folders ? `skillbench: ${describeFolders(catalogue.folders, (p) => displayPath(p))}` : null;
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
