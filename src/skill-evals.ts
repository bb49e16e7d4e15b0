// Per-skill eval sets: a folder of skills where each skill keeps its own skill-creator trigger eval file in
// `<skill>/evals/` (EVAL_FILE_NAMES). One eval-trigger run scores every set against its own skill, on the whole
// catalogue, and pools them. The skill a file belongs to is the catalogue skill whose folder holds `evals/` (else
// the skill named like that folder); a `skill_name` in the file must agree.
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from './errors.js';
import { parseRequestSet, requestFormat } from './requests.js';
import { readJsonFile } from './jsonfile.js';
import type { EvalRequest, Skill } from './types.js';

/** The names skill-creator users give a skill's trigger eval file (seen in public skill repositories). */
export const EVAL_FILE_NAMES = ['trigger-evals.json', 'trigger_evals.json', 'trigger-eval.json'] as const;

const SHAPE = `<skill>/evals/${EVAL_FILE_NAMES.join(', ')}`;
/** Folders never searched for eval files. */
const SKIP = new Set(['node_modules', '.git', '.skillbench']);

export interface SkillEvalSet {
  skill: string;
  /** Path of the eval file, as found under the folder searched. */
  file: string;
  positives: number;
  negatives: number;
}

export interface SkillEvalSets {
  sets: SkillEvalSet[];
  /** Every set's requests, ids prefixed with the skill (`<skill>/<id>`) so they stay unique when pooled. */
  requests: EvalRequest[];
  /** Selectable skills of the catalogue with no eval set (they still compete for every request). */
  without: string[];
}

/**
 * The files found, plus those in each skill's own folder that the search cannot see: a skill reached through a
 * symbolic link (`.claude/skills/pdf` -> `.agents/skills/pdf`) keeps its evals/ in its real folder (`skill.dir`).
 */
async function withSkillFolders(found: string[], skills: Skill[]): Promise<string[]> {
  const seen = new Set(await Promise.all(found.map(realOf)));
  const out = [...found];
  for (const s of skills) {
    if (!s.dir) continue;
    const names = new Set(await readdir(path.join(s.dir, 'evals')).catch(() => [] as string[]));
    for (const n of EVAL_FILE_NAMES) {
      const file = path.join(s.dir, 'evals', n);
      if (!names.has(n) || seen.has(await realOf(file))) continue;
      seen.add(await realOf(file));
      out.push(file);
    }
  }
  return out.sort();
}

/** A path with its symbolic links resolved (as given when it cannot be). */
async function realOf(p: string): Promise<string> {
  return realpath(p).catch(() => path.resolve(p));
}

/** Every eval file under `dir` (any depth, symlinks not followed), as `<skill folder>/evals/<name>`. */
export async function findSkillEvalFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string, depth: number): Promise<void> => {
    if (depth > 8) return;
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory() || SKIP.has(e.name)) continue;
      const sub = path.join(folder, e.name);
      if (e.name === 'evals') {
        const names = new Set((await readdir(sub).catch(() => [] as string[])));
        for (const n of EVAL_FILE_NAMES) if (names.has(n)) found.push(path.join(sub, n));
      } else {
        await walk(sub, depth + 1);
      }
    }
  };
  await walk(dir, 0);
  return found.sort();
}

/**
 * Loads every per-skill eval set under `dir` against the catalogue's skills. `only` (--skill) keeps that skill's set.
 * UserErrors: no set found, a folder that is no skill of the catalogue, two eval files for one skill, a skill_name that
 * disagrees with its folder, and every error of the request parser (naming the file).
 */
export async function loadSkillEvalSets(dir: string, skills: Skill[], opts: { only?: string } = {}): Promise<SkillEvalSets> {
  const files = await withSkillFolders(await findSkillEvalFiles(dir), skills);
  if (!files.length) {
    throw new UserError(`${dir}: no per-skill eval set found (${SHAPE})`, 'give --requests a request file, or put each skill\'s trigger eval set in its evals/ folder');
  }
  // Skill folders are real paths (links resolved): compare real paths.
  const byDir = new Map(await Promise.all(skills.filter((s) => s.dir).map(async (s) => [await realOf(s.dir!), s.name] as const)));
  const names = new Set(skills.map((s) => s.name));
  const owner = new Map<string, string>();
  const sets: SkillEvalSet[] = [];
  const requests: EvalRequest[] = [];
  for (const file of files) {
    const folder = path.dirname(path.dirname(file));
    const skill = byDir.get(await realOf(folder)) ?? (names.has(path.basename(folder)) ? path.basename(folder) : undefined);
    if (skill === undefined) {
      throw new UserError(`${file}: the folder ${folder} is not a selectable skill of the catalogue`, 'point --skills at the catalogue these eval sets belong to, or move the file into its skill\'s evals/ folder');
    }
    const other = owner.get(skill);
    if (other !== undefined) throw new UserError(`${file}: skill "${skill}" has a second eval set (${other})`, 'keep one trigger eval file per skill');
    owner.set(skill, file);
    if (opts.only !== undefined && skill !== opts.only) continue;
    const data = await readJsonFile(file, { what: 'the eval set', fix: 'write a JSON list [{"query": "...", "should_trigger": true}]' });
    if (requestFormat(data) === 'own') {
      throw new UserError(`${file}: a per-skill eval set must be in skill-creator's format ([{query, should_trigger}]), this one is in skillbench's own format`,
        'write it as [{"query": "...", "should_trigger": true}], or pass it with --requests FILE');
    }
    const set = parseRequestSet(file, data, { skill, skillOption: 'the skill folder it is in' });
    const ids = new Set<string>();
    for (const r of set.requests) {
      if (ids.has(r.id)) throw new UserError(`${file}: id "${r.id}" is used twice`, 'give every request a unique id');
      ids.add(r.id);
      requests.push({ ...r, id: `${skill}/${r.id}` });
    }
    const positives = set.requests.filter((r) => r.gold !== null).length;
    sets.push({ skill, file, positives, negatives: set.requests.length - positives });
  }
  if (opts.only !== undefined && !sets.length) {
    throw new UserError(`--skill ${opts.only}: that skill has no eval set under ${dir} (${SHAPE})`, `drop --skill, or add ${opts.only}/evals/trigger-evals.json`);
  }
  const covered = new Set(sets.map((s) => s.skill));
  return { sets, requests, without: skills.map((s) => s.name).filter((n) => !covered.has(n)) };
}
