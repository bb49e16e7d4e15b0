// Loads a skill catalogue: a folder (every SKILL.md at any depth) or a JSON list [{name, description, ...}].
// A SKILL.md is untrusted input: its frontmatter is parsed as YAML only (gray-matter's JavaScript engine would
// eval it), it may be binary, malformed or hostile, and each such problem is reported rather than thrown.
import { promises as fs, existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import matter from 'gray-matter';
import { UserError } from './errors.js';
import { readJsonFile, readJsonText } from './jsonfile.js';
import { canonicalJson } from './cache.js';
import { refusedName, shownName, unservableEntry } from './skill-files.js';
import { ruleId, ruleLabel, type RuleSlug } from './rules.js';
import { describeFolders, findSkillFiles, hiddenSkillFolders, LOWERCASE_SKILL_FILE, SKILL_FILE, SKIPPED_DIRS, standardFoldersOf, type FoundSkillFile } from './skill-folders.js';
import type { Catalogue, Problem, Skill, SkillState, ToolDeclaration } from './types.js';

export { SKILL_FILE } from './skill-folders.js';
export const TOOL_PROFILES_FILE = 'tool-profiles.json';
export const SKILL_STATES: readonly SkillState[] = ['always', 'available', 'never'];

/** Files that only exist to keep an empty folder in git: not resources. */
const IGNORED_FILES = new Set(['.gitkeep', '.DS_Store']);

/** Where each loaded skill came from, to point later problems (validation) at the right line. */
const origins = new WeakMap<Skill, { frontmatter?: string; line?: number }>();

/** 1-based line of a frontmatter field of a loaded skill (`nested` for a key under it, e.g. metadata.state). */
export function skillFieldLine(skill: Skill, key: string, nested?: string): number {
  const o = origins.get(skill);
  if (!o) return 1;
  if (o.frontmatter === undefined) return o.line ?? 1;
  return nested ? nestedFieldLine(o.frontmatter, key, nested) : fieldLine(o.frontmatter, key);
}

/** 1-based line of SKILL.md where the body starts (the line after the closing `---`), or 1 when unknown. */
export function skillBodyLine(skill: Skill): number {
  const o = origins.get(skill);
  if (o?.frontmatter === undefined) return 1;
  return o.frontmatter.split('\n').length + 2;
}

const CATALOGUE_FIX = 'give a folder of skills (each in its own folder with a SKILL.md) or a JSON file [{"name": ..., "description": ...}]';

// ---------------------------------------------------------------- entry points

export async function loadCatalogue(catPath: string): Promise<Catalogue> {
  const abs = path.resolve(catPath);
  let stat;
  try {
    stat = await fs.stat(abs);
  } catch (err) {
    throw new UserError(`${catPath}: cannot read the catalogue (${errCode(err)})`, CATALOGUE_FIX);
  }
  if (stat.isDirectory()) return loadFolder(abs, catPath);
  if (path.basename(abs) === SKILL_FILE) return loadFolder(path.dirname(abs), path.dirname(catPath)); // one skill, named by its file
  return loadJson(abs, catPath);
}

/** Throws a UserError listing the fatal problems (skills that could not be loaded), if any. */
export function assertUsable(catalogue: Catalogue): void {
  const fatal = catalogue.problems.filter((p) => p.fatal);
  if (fatal.length === 0) return;
  const lines = fatal.map((p) => `  ${formatProblem(p)}`);
  throw new UserError(
    `${displayPath(catalogue.source)}: ${fatal.length} skill${fatal.length === 1 ? '' : 's'} cannot be loaded:\n${lines.join('\n')}`,
    `fix ${fatal.length === 1 ? 'it' : 'them'} (see \`skillbench validate ${displayPath(catalogue.source)}\`)`,
  );
}

/** `file:line: severity SB012 rule-name: message (fix)` with the file relative to the working directory. */
export function formatProblem(p: Problem, cwd = process.cwd()): string {
  const rule = ruleLabel(p.rule);
  return `${displayPath(p.file, cwd)}:${p.line}: ${p.severity}${rule ? ` ${rule}` : ''}: ${p.message}${p.fix ? ` (${p.fix})` : ''}`;
}

/** The line saying which standard skill folders of a project root were read, or null (a plain catalogue folder). */
export function catalogueNote(catalogue: Catalogue): string | null {
  return catalogue.folders ? `skillbench: ${describeFolders(catalogue.folders, (p) => displayPath(p))}` : null;
}

export function displayPath(file: string, cwd = process.cwd()): string {
  const rel = path.relative(cwd, path.resolve(cwd, file));
  if (rel === '') return '.';
  // Far away from the working directory, an absolute path reads better than ../../../..
  return toPosix(rel.startsWith(`..${path.sep}..${path.sep}..`) ? path.resolve(cwd, file) : rel);
}

// ---------------------------------------------------------------- folder catalogues

async function loadFolder(root: string, shown: string): Promise<Catalogue> {
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
  origins.set(skill, { frontmatter: frontmatterLines(text).join('\n') });
  return { skill, problems };
}

// ---------------------------------------------------------------- frontmatter

type Parsed = { data: Record<string, unknown>; body: string } | { error: string; fix: string; line: number };

class RefusedEngine extends Error {
  constructor(readonly language: string) {
    super(`frontmatter language "${language}" refused`);
  }
}

function refuse(language: string) {
  return {
    parse: (): object => {
      throw new RefusedEngine(language);
    },
  };
}

// gray-matter merges these over its defaults, whose `javascript` engine evals the block: every language but YAML
// is replaced by one that throws before anything runs; any other language name is "not registered" and throws too.
const yamlEngine = (matter as unknown as { engines: { yaml: { parse: (s: string) => object } } }).engines.yaml; // js-yaml safeLoad
const ENGINES = {
  yaml: { parse: (s: string) => yamlEngine.parse(s) },
  yml: { parse: (s: string) => yamlEngine.parse(s) },
  javascript: refuse('javascript'),
  js: refuse('js'),
  json: refuse('json'),
  coffee: refuse('coffee'),
  coffeescript: refuse('coffeescript'),
  cson: refuse('cson'),
  toml: refuse('toml'),
};

const FRONTMATTER_FIX = 'start SKILL.md with a YAML block between two `---` lines holding at least `name` and `description`';

export function parseFrontmatter(text: string): Parsed {
  const firstLine = text.split('\n', 1)[0].replace(/\r$/, '');
  if (!firstLine.startsWith('---') || firstLine.startsWith('----')) {
    return { error: 'no frontmatter (SKILL.md must start with `---`)', fix: FRONTMATTER_FIX, line: 1 };
  }
  if (!/\r?\n---[ \t]*(\r?\n|$)/.test(text)) {
    return { error: 'frontmatter is not closed (no second `---` line)', fix: FRONTMATTER_FIX, line: 1 };
  }
  let file;
  try {
    file = matter(text, { engines: ENGINES, language: 'yaml' });
  } catch (err) {
    if (err instanceof RefusedEngine || /engine .* is not registered/.test(String((err as Error).message))) {
      const lang = firstLine.slice(3).trim();
      return {
        error: `frontmatter language "${lang}" is not allowed (only YAML is read; the block was not executed)`,
        fix: `replace the first line \`---${lang}\` with \`---\` and write the frontmatter in YAML`,
        line: 1,
      };
    }
    const e = err as { reason?: string; message?: string; mark?: { line?: number } };
    const line = typeof e.mark?.line === 'number' ? e.mark.line + 1 : 1;
    return { error: `frontmatter is not valid YAML: ${e.reason ?? String(e.message).split('\n')[0]}`, fix: 'fix the YAML syntax; quote values that contain `: ` or `#`, or start with a special character', line: Math.max(1, line) };
  }
  const data = file.data as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { error: 'frontmatter is not a mapping of fields', fix: FRONTMATTER_FIX, line: 2 };
  }
  return { data: data as Record<string, unknown>, body: file.content };
}

/** 1-based line of a top-level frontmatter field (`key:`), or 1 when it is not written as such. */
export function fieldLine(text: string, key: string): number {
  const lines = frontmatterLines(text);
  const re = new RegExp(`^${escapeRegExp(key)}\\s*:`);
  const i = lines.findIndex((l) => re.test(l));
  return i < 0 ? 1 : i + 1;
}

/** 1-based line of a field nested under `parent:` (e.g. metadata.state), else the parent's line, else 1. */
export function nestedFieldLine(text: string, parent: string, key: string): number {
  const lines = frontmatterLines(text);
  const p = fieldLine(text, parent) - 1;
  if (p <= 0) return 1;
  const re = new RegExp(`^\\s+['"]?${escapeRegExp(key)}['"]?\\s*:`);
  for (let i = p + 1; i < lines.length && /^(\s|$)/.test(lines[i]); i++) if (re.test(lines[i])) return i + 1;
  return p + 1;
}

function frontmatterLines(text: string): string[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const end = lines.findIndex((l, i) => i > 0 && /^---\s*$/.test(l));
  return end < 0 ? lines : lines.slice(0, end);
}

// ---------------------------------------------------------------- metadata (state, tool profiles)

type Report = (line: (text: string) => number, message: string, fix: string) => void;

function readSkillMetadata(data: Record<string, unknown>, report: Report): { state: SkillState; toolProfiles: string[] } {
  const meta = data.metadata;
  if (meta === undefined || meta === null) return { state: 'available', toolProfiles: [] };
  if (typeof meta !== 'object' || Array.isArray(meta)) {
    report((t) => fieldLine(t, 'metadata'), '`metadata` is not a mapping', 'write `metadata:` followed by indented `key: value` lines');
    return { state: 'available', toolProfiles: [] };
  }
  const m = meta as Record<string, unknown>;
  let state: SkillState = 'available';
  if (m.state !== undefined) {
    if (typeof m.state === 'string' && (SKILL_STATES as readonly string[]).includes(m.state)) state = m.state as SkillState;
    else
      report(
        (t) => nestedFieldLine(t, 'metadata', 'state'),
        `metadata.state "${String(m.state)}" is not a known state (read as "available")`,
        `use one of ${SKILL_STATES.join(', ')}`,
      );
  }
  const raw = m['tool-profiles'];
  let toolProfiles: string[] = [];
  if (typeof raw === 'string') toolProfiles = raw.split(/[\s,]+/).filter(Boolean);
  else if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) toolProfiles = raw as string[];
  else if (raw !== undefined)
    report(
      (t) => nestedFieldLine(t, 'metadata', 'tool-profiles'),
      'metadata.tool-profiles is not a list of profile names',
      'write `tool-profiles: [profile-a, profile-b]` or a space-separated string',
    );
  return { state, toolProfiles: [...new Set(toolProfiles)].sort(compareStrings) };
}

// ---------------------------------------------------------------- resources and hash

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
async function hashSkill(skillBytes: Buffer, dir: string, resources: string[], onError: (rel: string, err: unknown) => void): Promise<string> {
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

// ---------------------------------------------------------------- tool profiles

async function readToolProfiles(root: string): Promise<Record<string, ToolDeclaration[]>> {
  const file = path.join(root, TOOL_PROFILES_FILE);
  if (!existsSync(file)) return {};
  const fix = 'write {"profiles": {"<profile>": [{"name": ..., "description": ..., "parameters": {JSON Schema}}]}}';
  const data = await readJsonFile(file, { shown: displayPath(file), what: 'the tool profiles', readFix: 'check the file permissions', fix });
  const profiles = (data as { profiles?: unknown } | null)?.profiles;
  if (!isPlainObject(profiles)) throw new UserError(`${displayPath(file)}: field "profiles" is missing or not an object`, fix);
  const declarations = (profile: string, tools: unknown): ToolDeclaration[] => {
    if (!Array.isArray(tools)) throw new UserError(`${displayPath(file)}: profiles.${profile} is not a list of tool declarations`, fix);
    return tools.map((t, i) => {
      const where = `${displayPath(file)}: profiles.${profile}[${i}]`;
      if (!isPlainObject(t)) throw new UserError(`${where} is not an object`, fix);
      if (typeof t.name !== 'string' || t.name === '') throw new UserError(`${where}.name is missing or not a string`, fix);
      if (typeof t.description !== 'string') throw new UserError(`${where}.description is missing or not a string`, fix);
      const parameters = t.parameters ?? { type: 'object', properties: {} };
      if (!isPlainObject(parameters)) throw new UserError(`${where}.parameters is not a JSON Schema object`, fix);
      return { name: t.name, description: t.description, parameters };
    });
  };
  // fromEntries, not assignments: out["__proto__"] = [...] would set the object's prototype instead of a profile.
  return Object.fromEntries(Object.entries(profiles).map(([profile, tools]) => [profile, declarations(profile, tools)]));
}

// ---------------------------------------------------------------- JSON catalogues

async function loadJson(file: string, shown: string): Promise<Catalogue> {
  const { text, data } = await readJsonText(file, { shown, what: 'the catalogue', fix: CATALOGUE_FIX, notJson: 'not a folder and not valid JSON' });
  const list = Array.isArray(data) ? data : isPlainObject(data) && Array.isArray(data.skills) ? data.skills : null;
  if (list === null) throw new UserError(`${shown}: expected a JSON list of skills [{name, description, ...}]`, CATALOGUE_FIX);
  if (list.length === 0) throw new UserError(`${shown}: the list of skills is empty`, CATALOGUE_FIX);

  const problems: Problem[] = [];
  const skills: Skill[] = [];
  const lines = nameLines(text);
  const jsonLine = (name: string, occurrence = 1) => lines.get(name)?.[occurrence - 1] ?? 1;
  list.forEach((entry: unknown, i: number) => {
    const fatal = (line: number, message: string, fix: string, rule: RuleSlug) =>
      problems.push({ file, line, severity: 'error', message: `entry ${i}: ${message}`, fix, fatal: true, rule: ruleId(rule) });
    if (!isPlainObject(entry)) return fatal(1, 'is not an object', 'write each skill as {"name": ..., "description": ...}', 'entry-invalid');
    const { name: rawName, description: rawDescription } = entry;
    if (typeof rawName !== 'string' || rawName.trim() === '') return fatal(1, 'field "name" is missing or not a string', 'give every entry a "name"', 'name-missing');
    const line = jsonLine(rawName);
    if (typeof rawDescription !== 'string' || rawDescription.trim() === '')
      return fatal(line, `field "description" of "${rawName}" is missing, empty or not a string`, 'give every entry a non-empty "description"', 'description-missing');
    const name = rawName.trim();
    const description = rawDescription.trim();
    const category = typeof entry.category === 'string' ? entry.category : '';
    const { state, toolProfiles } = readSkillMetadata(entry, (_l, message, fix) =>
      problems.push({ file, line, severity: 'error', message: `entry ${i}: ${message}`, fix, rule: ruleId('metadata-invalid') }),
    );
    const skill: Skill = {
      name,
      description,
      body: typeof entry.body === 'string' ? entry.body : '',
      category,
      file,
      location: category ? `${category}/${name}` : name,
      hash: createHash('sha256').update(canonicalJson(entry)).digest('hex').slice(0, 16),
      resources: [],
      state,
      toolProfiles,
      frontmatter: entry,
    };
    origins.set(skill, { line });
    skills.push(skill);
  });
  const kept = dropDuplicates(skills, problems, (s) => jsonLine(s.name, 2));
  return { source: file, kind: 'json', skills: sortByName(kept), toolProfiles: {}, problems: sortProblems(problems) };
}

/**
 * The 1-based lines of every `"name": "<string>"` in a JSON text, by the name it decodes to, in order of appearance.
 * One pass over the text: a search per entry (and a line count from the start per match) made loading quadratic.
 */
function nameLines(text: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const re = /"name"\s*:\s*("(?:[^"\\\n]|\\.)*")/g;
  let line = 1;
  let nextNewline = text.indexOf('\n'); // each newline is found once: a minified file is one long line
  for (let m = re.exec(text); m; m = re.exec(text)) {
    while (nextNewline !== -1 && nextNewline < m.index) {
      line++;
      nextNewline = text.indexOf('\n', nextNewline + 1);
    }
    let name: unknown;
    try {
      name = JSON.parse(m[1]!);
    } catch {
      continue;
    }
    if (typeof name !== 'string') continue;
    const at = out.get(name);
    if (at) at.push(line);
    else out.set(name, [line]);
  }
  return out;
}

// ---------------------------------------------------------------- shared helpers

/** Keeps the first skill of each name (in file order) and reports the others as fatal duplicates. */
function dropDuplicates(skills: Skill[], problems: Problem[], lineOf?: (s: Skill) => number): Skill[] {
  const seen = new Map<string, Skill>();
  const kept: Skill[] = [];
  for (const s of skills) {
    const first = seen.get(s.name);
    if (!first) {
      seen.set(s.name, s);
      kept.push(s);
      continue;
    }
    const where = first.file === s.file ? 'earlier in the same file' : `already used by ${displayPath(first.file)}`;
    problems.push({
      file: s.file,
      line: lineOf ? lineOf(s) : skillFieldLine(s, 'name'),
      severity: 'error',
      message: `duplicate name "${s.name}" (${where}); this copy is ignored`,
      fix: 'give each skill a unique name and rename its folder to match',
      fatal: true,
      rule: ruleId('duplicate-name'),
    });
  }
  return kept;
}

export function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) => compareStrings(a.file, b.file) || a.line - b.line || compareStrings(a.severity, b.severity) || compareStrings(a.message, b.message),
  );
}

function sortByName(skills: Skill[]): Skill[] {
  return [...skills].sort((a, b) => compareStrings(a.name, b.name));
}

/** Plain code-unit order: the same on every machine and locale (byte-identical prompts depend on it). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function decodeText(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8000).includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
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

async function isRegularFile(p: string): Promise<boolean> {
  try {
    return (await fs.lstat(p)).isFile();
  } catch {
    return false;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function errCode(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e?.code ?? e?.message ?? String(err);
}
