// What the model sees of a catalogue: the level-1 listing (in one of three formats), a skill's content on
// activation (level 2), and everything at once (load-all mode). Output is sorted and free of anything variable
// (time, absolute paths, map order), so the same input gives byte-identical text and provider prompt caches hit.
import { compareStrings } from './catalogue.js';
import type { CatalogueFormat, Skill } from './types.js';

export const CATALOGUE_FORMATS: readonly CatalogueFormat[] = ['xml', 'hermes', 'markdown'];

/** Hermes' index cut: descriptions over 60 characters show their first 57 and "...". */
export const HERMES_CUT = 60;
/** Category header used by the hermes format for skills at the catalogue root. */
export const HERMES_DEFAULT_CATEGORY = 'general';

export function renderCatalogue(skills: Skill[], format: CatalogueFormat): string {
  const listed = visible(skills);
  let listing: string;
  switch (format) {
    case 'xml':
      listing = renderXml(listed);
      break;
    case 'hermes':
      listing = renderHermes(listed);
      break;
    case 'markdown':
      listing = renderMarkdown(listed);
      break;
    default:
      throw new Error(`unknown catalogue format ${String(format)}`);
  }
  const always = listed.filter((s) => s.state === 'always');
  return always.length === 0 ? listing : `${listing}\n\n${renderAlwaysBlock(always)}`;
}

/** Skills a model may see: every state but `never`, sorted by name. */
export function visible(skills: Skill[]): Skill[] {
  return skills.filter((s) => s.state !== 'never').sort((a, b) => compareStrings(a.name, b.name));
}

// The Agent Skills reference library (skills-ref `to-prompt`): one element per line, values XML-escaped.
function renderXml(skills: Skill[]): string {
  const lines = ['<available_skills>'];
  for (const s of skills) {
    lines.push('<skill>', '<name>', escapeXml(s.name), '</name>', '<description>', escapeXml(s.description), '</description>');
    lines.push('<location>', escapeXml(s.location), '</location>', '</skill>');
  }
  lines.push('</available_skills>');
  return lines.join('\n');
}

// Hermes' compact index: `  category:` headers (sorted), `    - name: description` lines sorted by name.
function renderHermes(skills: Skill[]): string {
  const byCategory = new Map<string, Skill[]>();
  for (const s of skills) {
    const c = s.category || HERMES_DEFAULT_CATEGORY;
    byCategory.set(c, [...(byCategory.get(c) ?? []), s]);
  }
  const lines = ['<available_skills>'];
  for (const category of [...byCategory.keys()].sort(compareStrings)) {
    lines.push(`  ${category}:`);
    for (const s of byCategory.get(category)!) lines.push(`    - ${s.name}: ${hermesDescription(s.description)}`);
  }
  lines.push('</available_skills>');
  return lines.join('\n');
}

/** The description as Hermes' index shows it: whitespace collapsed, 57 characters + "..." past 60. */
export function hermesDescription(description: string): string {
  const flat = description.split(/\s+/).filter(Boolean).join(' ');
  const chars = [...flat]; // cut on code points, never inside a surrogate pair
  return chars.length > HERMES_CUT ? `${chars.slice(0, HERMES_CUT - 3).join('')}...` : flat;
}

function renderMarkdown(skills: Skill[]): string {
  const lines = ['## Available skills', ''];
  const categories = [...new Set(skills.map((s) => s.category))].sort(compareStrings);
  const grouped = categories.length > 1 || (categories.length === 1 && categories[0] !== '');
  for (const category of categories) {
    if (grouped) lines.push(`### ${category || HERMES_DEFAULT_CATEGORY}`, '');
    for (const s of skills.filter((x) => x.category === category)) {
      lines.push(`- **${s.name}** (\`${s.location}\`): ${s.description.split(/\s+/).filter(Boolean).join(' ')}`);
    }
    if (grouped) lines.push('');
  }
  return lines.join('\n').trimEnd();
}

function renderAlwaysBlock(skills: Skill[]): string {
  return ['<always_loaded_skills>', ...skills.map(renderSkillContent), '</always_loaded_skills>'].join('\n');
}

/** What `activate_skill` returns: the body in a versioned `<skill_content>` and the resource paths (not contents). */
export function renderSkillContent(skill: Skill): string {
  const lines = [`<skill_content name="${escapeXml(skill.name)}" version="${escapeXml(skill.hash)}">`, skill.body.trim()];
  if (skill.resources.length > 0) {
    lines.push('<skill_resources>', ...skill.resources.map(escapeXml), '</skill_resources>');
  }
  lines.push('</skill_content>');
  return lines.join('\n');
}

/** Load-all mode: every visible skill's description, body and resource contents in one block. */
export function renderLoadAll(skills: Skill[], readResource: (skill: Skill, path: string) => string): string {
  const lines = ['<all_skills>'];
  for (const s of visible(skills)) {
    lines.push(`<skill name="${escapeXml(s.name)}" version="${escapeXml(s.hash)}">`);
    lines.push('<description>', escapeXml(s.description), '</description>', '<instructions>', s.body.trim(), '</instructions>');
    for (const r of s.resources) lines.push(`<file path="${escapeXml(r)}">`, readResource(s, r), '</file>');
    lines.push('</skill>');
  }
  lines.push('</all_skills>');
  return lines.join('\n');
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}
