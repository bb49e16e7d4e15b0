// The explicit selector: the user names the skill. `/name` at the start of the request or `@name` anywhere loads it
// without asking a model. A mention of a name the catalogue (or the request's candidates) does not have is a miss:
// nothing is loaded (a host answers "no such skill"), so it is a wrong load on a covered request and no load at all
// on an uncovered one; the name is kept in detail.unresolved, never a crash. A request without a mention loads nothing.
import type { Decision, EvalRequest, SelectorRun, Skill } from '../types.js';
import { skillsFor } from './index.js';

/** A skill-name-like token: letters, digits, `-`, `_`, `.`; trailing punctuation is not part of it. */
const NAME = '[A-Za-z0-9](?:[\\w.-]*[A-Za-z0-9_])?';
/** `/name` as the first word (not a path: no `/` after the name). */
const SLASH = new RegExp(`^\\s*\\/(${NAME})(?=$|[\\s,;:!?)\\]]|\\.(?:\\s|$))`);
/** `@name` at the start or after a space or an opening bracket or quote (so e-mail addresses do not count). */
const AT = new RegExp(`(?:^|[\\s(\\["'])@(${NAME})`, 'g');

/** The name the request mentions explicitly, or null. */
export function explicitMention(text: string): string | null {
  const slash = SLASH.exec(text);
  if (slash) return slash[1]!;
  AT.lastIndex = 0;
  const at = AT.exec(text);
  return at ? at[1]! : null;
}

/** Resolves a mentioned name against the catalogue: exact match first, then case-insensitive. */
export function resolveName(mention: string, names: string[]): string | null {
  if (names.includes(mention)) return mention;
  const lower = mention.toLowerCase();
  return names.find((n) => n.toLowerCase() === lower) ?? null;
}

export function explicitDecision(request: EvalRequest, names: string[], run = 0): Decision {
  const mention = explicitMention(request.text);
  const decision: Decision = { requestId: request.id, run, chosen: null };
  if (mention === null) return decision;
  const name = resolveName(mention, names);
  if (name) decision.chosen = name;
  else decision.detail = { unresolved: mention };
  return decision;
}

/** True when some request names a skill explicitly (the explicit selector has something to measure). */
export function someRequestNamesASkill(requests: EvalRequest[]): boolean {
  return requests.some((r) => explicitMention(r.text) !== null);
}

export function runExplicitSelector(skills: Skill[], requests: EvalRequest[]): SelectorRun {
  const all = skills.map((s) => s.name);
  const namesFor = (r: EvalRequest) => (r.candidates ? skillsFor(skills, r).map((s) => s.name) : all);
  return { selector: 'explicit', kind: 'decision', decisions: requests.map((r) => explicitDecision(r, namesFor(r))) };
}
