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
import type { Catalogue, Problem, Skill, SkillState, ToolDeclaration } from './types.js';

export const SKILL_FILE = 'SKILL.md';
export const TOOL_PROFILES_FILE = 'tool-profiles.json';
export const SKILL_STATES: readonly SkillState[] = ['always', 'available', 'never'];

/** Folders never searched for skills nor listed as resources. */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);
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

/** `file:line: severity: message (fix)` with the file relative to the working directory. */
export function formatProblem(p: Problem, cwd = process.cwd()): string {
  return `${displayPath(p.file, cwd)}:${p.line}: ${p.severity}: ${p.message}${p.fix ? ` (${p.fix})` : ''}`;
}

export function displayPath(file: string, cwd = process.cwd()): string {
  const rel = path.relative(cwd, path.resolve(cwd, file));
  if (rel === '') return '.';
  // Far away from the working directory, an absolute path reads better than ../../../..
  return toPosix(rel.startsWith(`..${path.sep}..${path.sep}..`) ? path.resolve(cwd, file) : rel);
}

// ---------------------------------------------------------------- folder catalogues

async function loadFolder(root: string, shown: string): Promise<Catalogue> {
  const { files, links } = await findSkillFiles(root);
  if (files.length === 0) {
    const linked = links.length ? ` (${links.length} symbolic link${links.length === 1 ? '' : 's'} to skills not followed: ${displayPath(links[0]!)}${links.length > 1 ? ', ...' : ''})` : '';
    throw new UserError(`${shown}: no ${SKILL_FILE} found in this folder or below it${linked}`, links.length ? LINK_FIX : CATALOGUE_FIX);
  }
  const toolProfiles = await readToolProfiles(root);
  const loaded = await mapLimit(files, 32, (f) => loadSkillFile(root, f)); // bounded: large catalogues, few file handles
  const problems: Problem[] = loaded.flatMap((l) => l.problems);
  for (const link of links) {
    problems.push({ file: link, line: 1, severity: 'warning', message: 'symbolic link to a skill, not followed: this skill is not loaded', fix: LINK_FIX });
  }
  const skills = dropDuplicates(
    loaded.flatMap((l) => (l.skill ? [l.skill] : [])),
    problems,
  );
  return { source: root, kind: 'folder', skills: sortByName(skills), toolProfiles, problems: sortProblems(problems) };
}

const LINK_FIX = 'copy the skill folder in place of the link (links are never followed: a skill is untrusted input)';

/** Every regular SKILL.md below root, sorted by path; symbolic links are not followed, but those that lead to a skill
 *  (a linked SKILL.md, or a linked folder holding one) are returned apart so that they can be reported. */
async function findSkillFiles(root: string): Promise<{ files: string[]; links: string[] }> {
  const found: string[] = [];
  const links: string[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (dir === root) throw new UserError(`${displayPath(root)}: cannot read the folder (${errCode(err)})`, CATALOGUE_FIX);
      continue; // an unreadable subfolder holds no skill we could load anyway
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && !SKIPPED_DIRS.has(e.name) && !e.name.startsWith('.')) pending.push(p);
      else if (e.isFile() && e.name === SKILL_FILE) found.push(p);
      else if (e.isSymbolicLink() && (e.name === SKILL_FILE ? await exists(p) : await exists(path.join(p, SKILL_FILE)))) links.push(p);
    }
  }
  return { files: found.sort(compareStrings), links: links.sort(compareStrings) };
}

/** Whether a path leads to something (links followed, for reporting only; nothing is read). */
async function exists(p: string): Promise<boolean> {
  try {
    await fs.stat(p);
    return true;
  } catch {
    return false;
  }
}

interface Loaded {
  skill?: Skill;
  problems: Problem[];
}

async function loadSkillFile(root: string, file: string): Promise<Loaded> {
  const problems: Problem[] = [];
  const fatal = (line: number, message: string, fix: string): Loaded => {
    problems.push({ file, line, severity: 'error', message, fix, fatal: true });
    return { problems };
  };
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (err) {
    return fatal(1, `cannot read ${SKILL_FILE} (${errCode(err)})`, 'check the file permissions');
  }
  const text = decodeText(bytes);
  if (text === null) {
    return fatal(1, `${SKILL_FILE} is not UTF-8 text (binary content)`, `write ${SKILL_FILE} as UTF-8 Markdown with a YAML frontmatter`);
  }
  const parsed = parseFrontmatter(text);
  if ('error' in parsed) return fatal(parsed.line, parsed.error, parsed.fix);
  const { data, body } = parsed;

  const name = data.name;
  if (name === undefined || name === null || (typeof name === 'string' && name.trim() === '')) {
    return fatal(fieldLine(text, 'name'), 'frontmatter has no `name`', 'add `name: <folder-name>` in lowercase letters, digits and hyphens');
  }
  if (typeof name !== 'string') {
    return fatal(fieldLine(text, 'name'), '`name` is not a string', 'write the name as plain text, e.g. `name: my-skill`');
  }
  const description = data.description;
  if (description === undefined || description === null || (typeof description === 'string' && description.trim() === '')) {
    return fatal(
      fieldLine(text, 'description'),
      'frontmatter has no `description` (or it is empty)',
      'add a `description:` of 1-1024 characters saying what the skill does and when to use it',
    );
  }
  if (typeof description !== 'string') {
    return fatal(fieldLine(text, 'description'), '`description` is not a string', 'write the description as plain text');
  }

  const { state, toolProfiles } = readSkillMetadata(data, (line, message, fix) =>
    problems.push({ file, line: line(text), severity: 'error', message, fix }),
  );
  const dir = path.dirname(file);
  const resources = await listResources(dir, (rel, reason) =>
    problems.push({ file, line: 1, severity: 'warning', message: `file ${shownName(rel)} is not served (not listed, read or copied for scripts): ${reason}`, fix: 'rename it, or replace a hard link with a copy of the file' }),
  );
  const hash = await hashSkill(bytes, dir, resources, (rel, err) =>
    problems.push({ file, line: 1, severity: 'warning', message: `resource ${rel} cannot be read (${errCode(err)})`, fix: 'check its permissions' }),
  );
  const skill: Skill = {
    name,
    description,
    body,
    category: dir === root ? '' : toPosix(path.relative(root, path.dirname(dir))),
    dir,
    file,
    location: dir === root ? `${path.basename(root)}/${SKILL_FILE}` : toPosix(path.relative(root, file)),
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
 *  symbolic links are listed as themselves and never followed. Files that may not be served (see skill-files.ts: a
 *  name with a line break or a backslash, a hard link, an unreadable file) are left out and passed to `onRefused`. */
export async function listResources(dir: string, onRefused?: (rel: string, reason: string) => void): Promise<string[]> {
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
      if (!e.isDirectory() && ((rel === '' && e.name === SKILL_FILE) || IGNORED_FILES.has(e.name))) continue;
      const badName = refusedName(e.name);
      if (badName) {
        onRefused?.(r, badName);
        continue;
      }
      if (e.isDirectory()) {
        if (await isRegularFile(path.join(dir, r, SKILL_FILE))) continue; // a nested skill of its own
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
    const fatal = (line: number, message: string, fix: string) => problems.push({ file, line, severity: 'error', message: `entry ${i}: ${message}`, fix, fatal: true });
    if (!isPlainObject(entry)) return fatal(1, 'is not an object', 'write each skill as {"name": ..., "description": ...}');
    const { name, description } = entry;
    if (typeof name !== 'string' || name.trim() === '') return fatal(1, 'field "name" is missing or not a string', 'give every entry a "name"');
    const line = jsonLine(name);
    if (typeof description !== 'string' || description.trim() === '')
      return fatal(line, `field "description" of "${name}" is missing, empty or not a string`, 'give every entry a non-empty "description"');
    const category = typeof entry.category === 'string' ? entry.category : '';
    const { state, toolProfiles } = readSkillMetadata(entry, (_l, message, fix) => problems.push({ file, line, severity: 'error', message: `entry ${i}: ${message}`, fix }));
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
