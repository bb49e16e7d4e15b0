// What the selectors share: names, which skills they choose among, how a ranking becomes decisions at a threshold,
// and the shape of the chat client they call (structural, so selectors do not load the SDKs).
import type { Decision, EvalRequest, ScoredSkill, SelectorRun, Skill, ThresholdInfo } from '../types.js';
import { chooseAt } from '../metrics.js';
import type { ChatCaller } from '../client.js';

export const SELECTOR_NAMES = ['model', 'similarity', 'hybrid', 'keyword', 'explicit'] as const;
export type SelectorName = (typeof SELECTOR_NAMES)[number];
/** Selectors that need a chat model. */
export const CHAT_SELECTORS: SelectorName[] = ['model', 'hybrid'];
/** Selectors that rank every skill, then load the top one at a threshold. */
export const SCORE_SELECTORS: SelectorName[] = ['similarity', 'keyword'];

/** The chat client the model-based selectors need (a type import: the SDKs are not loaded). */
export type SelectorChatClient = ChatCaller;

/** The score range of each score selector: a --threshold outside it would load everything or nothing. */
export const SCORE_RANGES: Record<'similarity' | 'keyword', { min: number; max: number; what: string }> = {
  similarity: { min: -1, max: 1, what: 'cosine similarities' },
  keyword: { min: 0, max: 1, what: 'BM25 scores normalised to 0..1' },
};

/** The skills one request chooses among: its `candidates` when it has them (in catalogue order), else every skill. */
export function skillsFor(skills: Skill[], request: EvalRequest): Skill[] {
  if (!request.candidates) return skills;
  const allowed = new Set(request.candidates);
  return skills.filter((s) => allowed.has(s.name));
}

/** True when some request carries its own candidate list. */
export function hasCandidates(requests: EvalRequest[]): boolean {
  return requests.some((r) => r.candidates !== undefined);
}

/**
 * Each ranking restricted to its request's candidates, then cut to `keep(count of skills it chose among)`. The
 * scores are the catalogue-wide ones (same index, same idf, same embeddings), so a threshold means the same thing
 * with and without candidates. Rankings must hold every skill for this to be exact (rank with keep = all).
 */
export function restrictRankings(rankings: ScoredSkill[][], requests: EvalRequest[], keep: (count: number) => number): ScoredSkill[][] {
  return rankings.map((ranking, i) => {
    const candidates = requests[i]?.candidates;
    if (!candidates) return ranking.slice(0, keep(ranking.length));
    const allowed = new Set(candidates);
    return ranking.filter((s) => allowed.has(s.name)).slice(0, keep(candidates.length));
  });
}

/** The skills a selector may load: every skill but the `never` ones. */
export function selectableSkills(skills: Skill[]): Skill[] {
  return skills.filter((s) => s.state !== 'never');
}

/** How many ranked candidates a decision keeps: all for small catalogues, else the top 10. */
export function keepTop(count: number): number {
  return count <= 20 ? count : 10;
}

/** Decisions of a score selector at a threshold: the top candidate when its score reaches it, else none. */
export function scoreRun(selector: string, requests: EvalRequest[], rankings: ScoredSkill[][], threshold: ThresholdInfo, extra: Partial<SelectorRun> = {}): SelectorRun {
  const decisions: Decision[] = requests.map((r, i) => ({
    requestId: r.id,
    run: 0,
    chosen: chooseAt(rankings[i], threshold.value),
    scores: rankings[i]!,
  }));
  return { selector, kind: 'score', threshold, ...extra, decisions };
}

/** Sorts candidates best first (ties by name, so results are stable) and keeps the top `keep`. */
export function rank(scores: ScoredSkill[], keep: number): ScoredSkill[] {
  return [...scores].sort((a, b) => b.score - a.score || a.name.localeCompare(b.name)).slice(0, keep);
}
