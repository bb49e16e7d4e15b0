// The keyword selector: BM25 over each skill's name (split on - and _) and description, scores normalised to 0..1;
// the top skill is loaded when its score reaches the threshold. The baseline a keyword router would be.
import { createBm25 } from '../providers/bm25.js';
import type { EvalRequest, Lane, ScoredSkill, Skill } from '../types.js';
import { keepTop, rank } from './index.js';

export function keywordDocument(skill: Skill): string {
  return `${skill.name.replace(/[-_]+/g, ' ')} ${skill.description}`;
}

export function rankByKeyword(skills: Skill[], requests: EvalRequest[], lane?: Lane, keep = keepTop(skills.length)): ScoredSkill[][] {
  const index = createBm25(skills.map((s) => ({ name: s.name, text: keywordDocument(s) })));
  return requests.map((r) => {
    const scores = rank(index.score(r.text), keep);
    if (lane) lane.done++;
    return scores;
  });
}
