// What changed against a baseline results file, beyond the gate's flips: the skills whose description changed (with a
// word diff when both files stored the text, version 2), and for every request and selector the decision before and
// now and the move of its deciding score, even when the decision did not flip (0.39 -> 0.51 under a 0.55 threshold is
// the signal an author needs). Requests are paired by id and text, as the gate pairs them; with repeats, run 0.
import { loaded } from '../metrics.js';
import type { Decision, EvalRequest, ResultsFile } from '../types.js';
import { outcomeOf, type Outcome } from './format.js';
import { wordDiff, type DiffPiece } from './worddiff.js';

export interface SkillChange {
  name: string;
  change: 'changed' | 'added' | 'removed';
  before?: string;
  after?: string;
  /** Both descriptions known and different: the word diff. */
  diff?: DiffPiece[];
  /** The hash changed but a file has no description (version 1) or the description is the same (the body or a resource changed). */
  why?: string;
}

/** Skills added, removed, or whose version (hash) changed, by name; with the description's word diff when possible. */
export function skillChanges(results: ResultsFile, baseline: ResultsFile): SkillChange[] {
  const before = new Map(baseline.catalogue.skills.map((s) => [s.name, s]));
  const now = new Map(results.catalogue.skills.map((s) => [s.name, s]));
  const out: SkillChange[] = [];
  for (const s of results.catalogue.skills) {
    const b = before.get(s.name);
    if (!b) {
      out.push({ name: s.name, change: 'added', after: s.description });
      continue;
    }
    if (b.hash === s.hash && (b.description === undefined || s.description === undefined || b.description === s.description)) continue;
    const change: SkillChange = { name: s.name, change: 'changed', before: b.description, after: s.description };
    if (b.description !== undefined && s.description !== undefined && b.description !== s.description) change.diff = wordDiff(b.description, s.description);
    else if (b.description === undefined || s.description === undefined) change.why = 'the skill changed; the description was not stored in a version-1 results file, so it cannot be compared';
    else change.why = 'the description is the same: the body or a resource of the skill changed';
    out.push(change);
  }
  for (const b of baseline.catalogue.skills) if (!now.has(b.name)) out.push({ name: b.name, change: 'removed', before: b.description });
  return out;
}

export interface DecisionSide {
  chosen: string | null;
  outcome: Outcome;
  /** The deciding score: the gold skill's for a request that needs one, the top skill's otherwise (score selectors). */
  score?: number;
}

export interface RequestChange {
  before: DecisionSide;
  after: DecisionSide;
  /** after.score - before.score, when both are known. */
  delta?: number;
  /** The outcome went from right to wrong or back. */
  flipped: boolean;
  /** A different skill (or none) was loaded. */
  choiceChanged: boolean;
}

/** The score that decides a request: the gold skill's score (undefined when it is not in the kept ranking), else the top one. */
export function decidingScore(d: Decision, gold: string | null): number | undefined {
  if (!d.scores?.length) return undefined;
  if (gold !== null) return d.scores.find((s) => s.name === gold)?.score;
  return d.scores[0]!.score;
}

export function requestKey(r: Pick<EvalRequest, 'id' | 'text'>): string {
  return `${r.id}\u0000${r.text}`;
}

/** requestKey -> selector -> the change, for every request and selector both files decided (run 0). */
export function requestChanges(results: ResultsFile, baseline: ResultsFile): Map<string, Map<string, RequestChange>> {
  const out = new Map<string, Map<string, RequestChange>>();
  const side = (d: Decision, gold: string | null): DecisionSide => ({ chosen: loaded(d), outcome: outcomeOf(d, gold), score: decidingScore(d, gold) });
  for (const run of results.runs) {
    const then = baseline.runs.find((b) => b.selector === run.selector);
    if (!then) continue;
    const beforeBy = firstRuns(then.decisions, baseline.requests);
    const nowBy = firstRuns(run.decisions, results.requests);
    for (const [key, { d, r }] of nowBy) {
      const b = beforeBy.get(key);
      if (!b || b.r.gold !== r.gold) continue; // a request whose gold changed is another question
      const before = side(b.d, r.gold);
      const after = side(d, r.gold);
      const change: RequestChange = {
        before,
        after,
        flipped: before.outcome !== 'error' && after.outcome !== 'error' && (before.outcome === 'correct') !== (after.outcome === 'correct'),
        choiceChanged: before.chosen !== after.chosen,
      };
      if (before.score !== undefined && after.score !== undefined) change.delta = after.score - before.score;
      const perSelector = out.get(key) ?? new Map<string, RequestChange>();
      perSelector.set(run.selector, change);
      out.set(key, perSelector);
    }
  }
  return out;
}

function firstRuns(decisions: Decision[], requests: EvalRequest[]): Map<string, { d: Decision; r: EvalRequest }> {
  const byId = new Map(requests.map((r) => [r.id, r]));
  const out = new Map<string, { d: Decision; r: EvalRequest }>();
  for (const d of decisions) {
    const r = byId.get(d.requestId);
    if (r && d.run === 0) out.set(requestKey(r), { d, r });
  }
  return out;
}
