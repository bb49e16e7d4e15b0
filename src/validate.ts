// Agent Skills specification checks and lint warnings for a loaded catalogue.
// Errors break the spec (a host may refuse the skill); warnings are about how well hosts and models will use it.
import path from 'node:path';
import { compareStrings, skillFieldLine, sortProblems } from './catalogue.js';
import { nearDuplicates } from './near-duplicates.js';
import type { Catalogue, Problem, Skill } from './types.js';

export { formatProblem } from './catalogue.js';
export { cosine, nearDuplicates, NEAR_DUPLICATE_THRESHOLD, termVector } from './near-duplicates.js';

/** Fields of the Agent Skills specification. */
export const SPEC_FIELDS = ['name', 'description', 'license', 'allowed-tools', 'metadata', 'compatibility'] as const;
/** Fields a major host reads although the specification does not define them: not flagged as unknown. */
export const HOST_FIELDS: Record<string, string> = { when_to_use: 'Claude Code' };

export const NAME_MAX = 64;
export const DESCRIPTION_MAX = 1024;
export const COMPATIBILITY_MAX = 500;
/** Hermes' skill index shows 57 characters + "..." past 60. */
export const HERMES_INDEX_CUT = 60;
/** Claude Code truncates description + when_to_use in its skill listing past this many characters. */
export const CLAUDE_CODE_LISTING_CUT = 1536;

const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * Phrases that tell the model *when* to load a skill (English and French). A description without any of them
 * usually says only what the skill is, which makes triggering guesswork.
 */
export const WHEN_TO_USE_CUES: readonly RegExp[] = [
  /\buse (it |this( skill)? )?(when|whenever|for|if|to)\b/i,
  /\bwhen(ever)?\b/i,
  /\bif (the |a )?user\b/i,
  /\btrigger(s|ed)?\b/i,
  /\bfor \w+ing\b/i,
  /\butilise[rz]? (ce skill |cette compétence )?(quand|lorsque|pour|si)\b/i,
  /(^|[^\p{L}])(quand|lorsque?|lorsqu['’])/iu,
  /\bsi l['’]utilisateur\b/i,
];

export function hasWhenToUseCue(text: string): boolean {
  return WHEN_TO_USE_CUES.some((re) => re.test(text));
}

export function validateCatalogue(catalogue: Catalogue): Problem[] {
  // concat, not push(...x): spreading thousands of problems as arguments overflows the call stack.
  const perSkill = catalogue.skills.flatMap((skill) => checkSkill(skill, catalogue));
  return sortProblems(catalogue.problems.concat(perSkill, nearDuplicates(catalogue.skills)));
}

// ---------------------------------------------------------------- one skill

function checkSkill(skill: Skill, catalogue: Catalogue): Problem[] {
  const out: Problem[] = [];
  const at = (key: string, nested?: string) => skillFieldLine(skill, key, nested);
  const error = (line: number, message: string, fix: string) => out.push({ file: skill.file, line, severity: 'error', message, fix });
  const warn = (line: number, message: string, fix: string) => out.push({ file: skill.file, line, severity: 'warning', message, fix });
  const fromJson = catalogue.kind === 'json';
  const label = fromJson ? `"${skill.name}": ` : '';

  // name
  const nameIssue = checkName(skill.name);
  if (nameIssue) {
    const fix = 'use 1-64 lowercase letters, digits and single hyphens, e.g. `expense-report-checker`';
    // A JSON roster of tools is not bound by the skill naming rule, but a skills host would reject the name.
    if (fromJson) warn(at('name'), `${label}name ${nameIssue} (the Agent Skills spec would reject it)`, fix);
    else error(at('name'), `name "${skill.name}" ${nameIssue}`, fix);
  }
  if (skill.dir && path.basename(skill.dir) !== skill.name) {
    error(at('name'), `name "${skill.name}" differs from its folder "${path.basename(skill.dir)}"`, `rename the folder to "${skill.name}" or set \`name: ${path.basename(skill.dir)}\``);
  }

  // description
  const desc = skill.description;
  if (chars(desc) > DESCRIPTION_MAX) {
    error(at('description'), `${label}description is ${chars(desc)} characters, over the spec's ${DESCRIPTION_MAX}`, 'shorten it: say what the skill does and when to use it; move details into the body');
  }
  if (desc.length > HERMES_INDEX_CUT) {
    warn(at('description'), `${label}description is ${desc.length} characters; Hermes' index shows only "${desc.slice(0, HERMES_INDEX_CUT - 3)}..."`, `put the key trigger words in the first ${HERMES_INDEX_CUT} characters`);
  }
  const whenToUse = typeof skill.frontmatter.when_to_use === 'string' ? skill.frontmatter.when_to_use : '';
  const listing = desc.length + whenToUse.length;
  if (listing > CLAUDE_CODE_LISTING_CUT) {
    warn(at('description'), `${label}description${whenToUse ? ' + when_to_use' : ''} is ${listing} characters; Claude Code's skill listing cuts it at ${CLAUDE_CODE_LISTING_CUT}`, 'shorten it so the whole text reaches the model');
  }
  if (/\bTODO\b/.test(desc)) {
    warn(at('description'), `${label}description still holds TODO placeholders`, 'replace them with what the skill does, when to use it and what it is not for');
  }
  if (!hasWhenToUseCue(`${desc} ${whenToUse}`)) {
    warn(at('description'), `${label}description says what the skill is but not when to use it`, 'add a line such as "Use when the user asks to ..." or "Utiliser quand ..."');
  }

  if (fromJson) return out; // rosters carry their own fields; the rest applies to SKILL.md files

  // other spec fields
  const fm = skill.frontmatter;
  if (fm.compatibility !== undefined) {
    if (typeof fm.compatibility !== 'string') error(at('compatibility'), '`compatibility` is not a string', 'write the environment requirements as one line of text');
    else if (chars(fm.compatibility) > COMPATIBILITY_MAX)
      error(at('compatibility'), `compatibility is ${chars(fm.compatibility)} characters, over the spec's ${COMPATIBILITY_MAX}`, 'shorten it');
  }
  if (fm.license !== undefined && typeof fm.license !== 'string') error(at('license'), '`license` is not a string', 'write a licence name or the path of a bundled licence file');
  if (fm['allowed-tools'] !== undefined && typeof fm['allowed-tools'] !== 'string' && !isStringList(fm['allowed-tools'])) {
    error(at('allowed-tools'), '`allowed-tools` is not a list of tool names', 'write a space-separated string, e.g. `allowed-tools: Bash(git:*) Read`');
  }
  for (const key of Object.keys(fm).sort(compareStrings)) {
    // Own keys only: `key in HOST_FIELDS` would take __proto__, constructor or toString for known fields.
    if ((SPEC_FIELDS as readonly string[]).includes(key) || Object.hasOwn(HOST_FIELDS, key)) continue;
    warn(at(key), `unknown frontmatter field \`${key}\` (not in the Agent Skills spec; hosts ignore it)`, 'move it under `metadata:` or remove it');
  }

  // tool profiles
  for (const profile of skill.toolProfiles) {
    if (!Object.hasOwn(catalogue.toolProfiles, profile)) {
      const declared = Object.keys(catalogue.toolProfiles);
      error(
        at('metadata', 'tool-profiles'),
        `tool profile "${profile}" is not declared in tool-profiles.json`,
        declared.length ? `use one of ${declared.sort(compareStrings).join(', ')} or declare it` : 'declare it in <catalogue>/tool-profiles.json as {"profiles": {"' + profile + '": [...]}}',
      );
    }
  }

  if (skill.body.trim() === '') warn(1, 'SKILL.md has no body after the frontmatter', 'write the instructions the agent follows once the skill is loaded');
  return out;
}

/** Why a name breaks the spec, or null when it is fine. */
export function checkName(name: string): string | null {
  if (name.length > NAME_MAX) return `is ${name.length} characters, over ${NAME_MAX}`;
  if (!NAME_PATTERN.test(name)) {
    if (/[A-Z]/.test(name)) return 'has uppercase letters';
    if (/^-|-$/.test(name)) return 'starts or ends with a hyphen';
    if (name.includes('--')) return 'has consecutive hyphens';
    return 'has characters other than lowercase letters, digits and hyphens';
  }
  return null;
}

/** Characters as the spec (and its Python reference validator) counts them: code points, not UTF-16 units. */
function chars(s: string): number {
  return [...s].length;
}

function isStringList(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** Counts for the summary line. */
export function summarise(catalogue: Catalogue, problems: Problem[]): { skills: number; unusable: number; errors: number; warnings: number } {
  const unusable = catalogue.problems.filter((p) => p.fatal).length;
  return {
    skills: catalogue.skills.length + unusable,
    unusable,
    errors: problems.filter((p) => p.severity === 'error').length,
    warnings: problems.filter((p) => p.severity === 'warning').length,
  };
}
