// Agent Skills specification checks and lint warnings for a loaded catalogue.
// Errors break the spec (a host may refuse the skill); warnings are about how well hosts and models will use it.
import path from 'node:path';
import { compareStrings, skillBodyLine, skillFieldLine, sortProblems } from './catalogue.js';
import { nearDuplicates } from './near-duplicates.js';
import { applyRuleSettings, ruleId, type RuleSettings, type RuleSlug } from './rules.js';
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
/** Hermes' skill index shows 57 characters + "..." past 60 (rule SB013, off unless switched on). */
export const HERMES_INDEX_CUT = 60;
/** Claude Code truncates description + when_to_use in its skill listing past this many characters. */
export const CLAUDE_CODE_LISTING_CUT = 1536;

/** A word in any script, as skills-ref reads it: Unicode letters and digits. */
const NAME_CHARS = /^[\p{L}\p{N}-]+$/u;

/** A whole word of the text (JavaScript's \b only knows ASCII letters). */
const word = (alternatives: string) => new RegExp(`(?<![\\p{L}\\p{N}])(${alternatives})(?![\\p{L}\\p{N}])`, 'iu');

/**
 * Phrases that tell the model *when* to load a skill, in the languages skill authors write in. A description
 * without any of them usually says only what the skill is, which makes triggering guesswork.
 */
export const WHEN_TO_USE_CUES: readonly RegExp[] = [
  // English
  /\buse (it |this( skill)? )?(when|whenever|for|if|to)\b/i,
  /\bwhen(ever)?\b/i,
  /\bif (the |a )?user\b/i,
  /\btrigger(s|ed)?\b/i,
  /\bfor \w+ing\b/i,
  // French
  /\butilise[rz]? (ce skill |cette compétence )?(quand|lorsque|pour|si)\b/i,
  /(^|[^\p{L}])(quand|lorsque?|lorsqu['’])/iu,
  /\bsi l['’]utilisateur\b/i,
  word('déclench\\p{L}*'),
  // German, Dutch, Scandinavian
  word('wenn|sobald|falls|verwende\\p{L}*|auslös\\p{L}*|wanneer|zodra|als de gebruiker|när|når|hvornår'),
  // Spanish, Portuguese, Italian, Romanian
  word('cuando|quando|si el usuario|se o usuário|se o utilizador|se l[\'’]utente|úsal[oa]|usar para|usa(re)? per|când'),
  // Slavic languages, Turkish, Indonesian, Vietnamese
  word('когда|если|используй\\p{L}*|коли|gdy|kiedy|użyj\\p{L}*|když|pokud|kdy|zaman|olduğunda|ketika|saat pengguna|jika pengguna|khi'),
  // Japanese, Chinese, Korean (no spaces between words: matched as they are)
  /(場合|ときに|ときは|時に|際に|際は|トリガー)/u,
  /(时使用|時使用|用于|用於|当用户|當用戶|如果用户|如果用戶|时调用|的时候|的時候|触发|觸發)/u,
  /(때|경우|트리거)/u,
];

/** Trigger phrases quoted in the description ("résume ce PDF", « fusionne », 「要約して」): two or more count. */
const QUOTED_PHRASE = /["“”«»„「『]\s*[^"“”«»„「」『』\n]{2,80}?\s*["“”«»」』]/gu;

/** Scripts the cues above cover; a description mostly in another script is not judged (nothing is known of it). */
const COVERED_SCRIPT = /[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function hasWhenToUseCue(text: string): boolean {
  return WHEN_TO_USE_CUES.some((re) => re.test(text)) || (text.match(QUOTED_PHRASE)?.length ?? 0) >= 2;
}

/** Whether the no-when-to-use rule can judge this text: most of its letters are in a script the cues cover. */
export function whenToUseJudgeable(text: string): boolean {
  const letters = [...text].filter((c) => /\p{L}/u.test(c));
  if (letters.length === 0) return true;
  return letters.filter((c) => COVERED_SCRIPT.test(c)).length / letters.length >= 0.5;
}

export interface ValidateOptions {
  /** Rules switched in the config file (`validate.rules`): id or slug -> off | warning | error. */
  rules?: RuleSettings;
  /** Every warning is an error (`--strict`). */
  strict?: boolean;
  /** More problems to report under the same settings (a host's listing budget, from `--host`). */
  extra?: Problem[];
}

export function validateCatalogue(catalogue: Catalogue, opts: ValidateOptions = {}): Problem[] {
  // concat, not push(...x): spreading thousands of problems as arguments overflows the call stack.
  const perSkill = catalogue.skills.flatMap((skill) => checkSkill(skill, catalogue));
  const problems = catalogue.problems.concat(perSkill, nearDuplicates(catalogue.skills), opts.extra ?? []);
  return sortProblems(applyRuleSettings(problems, opts.rules, opts.strict));
}

// ---------------------------------------------------------------- one skill

function checkSkill(skill: Skill, catalogue: Catalogue): Problem[] {
  const out: Problem[] = [];
  const at = (key: string, nested?: string) => skillFieldLine(skill, key, nested);
  const report = (severity: 'error' | 'warning') => (rule: RuleSlug, line: number, message: string, fix: string) =>
    out.push({ file: skill.file, line, severity, message, fix, rule: ruleId(rule) });
  const error = report('error');
  const warn = report('warning');
  const fromJson = catalogue.kind === 'json';
  const label = fromJson ? `"${skill.name}": ` : '';

  // name
  const nameIssue = checkName(skill.name);
  if (nameIssue) {
    const fix = 'use 1-64 lowercase letters, digits and single hyphens, e.g. `expense-report-checker`';
    // A JSON roster of tools is not bound by the skill naming rule, but a skills host would reject the name.
    if (fromJson) warn('name-invalid', at('name'), `${label}name ${nameIssue} (the Agent Skills spec would reject it)`, fix);
    else error('name-invalid', at('name'), `name "${skill.name}" ${nameIssue}`, fix);
  }
  // The folder as the host sees it: the link's name when the skill was reached through one (.claude/skills/<name>).
  const folder = skill.dir ? path.basename(path.dirname(skill.file)) : undefined;
  if (folder !== undefined && folder.normalize('NFKC') !== skill.name.normalize('NFKC')) {
    error('name-folder-mismatch', at('name'), `name "${skill.name}" differs from its folder "${folder}"`, `rename the folder to "${skill.name}" or set \`name: ${folder}\``);
  }

  // description
  const desc = skill.description;
  if (chars(desc) > DESCRIPTION_MAX) {
    error('description-too-long', at('description'), `${label}description is ${chars(desc)} characters, over the spec's ${DESCRIPTION_MAX}`, 'shorten it: say what the skill does and when to use it; move details into the body');
  }
  // Reported only when switched on (SB013 is off by default): no host profile of this version cuts at 60.
  if (chars(desc) > HERMES_INDEX_CUT) {
    warn('description-cut-in-host-index', at('description'), `${label}description is ${chars(desc)} characters; Hermes' index shows only "${[...desc].slice(0, HERMES_INDEX_CUT - 3).join('')}..."`, `put the key trigger words in the first ${HERMES_INDEX_CUT} characters`);
  }
  const whenToUse = typeof skill.frontmatter.when_to_use === 'string' ? skill.frontmatter.when_to_use.trim() : '';
  const listing = chars(desc) + chars(whenToUse);
  if (listing > CLAUDE_CODE_LISTING_CUT) {
    warn('description-too-long-for-host', at('description'), `${label}description${whenToUse ? ' + when_to_use' : ''} is ${listing} characters; Claude Code's skill listing cuts it at ${CLAUDE_CODE_LISTING_CUT}`, 'shorten it so the whole text reaches the model');
  }
  if (/\bTODO\b/.test(desc)) {
    warn('placeholder-left', at('description'), `${label}description still holds TODO placeholders`, 'replace them with what the skill does, when to use it and what it is not for');
  }
  const cueText = `${desc} ${whenToUse}`;
  if (!hasWhenToUseCue(cueText) && whenToUseJudgeable(cueText)) {
    warn('no-when-to-use', at('description'), `${label}description says what the skill is but not when to use it`, 'add a line such as "Use when the user asks to ..." or "Utiliser quand ...", or quote the phrases users write');
  }

  if (fromJson) return out; // rosters carry their own fields; the rest applies to SKILL.md files

  // other spec fields
  const fm = skill.frontmatter;
  if (fm.compatibility !== undefined) {
    if (typeof fm.compatibility !== 'string') error('field-invalid', at('compatibility'), '`compatibility` is not a string', 'write the environment requirements as one line of text');
    else if (chars(fm.compatibility.trim()) > COMPATIBILITY_MAX)
      error('field-invalid', at('compatibility'), `compatibility is ${chars(fm.compatibility.trim())} characters, over the spec's ${COMPATIBILITY_MAX}`, 'shorten it');
  }
  if (fm.license !== undefined && typeof fm.license !== 'string') error('field-invalid', at('license'), '`license` is not a string', 'write a licence name or the path of a bundled licence file');
  if (fm['allowed-tools'] !== undefined && typeof fm['allowed-tools'] !== 'string' && !isStringList(fm['allowed-tools'])) {
    error('field-invalid', at('allowed-tools'), '`allowed-tools` is not a list of tool names', 'write a space-separated string, e.g. `allowed-tools: Bash(git:*) Read`');
  }
  for (const key of Object.keys(fm).sort(compareStrings)) {
    // Own keys only: `key in HOST_FIELDS` would take __proto__, constructor or toString for known fields.
    if ((SPEC_FIELDS as readonly string[]).includes(key) || Object.hasOwn(HOST_FIELDS, key)) continue;
    warn('unknown-field', at(key), `unknown frontmatter field \`${key}\` (not in the Agent Skills spec; hosts ignore it)`, 'move it under `metadata:` or remove it');
  }

  // tool profiles
  for (const profile of skill.toolProfiles) {
    if (!Object.hasOwn(catalogue.toolProfiles, profile)) {
      const declared = Object.keys(catalogue.toolProfiles);
      error(
        'tool-profile-undeclared',
        at('metadata', 'tool-profiles'),
        `tool profile "${profile}" is not declared in tool-profiles.json`,
        declared.length ? `use one of ${declared.sort(compareStrings).join(', ')} or declare it` : 'declare it in <catalogue>/tool-profiles.json as {"profiles": {"' + profile + '": [...]}}',
      );
    }
  }

  if (skill.body.trim() === '') warn('empty-body', 1, 'SKILL.md has no body after the frontmatter', 'write the instructions the agent follows once the skill is loaded');
  const todo = placeholderLine(skill.body);
  if (todo !== null) {
    warn('placeholder-left', bodyLine(skill, todo), `the instructions still hold TODO placeholders (line "${todoExcerpt(skill.body, todo)}")`, 'write the steps the agent follows in place of each TODO');
  }
  return out;
}

/**
 * 0-based line of the body where a placeholder of `skillbench init` is left: a line (or list item) that starts with
 * `TODO:`, outside code blocks. A `TODO:` quoted in an instruction ("never write `TODO: add source`") is not one.
 */
function placeholderLine(body: string): number | null {
  let fenced = false;
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*(```|~~~)/.test(lines[i]!)) fenced = !fenced;
    else if (!fenced && /^\s*(?:[-*+]\s+|\d+[.)]\s+)?TODO:/.test(lines[i]!)) return i;
  }
  return null;
}

function todoExcerpt(body: string, line: number): string {
  const text = body.split('\n')[line]!.trim();
  return [...text].length > 60 ? `${[...text].slice(0, 57).join('')}...` : text;
}

/** 1-based line in SKILL.md of a body line (the frontmatter's lines come first). */
function bodyLine(skill: Skill, line: number): number {
  return skillBodyLine(skill) + line;
}

/**
 * Why a name breaks the spec, or null when it is fine. As skills-ref checks it: NFKC-normalised, at most 64
 * characters, lowercase letters of any script (`навык`, `技能`), digits and single inner hyphens.
 */
export function checkName(raw: string): string | null {
  const name = raw.normalize('NFKC');
  if (name === '') return 'is empty';
  if (chars(name) > NAME_MAX) return `is ${chars(name)} characters, over ${NAME_MAX}`;
  if (name !== name.toLowerCase()) return 'has uppercase letters';
  if (/^-|-$/.test(name)) return 'starts or ends with a hyphen';
  if (name.includes('--')) return 'has consecutive hyphens';
  if (!NAME_CHARS.test(name)) return 'has characters other than lowercase letters, digits and hyphens';
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
