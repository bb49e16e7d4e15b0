// The two-stage suggester and its three-arm evaluation (see src/suggest/*.ts and docs/suggest.md).
//   wide.ts    stage 1: rank every skill (model, chunked; or embeddings) and the action gate
//   narrow.ts  stage 2: fit of each shortlisted skill, and the pick
//   block.ts   the <skill_relevance> block (its wording is a constant, part of every cache key)
//   arms.ts    baseline / suggest / oracle arms of `suggest --eval`
export { NONE_TEXT, SUGGEST_TEMPLATE, relevanceBlock } from './suggest/block.js';
export { MalformedAnswer, type SuggestChat, type SuggesterCall } from './suggest/llm.js';
export {
  GATE_QUESTIONS,
  chunk,
  createSimilarityRanker,
  gateScore,
  type GateAnswers,
  type Ranker,
} from './suggest/wide.js';
export { chooseWinner, type NarrowResult } from './suggest/narrow.js';
export {
  DEFAULT_SETTINGS,
  SuggestFailure,
  suggestSkill,
  suggestable,
  type Candidate,
  type SuggestExit,
  type SuggestSettings,
  type Suggestion,
  type WideMode,
} from './suggest/suggester.js';
export {
  ARMS,
  DEFAULT_PREAMBLE,
  suggestAgentHost,
  compareArms,
  requestCost,
  runSuggestEval,
  type ArmComparison,
  type ArmFlip,
  type SuggestEvalInput,
  type SuggestEvalOutcome,
} from './suggest/arms.js';
export { renderArms, renderRanking, renderSuggestion } from './suggest/render.js';
