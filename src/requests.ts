// Request sets: which skill each request must load (or none). Shapes accepted (ACCEPTED_SHAPES):
//   own / MetaTool:  [{id?, text, gold: name | null, kind?, candidates?, target?}]  or  {requests: [...]}
//                    (id defaults to r1, r2, ... by position)
//   skill-creator:   [{query | prompt, should_trigger, id?, candidates?}] about one skill, named with --skill,
//                    or wrapped: {skill_name, evals: [...]} / {skill_name, queries: [...]}
// A skill-creator request keeps its skill as `target`: a should_trigger: false query is a near miss for that skill
// only (metrics.ts scores it against the target). `candidates` restricts the skills a request chooses among.
import { UserError } from './errors.js';
import { readJsonFile } from './jsonfile.js';
import type { Catalogue, EvalRequest, RequestKind } from './types.js';

export const REQUEST_KINDS: readonly RequestKind[] = ['positive', 'near-miss', 'off-topic'];

export const ACCEPTED_SHAPES =
  'accepted shapes: [{"text", "gold", "id"?, "kind"?, "candidates"?}] or {"requests": [...]} (skillbench, MetaTool); ' +
  '[{"query" or "prompt", "should_trigger"}] with --skill NAME, {"skill_name", "evals": [...]} or {"skill_name", "queries": [...]} (skill-creator)';
const OWN_FIX = 'write a JSON list [{"id": "r1", "text": "...", "gold": "skill-name" or null, "kind": "positive"}]';
const SKILL_CREATOR_FIX = 'write a JSON list [{"query": "...", "should_trigger": true}] and name the skill with --skill, or {"skill_name": "...", "evals": [...]}';

export type RequestFormat = 'own' | 'skill-creator';

/** A parsed request file. */
export interface RequestSet {
  format: RequestFormat;
  requests: EvalRequest[];
  /** skill-creator: the skill the set is about, and where it was named (the file's skill_name, or --skill). */
  skill?: string;
  skillFrom?: 'skill_name' | '--skill';
}

export interface LoadRequestOptions {
  /** --skill: the skill a skill-creator set is about (an error for a file in the own format). */
  skill?: string;
  /** The option --skill is reported as (default '--skill'). */
  skillOption?: string;
  /** False: a file in the own format ignores `skill` instead of refusing it (a --calibrate set beside a skill-creator set). */
  refuseSkillForOwn?: boolean;
}

/** The requests of a file (see RequestSet for the format and the skill it names). */
export async function loadRequests(file: string, opts: LoadRequestOptions = {}): Promise<EvalRequest[]> {
  return (await loadRequestSet(file, opts)).requests;
}

export async function loadRequestSet(file: string, opts: LoadRequestOptions = {}): Promise<RequestSet> {
  const data = await readJsonFile(file, { what: 'the request set', readFix: 'give the path of a JSON request file', fix: OWN_FIX });
  const set = parseRequestSet(file, data, opts);
  checkUniqueIds(file, set.requests);
  return set;
}

/** Parses a request file's JSON in any accepted shape; a UserError names the file, the field and the shapes accepted. */
export function parseRequestSet(file: string, data: unknown, opts: LoadRequestOptions = {}): RequestSet {
  const shape = shapeOf(file, data);
  if (shape.list.length === 0) throw new UserError(`${file}: the request list is empty`, shape.format === 'own' ? OWN_FIX : SKILL_CREATOR_FIX);
  if (shape.format === 'own') {
    if (opts.skill !== undefined && opts.refuseSkillForOwn !== false) {
      throw new UserError(
        `${file}: ${opts.skillOption ?? '--skill'} ${opts.skill} is for skill-creator eval sets ({query, should_trigger}), but this file is in skillbench's own format ({text, gold}), whose gold fields already name each request's skill`,
        `drop ${opts.skillOption ?? '--skill'}, or pass a skill-creator eval set`,
      );
    }
    return { format: 'own', requests: parseOwn(file, shape.list) };
  }
  const skill = skillOf(file, shape.skillName, opts);
  return { format: 'skill-creator', requests: parseSkillCreator(file, shape.list, skill.name), skill: skill.name, skillFrom: skill.from };
}

/** The format of a parsed request file (undefined when it is no accepted shape: parseRequestSet says why). */
export function requestFormat(data: unknown): RequestFormat | undefined {
  if (Array.isArray(data)) return isSkillCreatorEntry(data[0]) ? 'skill-creator' : 'own';
  if (!isObject(data)) return undefined;
  if (Array.isArray(data.requests)) return 'own';
  return Array.isArray(data.evals) || Array.isArray(data.queries) ? 'skill-creator' : undefined;
}

interface Shape {
  format: RequestFormat;
  list: unknown[];
  /** The wrapper's skill_name, when it has one. */
  skillName?: string;
}

function shapeOf(file: string, data: unknown): Shape {
  if (Array.isArray(data)) {
    const first = data[0];
    if (isObject(first) && !isSkillCreatorEntry(first) && !('text' in first) && !('gold' in first)) {
      const keys = Object.keys(first);
      throw new UserError(
        `${file}: unknown request shape: entry 0 has ${keys.length ? `the keys ${keys.slice(0, 6).map((k) => `"${k}"`).join(', ')}` : 'no keys'}, none of "text", "gold", "query", "prompt" or "should_trigger"`,
        ACCEPTED_SHAPES,
      );
    }
    return { format: isSkillCreatorEntry(first) ? 'skill-creator' : 'own', list: data };
  }
  if (!isObject(data)) throw new UserError(`${file}: expected a JSON list of requests or an object wrapping one, got ${describe(data)}`, ACCEPTED_SHAPES);
  if (Array.isArray(data.requests)) return { format: 'own', list: data.requests };
  const key = Array.isArray(data.evals) ? 'evals' : Array.isArray(data.queries) ? 'queries' : undefined;
  if (key === undefined) {
    const keys = Object.keys(data);
    throw new UserError(
      `${file}: unknown request-set shape: an object with ${keys.length ? `the keys ${keys.slice(0, 6).map((k) => `"${k}"`).join(', ')}` : 'no keys'} and no "requests", "evals" or "queries" list`,
      ACCEPTED_SHAPES,
    );
  }
  if (data.skill_name !== undefined && (typeof data.skill_name !== 'string' || data.skill_name.trim() === '')) {
    throw new UserError(`${file}: field "skill_name" must be a skill name (a non-empty string)`, SKILL_CREATOR_FIX);
  }
  return { format: 'skill-creator', list: data[key] as unknown[], skillName: data.skill_name as string | undefined };
}

function isSkillCreatorEntry(entry: unknown): boolean {
  return isObject(entry) && ('query' in entry || 'prompt' in entry || 'should_trigger' in entry);
}

/** The skill a skill-creator set is about: --skill, else the file's skill_name; both given, they must agree. */
function skillOf(file: string, skillName: string | undefined, opts: LoadRequestOptions): { name: string; from: 'skill_name' | '--skill' } {
  const option = opts.skillOption ?? '--skill';
  if (opts.skill !== undefined && skillName !== undefined && opts.skill !== skillName) {
    throw new UserError(`${file}: field "skill_name" says the set is about "${skillName}", but ${option} says "${opts.skill}"`,
      `drop ${option} (the file names its skill), or fix "skill_name"`);
  }
  if (opts.skill !== undefined) return { name: opts.skill, from: '--skill' };
  if (skillName !== undefined) return { name: skillName, from: 'skill_name' };
  throw new UserError(`${file}: this is a skill-creator eval set ([{query, should_trigger}]) and does not say which skill it is about`,
    `name the skill with ${option} NAME`);
}

function parseOwn(file: string, list: unknown[]): EvalRequest[] {
  return list.map((entry, i) => {
    const bad = (field: string, what: string) => new UserError(`${file}: entry ${i}: field "${field}" ${what}`, OWN_FIX);
    if (!isObject(entry)) throw new UserError(`${file}: entry ${i} is not an object`, OWN_FIX);
    for (const field of ['query', 'prompt', 'should_trigger']) {
      if (field in entry) throw bad(field, 'belongs to the skill-creator format, but entry 0 uses the own format (text, gold)');
    }
    const { text, gold, kind } = entry;
    if (typeof text !== 'string' || text.trim() === '') throw bad('text', 'is missing, empty or not a string');
    if (!('gold' in entry)) throw bad('gold', 'is missing (use null when no skill should be loaded)');
    if (gold !== null && (typeof gold !== 'string' || gold === '')) throw bad('gold', 'must be a skill name or null');
    if (kind !== undefined && !(REQUEST_KINDS as readonly unknown[]).includes(kind)) throw bad('kind', `must be one of ${REQUEST_KINDS.join(', ')}`);
    const request: EvalRequest = { id: idOf(entry, i, bad), text, gold: gold as string | null };
    if (kind !== undefined) request.kind = kind as RequestKind;
    if ('target' in entry) {
      // Written by skillbench (a results file's requests): a request scored against one skill, as skill-creator's are.
      const { target } = entry;
      if (typeof target !== 'string' || target === '') throw bad('target', 'must be a skill name');
      if (gold !== null && gold !== target) throw bad('target', `is "${target}" but gold is "${String(gold)}": a target request's gold is its target or null`);
      request.target = target;
    }
    addCandidates(request, entry, bad);
    return request;
  });
}

function parseSkillCreator(file: string, list: unknown[], skill: string): EvalRequest[] {
  return list.map((entry, i) => {
    const bad = (field: string, what: string) => new UserError(`${file}: entry ${i}: field "${field}" ${what}`, SKILL_CREATOR_FIX);
    if (!isObject(entry)) throw new UserError(`${file}: entry ${i} is not an object`, SKILL_CREATOR_FIX);
    if ('text' in entry || 'gold' in entry) throw bad('text' in entry ? 'text' : 'gold', 'belongs to the own format, but entry 0 uses the skill-creator format (query, should_trigger)');
    if ('query' in entry && 'prompt' in entry) throw bad('prompt', 'is given with "query": keep one of them');
    const field = 'prompt' in entry ? 'prompt' : 'query';
    const text = entry[field];
    if (typeof text !== 'string' || text.trim() === '') throw bad(field, 'is missing, empty or not a string');
    const trigger = entry.should_trigger;
    if (trigger === undefined && 'expected_output' in entry) {
      // skill-creator's evals/evals.json: output-quality cases, not trigger queries.
      throw new UserError(`${file}: entry ${i} has "expected_output" and no "should_trigger": this is an output-quality eval set, not a trigger eval set`,
        'give eval-trigger a trigger eval set ([{"query": "...", "should_trigger": true}]); output checks belong to eval-quality');
    }
    if (typeof trigger !== 'boolean') throw bad('should_trigger', 'must be true or false');
    const request: EvalRequest = { id: idOf(entry, i, bad), text, gold: trigger ? skill : null, target: skill };
    if (trigger) request.kind = 'positive';
    addCandidates(request, entry, bad);
    return request;
  });
}

function idOf(entry: Record<string, unknown>, i: number, bad: (field: string, what: string) => UserError): string {
  const { id } = entry;
  if (id === undefined) return `r${i + 1}`;
  if (!(typeof id === 'string' && id !== '') && !(typeof id === 'number' && Number.isFinite(id))) throw bad('id', 'must be a non-empty string or a number');
  return String(id);
}

/** `candidates`: a non-empty list of distinct skill names that holds the request's gold (or target). */
function addCandidates(request: EvalRequest, entry: Record<string, unknown>, bad: (field: string, what: string) => UserError): void {
  if (!('candidates' in entry)) return;
  const list = entry.candidates;
  if (!Array.isArray(list) || list.length === 0 || !list.every((c) => typeof c === 'string' && c !== '')) {
    throw bad('candidates', 'must be a non-empty list of skill names');
  }
  const dupe = list.find((c, j) => list.indexOf(c) !== j);
  if (dupe !== undefined) throw bad('candidates', `lists "${dupe}" twice`);
  const expected = request.gold ?? request.target;
  if (expected !== undefined && !list.includes(expected)) {
    throw bad('candidates', `does not include "${expected}", the skill this request ${request.gold ? 'must load' : 'is about'}: it could never be chosen`);
  }
  request.candidates = list as string[];
}

function checkUniqueIds(file: string, requests: EvalRequest[]): void {
  const seen = new Map<string, number>();
  requests.forEach((r, i) => {
    const first = seen.get(r.id);
    if (first !== undefined) throw new UserError(`${file}: entry ${i}: id "${r.id}" is already used by entry ${first}`, 'give every request a unique id');
    seen.set(r.id, i);
  });
}

/**
 * Every skill a request names (gold, target, candidates) must be a selectable skill of the catalogue: a typo would
 * silently count as a wrong load, or shrink a candidate list, otherwise. A UserError names the file, the request and
 * the field.
 */
export function checkRequestNames(requests: EvalRequest[], names: Iterable<string>, file: string): void {
  const known = new Set(names);
  const problems: { id: string; field: string; name: string }[] = [];
  for (const r of requests) {
    if (r.gold !== null && !known.has(r.gold)) problems.push({ id: r.id, field: 'gold', name: r.gold });
    else if (r.target !== undefined && !known.has(r.target)) problems.push({ id: r.id, field: 'target', name: r.target });
    const unknown = r.candidates?.find((c) => !known.has(c));
    if (unknown !== undefined) problems.push({ id: r.id, field: 'candidates', name: unknown });
  }
  if (!problems.length) return;
  const first = problems[0]!;
  throw new UserError(
    `${file}: request "${first.id}" field "${first.field}" names "${first.name}", which is not a selectable skill of the catalogue` +
      (problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''),
    `fix the ${first.field === 'candidates' ? 'candidate' : 'gold'} names, or pass the --skills catalogue these requests were written for`,
  );
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

/** Requests of `calibration` whose text (whitespace collapsed) is also the text of one of `requests`. */
export function sharedRequests(calibration: EvalRequest[], requests: EvalRequest[]): number {
  const norm = (t: string) => t.split(/\s+/).filter(Boolean).join(' ');
  const texts = new Set(requests.map((r) => norm(r.text)));
  return calibration.filter((r) => texts.has(norm(r.text))).length;
}

function describe(v: unknown): string {
  return v === null ? 'null' : typeof v === 'string' ? 'a string' : typeof v === 'number' ? 'a number' : typeof v === 'boolean' ? 'a boolean' : typeof v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
