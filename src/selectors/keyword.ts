// The keyword selector: BM25 over each skill's name (split on - and _) and description (see providers/bm25.ts for the
// scores); the top skill is loaded when its score reaches the threshold. The baseline a keyword router would be.
// A skill that shares no word with the request (score 0) is not a candidate: a score of zero is never a correct top-1
// and never reaches a threshold, even in a one-skill catalogue. A request its tokenizer cannot read (no Latin letter:
// wink keeps ASCII words only) is an error row, not a quiet "none".
import { createBm25 } from '../providers/bm25.js';
import type { EvalRequest, Lane, ScoredSkill, Skill, TextLanguage } from '../types.js';
import { keywordReads } from '../language.js';
import { keepTop, rank } from './index.js';

/**
 * How keyword scores are computed, recorded as the run's `model`: a threshold only carries over to a run that scores
 * the same way (the scores before it, min(1, raw / selfScore), had another scale).
 */
export const KEYWORD_SCORING = 'bm25-raw-over-sqrt-self';

export function keywordDocument(skill: Skill): string {
  return `${skill.name.replace(/[-_]+/g, ' ')} ${skill.description}`;
}

/** The ranking of one request: skills with a score above 0, best first; null when the tokenizer cannot read it. */
export type KeywordRanking = ScoredSkill[] | null;

export function rankByKeyword(
  skills: Skill[],
  requests: EvalRequest[],
  lane?: Lane,
  keep = keepTop(skills.length),
  languages?: Record<string, TextLanguage>,
): KeywordRanking[] {
  const index = createBm25(skills.map((s) => ({ name: s.name, text: keywordDocument(s) })));
  return requests.map((r) => {
    const lang = languages?.[r.id];
    const scores = lang && !keywordReads(lang) ? null : rank(index.score(r.text).filter((s) => s.score > 0), keep);
    if (lane) lane.done++;
    return scores;
  });
}

/** The error text of a request the keyword tokenizer cannot read. */
export function keywordUnreadable(lang: TextLanguage | undefined): string {
  return `keyword: cannot read ${lang ? `${lang.script} script` : 'this text'} (its tokenizer keeps ASCII words only)`;
}
