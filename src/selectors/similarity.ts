// The similarity selector: cosine between each request's embedding (as a query) and each skill description's (as a
// document, titled with the skill name). Every skill is scored; the best ones are kept, best first; the top skill is
// loaded when its score reaches the threshold.
import type { EmbeddingProvider, EvalRequest, Lane, ScoredSkill, Skill } from '../types.js';
import { keepTop, rank } from './index.js';

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Requests are embedded in chunks so the progress lane moves while a large set is embedded. */
const CHUNK = 32;

export interface SimilarityRanker {
  /** Every skill scored against each text, best first, the top `keep` kept (default: all for <= 20 skills, else 10). */
  rank(texts: string[], opts?: { lane?: Lane; keep?: number }): Promise<ScoredSkill[][]>;
}

export async function createSimilarityRanker(embedder: EmbeddingProvider, skills: Skill[]): Promise<SimilarityRanker> {
  const docs = await embedder.embed(skills.map((s) => ({ text: s.description, title: s.name })), 'document');
  return {
    async rank(texts, opts = {}) {
      const keep = opts.keep ?? keepTop(skills.length);
      const out: ScoredSkill[][] = [];
      for (let i = 0; i < texts.length; i += CHUNK) {
        const chunk = texts.slice(i, i + CHUNK);
        const vectors = await embedder.embed(chunk.map((text) => ({ text })), 'query');
        for (const v of vectors) out.push(rank(skills.map((s, j) => ({ name: s.name, score: cosine(v, docs[j]!) })), keep));
        if (opts.lane) opts.lane.done += chunk.length;
      }
      return out;
    },
  };
}

/** Rankings of every request (in order). */
export async function rankBySimilarity(embedder: EmbeddingProvider, skills: Skill[], requests: EvalRequest[], lane?: Lane, keep?: number): Promise<ScoredSkill[][]> {
  const ranker = await createSimilarityRanker(embedder, skills);
  return ranker.rank(requests.map((r) => r.text), { lane, keep });
}
