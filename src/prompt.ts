// What the model sees of a catalogue: the level-1 listing (in one of skillbench's listing presets), a skill's content on
// activation (level 2), and everything at once (load-all mode). Output is sorted and free of anything variable
// (time, absolute paths, map order), so the same input gives byte-identical text and provider prompt caches hit.
// The listing itself is rendered by the host listing engine (src/hosts/listing.ts): a preset is a listing form.
import { escapeXml, renderListing, visible } from './hosts/listing.js';
import { presetListing } from './hosts/profile.js';
import type { CatalogueFormat, Skill } from './types.js';

export { escapeXml, visible };

export const CATALOGUE_FORMATS: readonly CatalogueFormat[] = ['lines', 'xml', 'hermes', 'markdown'];

/** Hermes' index cut: descriptions over 60 characters show their first 57 and "...". */
export const HERMES_CUT = 60;
/** Category header used by the hermes format for skills at the catalogue root. */
export const HERMES_DEFAULT_CATEGORY = 'general';

export function renderCatalogue(skills: Skill[], format: CatalogueFormat): string {
  if (!CATALOGUE_FORMATS.includes(format)) throw new Error(`unknown catalogue format ${String(format)}`);
  const listing = renderListing(skills, presetListing(format)).text;
  const always = visible(skills).filter((s) => s.state === 'always');
  return always.length === 0 ? listing : `${listing}\n\n${renderAlwaysBlock(always)}`;
}

/** The description as Hermes' index shows it: whitespace collapsed, 57 characters + "..." past 60. */
export function hermesDescription(description: string): string {
  const flat = description.split(/\s+/).filter(Boolean).join(' ');
  const chars = [...flat]; // cut on code points, never inside a surrogate pair
  return chars.length > HERMES_CUT ? `${chars.slice(0, HERMES_CUT - 3).join('')}...` : flat;
}

/** The block of always-loaded skills' bodies that follows the listing. */
export function renderAlwaysBlock(skills: Skill[]): string {
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
