// Request sets: which skill each request must load (or none). Two formats:
//   own / MetaTool: [{id?, text, gold: name | null, kind?}]   (id defaults to r1, r2, ... by position)
//   skill-creator:  [{query, should_trigger}] about one skill, named with opts.skill (--skill)
import { UserError } from './errors.js';
import { readJsonFile } from './jsonfile.js';
import type { Catalogue, EvalRequest, RequestKind } from './types.js';

export const REQUEST_KINDS: readonly RequestKind[] = ['positive', 'near-miss', 'off-topic'];

const OWN_FIX = 'write a JSON list [{"id": "r1", "text": "...", "gold": "skill-name" or null, "kind": "positive"}]';
const SKILL_CREATOR_FIX = 'write a JSON list [{"query": "...", "should_trigger": true}] and name the skill with --skill';

export async function loadRequests(file: string, opts: { skill?: string } = {}): Promise<EvalRequest[]> {
  const data = await readJsonFile(file, { what: 'the request set', readFix: 'give the path of a JSON request file', fix: OWN_FIX });
  const list = Array.isArray(data) ? data : isObject(data) && Array.isArray(data.requests) ? data.requests : null;
  if (list === null) throw new UserError(`${file}: expected a JSON list of requests`, OWN_FIX);
  if (list.length === 0) throw new UserError(`${file}: the request list is empty`, OWN_FIX);
  const skillCreator = isObject(list[0]) && 'query' in list[0];
  const requests = skillCreator ? parseSkillCreator(file, list, opts.skill) : parseOwn(file, list);
  const seen = new Map<string, number>();
  requests.forEach((r, i) => {
    const first = seen.get(r.id);
    if (first !== undefined) throw new UserError(`${file}: entry ${i}: id "${r.id}" is already used by entry ${first}`, 'give every request a unique id');
    seen.set(r.id, i);
  });
  return requests;
}

function parseOwn(file: string, list: unknown[]): EvalRequest[] {
  return list.map((entry, i) => {
    const bad = (field: string, what: string) => new UserError(`${file}: entry ${i}: field "${field}" ${what}`, OWN_FIX);
    if (!isObject(entry)) throw new UserError(`${file}: entry ${i} is not an object`, OWN_FIX);
    if ('query' in entry) throw bad('query', 'belongs to the skill-creator format, but entry 0 uses the own format (text, gold)');
    const { id, text, gold, kind } = entry;
    if (typeof text !== 'string' || text.trim() === '') throw bad('text', 'is missing, empty or not a string');
    if (!('gold' in entry)) throw bad('gold', 'is missing (use null when no skill should be loaded)');
    if (gold !== null && (typeof gold !== 'string' || gold === '')) throw bad('gold', 'must be a skill name or null');
    if (id !== undefined && !(typeof id === 'string' && id !== '') && typeof id !== 'number') throw bad('id', 'must be a non-empty string or a number');
    if (kind !== undefined && !(REQUEST_KINDS as readonly unknown[]).includes(kind)) throw bad('kind', `must be one of ${REQUEST_KINDS.join(', ')}`);
    const request: EvalRequest = { id: id === undefined ? `r${i + 1}` : String(id), text, gold: gold as string | null };
    if (kind !== undefined) request.kind = kind as RequestKind;
    return request;
  });
}

function parseSkillCreator(file: string, list: unknown[], skill: string | undefined): EvalRequest[] {
  if (!skill) {
    throw new UserError(`${file}: this is a skill-creator eval set ([{query, should_trigger}]) and does not say which skill it is about`, 'name the skill with --skill NAME');
  }
  return list.map((entry, i) => {
    const bad = (field: string, what: string) => new UserError(`${file}: entry ${i}: field "${field}" ${what}`, SKILL_CREATOR_FIX);
    if (!isObject(entry)) throw new UserError(`${file}: entry ${i} is not an object`, SKILL_CREATOR_FIX);
    if ('text' in entry || 'gold' in entry) throw bad('text' in entry ? 'text' : 'gold', 'belongs to the own format, but entry 0 uses the skill-creator format (query, should_trigger)');
    const { query, should_trigger: trigger, id } = entry;
    if (typeof query !== 'string' || query.trim() === '') throw bad('query', 'is missing, empty or not a string');
    if (typeof trigger !== 'boolean') throw bad('should_trigger', 'must be true or false');
    const request: EvalRequest = { id: typeof id === 'string' || typeof id === 'number' ? String(id) : `r${i + 1}`, text: query, gold: trigger ? skill : null };
    if (trigger) request.kind = 'positive';
    return request;
  });
}

/** Throws a UserError naming the gold skills that are not in the catalogue (callers decide when to check). */
export function checkRequestsAgainstCatalogue(requests: EvalRequest[], catalogue: Catalogue): void {
  const names = new Set(catalogue.skills.map((s) => s.name));
  const unknown = new Map<string, string[]>();
  for (const r of requests) {
    if (r.gold !== null && !names.has(r.gold)) unknown.set(r.gold, [...(unknown.get(r.gold) ?? []), r.id]);
  }
  if (unknown.size === 0) return;
  const listed = [...unknown].slice(0, 5).map(([g, ids]) => `"${g}" (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', ...' : ''})`);
  const more = unknown.size > 5 ? ` and ${unknown.size - 5} more` : '';
  throw new UserError(
    `${unknown.size} gold skill${unknown.size === 1 ? ' is' : 's are'} not in the catalogue ${catalogue.source}: ${listed.join(', ')}${more}`,
    'fix the gold names in the request file, or point --skills at the catalogue they belong to',
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
