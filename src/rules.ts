// The catalogue rules: every problem `validate` prints (and every problem a loaded catalogue carries) names one of
// these, as `SB012 description-too-long-for-host`. Ids never change meaning; a retired rule keeps its id unused.
// docs/catalogue.md lists them with what each checks and how it differs from skills-ref, where it does.
import type { Problem, Severity } from './types.js';

export type RuleSetting = Severity | 'off';

export interface Rule {
  id: string;
  slug: string;
  /** What the rule reports when nothing switches it: `off` rules only report when switched on. */
  severity: RuleSetting;
  /** The skill cannot be loaded at all: such a rule cannot be switched off or down. */
  fatal?: boolean;
  summary: string;
}

export const RULES: readonly Rule[] = [
  { id: 'SB001', slug: 'skill-file-unreadable', severity: 'error', fatal: true, summary: 'SKILL.md cannot be read' },
  { id: 'SB002', slug: 'skill-file-not-text', severity: 'error', fatal: true, summary: 'SKILL.md is not UTF-8 text' },
  { id: 'SB003', slug: 'frontmatter-invalid', severity: 'error', fatal: true, summary: 'no frontmatter, an unclosed one, a language other than YAML, invalid YAML, or not a mapping' },
  { id: 'SB004', slug: 'name-missing', severity: 'error', fatal: true, summary: '`name` is missing, empty or not a string' },
  { id: 'SB005', slug: 'description-missing', severity: 'error', fatal: true, summary: '`description` is missing, empty or not a string' },
  { id: 'SB006', slug: 'name-invalid', severity: 'error', summary: 'the name breaks the spec: over 64 characters, uppercase, a character other than a letter, digit or hyphen, a hyphen at an end or doubled' },
  { id: 'SB007', slug: 'name-folder-mismatch', severity: 'error', summary: 'the name is not the name of its folder' },
  { id: 'SB008', slug: 'description-too-long', severity: 'error', summary: 'the description is over the spec\'s 1024 characters' },
  { id: 'SB009', slug: 'duplicate-name', severity: 'error', fatal: true, summary: 'two skills have the same name (the second is ignored)' },
  { id: 'SB010', slug: 'metadata-invalid', severity: 'error', summary: '`metadata` is not a mapping, or metadata.state / metadata.tool-profiles is not understood' },
  { id: 'SB011', slug: 'field-invalid', severity: 'error', summary: '`compatibility`, `license` or `allowed-tools` has the wrong type or length' },
  { id: 'SB012', slug: 'description-too-long-for-host', severity: 'warning', summary: 'description + when_to_use is longer than Claude Code\'s skill listing shows (1536 characters)' },
  { id: 'SB013', slug: 'description-cut-in-host-index', severity: 'off', summary: 'the description is longer than Hermes\' index shows (60 characters); off unless switched on' },
  { id: 'SB014', slug: 'placeholder-left', severity: 'warning', summary: 'a TODO placeholder (as `skillbench init` writes them) is still in the description or the body' },
  { id: 'SB015', slug: 'no-when-to-use', severity: 'warning', summary: 'the description says what the skill is but not when to use it' },
  { id: 'SB016', slug: 'unknown-field', severity: 'warning', summary: 'a frontmatter field the spec does not define' },
  { id: 'SB017', slug: 'tool-profile-undeclared', severity: 'error', summary: 'metadata.tool-profiles names a profile tool-profiles.json does not declare' },
  { id: 'SB018', slug: 'empty-body', severity: 'warning', summary: 'SKILL.md has no instructions after the frontmatter' },
  { id: 'SB019', slug: 'near-duplicate-descriptions', severity: 'warning', summary: 'two descriptions are nearly the same (word cosine >= 0.8)' },
  { id: 'SB020', slug: 'resource-unreadable', severity: 'warning', summary: 'a file of the skill folder cannot be read' },
  { id: 'SB021', slug: 'link-not-followed', severity: 'warning', summary: 'a symbolic link that loops back to a folder being searched' },
  { id: 'SB022', slug: 'skill-file-lowercase', severity: 'warning', summary: 'the skill file is named skill.md, not SKILL.md' },
  { id: 'SB023', slug: 'entry-invalid', severity: 'error', fatal: true, summary: 'an entry of a JSON catalogue is not an object' },
  { id: 'SB024', slug: 'resource-not-served', severity: 'warning', summary: 'a file of the skill folder is never listed, read or copied for scripts: a name with a line break, a backslash or bytes that are not UTF-8, a hard link, an unreadable file' },
  { id: 'SB025', slug: 'listing-over-host-budget', severity: 'warning', summary: "the catalogue's listing is over the --host profile's budget: skills dropped or listed by name only (validate --host)" },
];

export type RuleSlug = (typeof RULES)[number]['slug'];

const BY_ID = new Map(RULES.map((r) => [r.id, r]));
const BY_SLUG = new Map(RULES.map((r) => [r.slug, r]));

/** The rule named by its id (`SB012`) or its slug (`description-too-long-for-host`), or undefined. */
export function findRule(key: string): Rule | undefined {
  return BY_ID.get(key.toUpperCase()) ?? BY_SLUG.get(key);
}

/** The id of a rule given by its slug (a typo is a bug, caught by the tests). */
export function ruleId(slug: string): string {
  const r = BY_SLUG.get(slug);
  if (!r) throw new Error(`unknown rule ${slug}`);
  return r.id;
}

/** `SB012 description-too-long-for-host`, or '' for a problem without a rule. */
export function ruleLabel(id: string | undefined): string {
  const r = id ? BY_ID.get(id) : undefined;
  return r ? `${r.id} ${r.slug}` : '';
}

/** Rules switched in the config file: id or slug -> setting. */
export type RuleSettings = Record<string, RuleSetting>;

/**
 * The problems as the settings ask: a rule switched off is dropped, one switched to warning or error is reported
 * so; `strict` makes every remaining warning an error. Rules that are off by default (SB013) only report when
 * switched on: the checks report them and this drops them unless asked for. Fatal problems are kept as they are.
 */
export function applyRuleSettings(problems: Problem[], settings: RuleSettings = {}, strict = false): Problem[] {
  const wanted = new Map<string, RuleSetting>();
  for (const [key, value] of Object.entries(settings)) {
    const r = findRule(key);
    if (r) wanted.set(r.id, value);
  }
  const out: Problem[] = [];
  for (const p of problems) {
    const r = p.rule ? BY_ID.get(p.rule) : undefined;
    let severity: RuleSetting = p.severity;
    if (r && !p.fatal) {
      const set = wanted.get(r.id);
      if (set !== undefined) severity = set;
      else if (r.severity === 'off') severity = 'off';
    }
    if (severity === 'off') continue;
    out.push({ ...p, severity: strict ? 'error' : severity });
  }
  return out;
}

/** Why a rule setting cannot be applied (unknown rule, a fatal rule switched down), or null. */
export function checkRuleSetting(key: string, value: RuleSetting): string | null {
  const r = findRule(key);
  if (!r) return `"${key}" is not a rule id or name (rules: SB001-SB0${RULES.length.toString().padStart(2, '0')}, listed in docs/catalogue.md)`;
  if (r.fatal && value !== 'error') return `${r.id} ${r.slug} cannot be switched ${value}: a skill with this problem cannot be loaded at all`;
  return null;
}
