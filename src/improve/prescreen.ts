// The optional offline pre-screen of `improve`: before any paid trigger evaluation, an offline selector ranks the
// catalogue (with the candidate's description in place) for every train request, and only the candidates that do
// best are scored by the model. A selector plugs in here through the interface every offline selector has: a
// ranking (ScoredSkill[], best first) of the skills for each request.
import { topOf, wilson } from '../metrics.js';
import type { EmbeddingProvider, EvalRequest, Rate, ScoredSkill, Skill } from '../types.js';

/** Ranks the skills for each request (in order), best first. */
export type OfflineRanker = (skills: Skill[], requests: EvalRequest[]) => Promise<ScoredSkill[][]>;

export const PRESCREEN_SELECTORS = ['keyword', 'similarity'] as const;
export type PrescreenSelector = (typeof PRESCREEN_SELECTORS)[number];

/** The ranker of an offline selector (similarity embeds with the given provider; its vectors are cached). */
export async function offlineRanker(selector: PrescreenSelector, embedder: () => Promise<EmbeddingProvider>): Promise<OfflineRanker> {
  if (selector === 'keyword') {
    const { rankByKeyword } = await import('../selectors/keyword.js');
    return async (skills, requests) => rankByKeyword(skills, requests, undefined, skills.length).map((r) => r ?? []);
  }
  const { rankBySimilarity } = await import('../selectors/similarity.js');
  const provider = await embedder();
  return (skills, requests) => rankBySimilarity(provider, skills, requests, undefined, skills.length);
}

/**
 * The offline score of a catalogue for one skill, with no threshold to choose: a request of the skill counts when
 * the skill ranks first (alone), any other request when the skill does not rank first.
 */
export function prescreenScore(rankings: ScoredSkill[][], requests: EvalRequest[], skill: string): Rate {
  let k = 0;
  requests.forEach((r, i) => {
    const top = topOf(rankings[i])?.name ?? null;
    if (r.gold === skill ? top === skill : top !== skill) k++;
  });
  return wilson(k, requests.length);
}

/** Candidates ranked by their offline score (ties: the earlier first) and the first `keep` of them. */
export function keepBest<T extends { score: Rate }>(items: T[], keep: number): { kept: T[]; dropped: T[] } {
  const order = items.map((it, i) => ({ it, i })).sort((a, b) => (b.it.score.rate ?? 0) - (a.it.score.rate ?? 0) || a.i - b.i);
  const kept = new Set(order.slice(0, keep).map((x) => x.i));
  return { kept: items.filter((_, i) => kept.has(i)), dropped: items.filter((_, i) => !kept.has(i)) };
}
