// A JSON catalogue: a list [{name, description, ...}] (or {"skills": [...]}), each entry checked on its own; problems
// point at the line of the entry's "name".
import { createHash } from 'node:crypto';
import { UserError } from '../errors.js';
import { canonicalJson } from '../cache.js';
import { readJsonText } from '../jsonfile.js';
import { ruleId, type RuleSlug } from '../rules.js';
import type { Catalogue, Problem, Skill } from '../types.js';
import { CATALOGUE_FIX, isPlainObject } from './input.js';
import { readSkillMetadata } from './metadata.js';
import { sortByName } from './order.js';
import { recordOrigin } from './origins.js';
import { dropDuplicates, sortProblems } from './problems.js';

export async function loadJson(file: string, shown: string): Promise<Catalogue> {
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
    recordOrigin(skill, { line });
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
