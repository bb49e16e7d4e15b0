// The two-stage suggester: wide (rank + gate), then narrow (fit per candidate + pick). Returns at most one skill
// and the block for the agent's system prompt for this turn.
import type { Lane, ScoredSkill, Skill } from '../types.js';
import { selectableSkills } from '../selectors/index.js';
import { relevanceBlock } from './block.js';
import type { SuggestChat, SuggesterCall } from './llm.js';
import { chooseWinner, narrowStage } from './narrow.js';
import { askGate, wideWithModel, type GateAnswers, type Ranker } from './wide.js';

/** model: one structured call; fused and similarity: an offline ranking (the model answers only the gate). */
export type WideMode = 'model' | 'fused' | 'similarity';

export interface SuggestSettings {
  wide: WideMode;
  /** Gate threshold on the mean of the three answers. */
  gate: number;
  /** Fit threshold of the narrow stage. */
  fit: number;
  /** Candidates shown to the narrow stage. */
  shortlist: number;
  /** Characters of each candidate's body shown to the narrow stage. */
  excerpt: number;
  /** Skills per wide call (`--wide model`). */
  chunkSize: number;
}

export const DEFAULT_SETTINGS: SuggestSettings = {
  wide: 'model',
  gate: 0.3,
  fit: 0.3,
  shortlist: 3,
  excerpt: 700,
  chunkSize: 60,
};

/** gate-closed: the request needs no skill; nothing-fits: no candidate does the thing asked; suggested: a winner. */
export type SuggestExit = 'gate-closed' | 'nothing-fits' | 'suggested';

export interface Candidate {
  name: string;
  /** Score from the wide stage (model relevance or cosine similarity). */
  wideScore: number;
  /** Narrow-stage fit; null when the narrow stage did not run (gate closed). */
  fit: number | null;
}

export interface Suggestion {
  request: string;
  skill: string | null;
  block: string;
  exit: SuggestExit;
  gate: GateAnswers;
  /** Wide-stage ranking, best first. */
  ranking: ScoredSkill[];
  shortlist: Candidate[];
  /** The narrow stage's own pick (may differ from `skill` when its fit is under the threshold). */
  pick: string | null;
  calls: SuggesterCall[];
  costUsd: number;
}

export interface SuggesterContext {
  chat: SuggestChat;
  skills: Skill[];
  settings: SuggestSettings;
  /** Required for the offline wide modes (`--wide fused`, `--wide similarity`). */
  ranker?: Ranker;
  lane?: Lane;
}

/** A suggestion that failed part-way; keeps the calls already paid for. */
export class SuggestFailure extends Error {
  constructor(
    readonly cause: unknown,
    readonly calls: SuggesterCall[],
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SuggestFailure';
  }
  get costUsd(): number {
    return sumCost(this.calls);
  }
}

export function sumCost(calls: SuggesterCall[]): number {
  return calls.reduce((sum, c) => sum + c.costUsd, 0);
}

/**
 * Runs both stages for one request. `preRanked` (similarity mode) skips the embedding step when the caller already
 * ranked offline. Throws SuggestFailure when a call fails or answers malformed JSON.
 */
export async function suggestSkill(text: string, ctx: SuggesterContext, preRanked?: ScoredSkill[]): Promise<Suggestion> {
  const calls: SuggesterCall[] = [];
  try {
    return await run(text, ctx, calls, preRanked);
  } catch (err) {
    throw new SuggestFailure(err, calls);
  }
}

async function run(text: string, ctx: SuggesterContext, calls: SuggesterCall[], preRanked?: ScoredSkill[]): Promise<Suggestion> {
  const { chat, skills, settings, lane } = ctx;
  const eligible = selectableSkills(skills);
  let ranking: ScoredSkill[];
  let gate: GateAnswers;
  if (settings.wide !== 'model') {
    if (!preRanked && !ctx.ranker) throw new Error(`${settings.wide} mode needs a ranker`);
    ranking = preRanked ?? (await ctx.ranker!(text));
    const allowed = new Set(eligible.map((s) => s.name));
    ranking = ranking.filter((r) => allowed.has(r.name));
    gate = await askGate(chat, text, settings.gate, calls, lane);
  } else {
    ({ ranking, gate } = await wideWithModel(
      chat,
      text,
      eligible,
      { depth: settings.shortlist, chunkSize: settings.chunkSize, gateThreshold: settings.gate, lane },
      calls,
    ));
  }
  const byName = new Map(eligible.map((s) => [s.name, s]));
  const top = ranking.slice(0, settings.shortlist);
  const shortlist: Candidate[] = top.map((r) => ({ name: r.name, wideScore: r.score, fit: null }));
  const done = (exit: SuggestExit, skill: string | null, pick: string | null): Suggestion => ({
    request: text,
    skill,
    block: relevanceBlock(skill),
    exit,
    gate,
    ranking,
    shortlist,
    pick,
    calls,
    costUsd: sumCost(calls),
  });
  if (!gate.open) return done('gate-closed', null, null);
  if (top.length === 0) return done('nothing-fits', null, null);
  const narrow = await narrowStage(chat, text, top.map((r) => byName.get(r.name)!), settings.excerpt, calls, lane);
  for (const c of shortlist) c.fit = narrow.fits.find((f) => f.name === c.name)?.fit ?? 0;
  const winner = chooseWinner(narrow, settings.fit);
  return done(winner === null ? 'nothing-fits' : 'suggested', winner, narrow.pick);
}

/** Skills the agent can load: `never` skills are hidden from the agent, so never suggested (the selectors' rule). */
export { selectableSkills as suggestable };
