// Where each loaded skill came from (its frontmatter, or its line in a JSON list), to point later problems
// (validation) at the right line.
import type { Skill } from '../types.js';
import { fieldLine, nestedFieldLine } from './frontmatter.js';

/** Where each loaded skill came from, to point later problems (validation) at the right line. */
const origins = new WeakMap<Skill, { frontmatter?: string; line?: number }>();

/** Called by the loaders once per skill: `frontmatter` for a SKILL.md (its lines), `line` for a JSON entry. */
export function recordOrigin(skill: Skill, origin: { frontmatter?: string; line?: number }): void {
  origins.set(skill, origin);
}

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
