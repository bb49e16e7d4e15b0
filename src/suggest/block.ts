// The block the suggester adds to the agent's system prompt for one turn, after the stable catalogue (so the
// provider's prefix cache still covers the catalogue). Its wording is a measured input: the same constants are
// used by the suggest arm and by the oracle arm, and they are part of every request, hence of every cache key.

/** Shown when the suggester (or the oracle) names a skill. `{skill}` is replaced by the skill's name. */
export const SUGGEST_TEMPLATE =
  'A separate check of the catalogue, made before this turn, found that the skill "{skill}" is the most likely ' +
  'to help with this request. Load it if it fits what the user asked; ignore this note if it does not.';

/** Shown when the gate closes or no candidate fits. */
export const NONE_TEXT =
  'A separate check of the catalogue, made before this turn, found no skill that appears relevant to this ' +
  'request. Answer without loading a skill unless one clearly fits.';

/** The `<skill_relevance>` element for a turn: naming `skill`, or saying that none fits when it is null. */
export function relevanceBlock(skill: string | null): string {
  const text = skill === null ? NONE_TEXT : SUGGEST_TEMPLATE.replace('{skill}', skill);
  const attr = skill === null ? '' : ` skill="${escapeAttr(skill)}"`;
  return `<skill_relevance${attr}>\n${text}\n</skill_relevance>`;
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
