// The three-arm evaluation of the suggester. The agent under test sees a Hermes-style index (grouped by category,
// descriptions cut at 60 characters) under a preamble that urges loading, and a `skill_view(name)` tool taking a
// free-text name. One measured first turn per request and arm:
//   baseline: the index only; suggest: the index plus the suggester's block; oracle: the index plus a block naming
//   the gold skill (or saying that none fits), the ceiling of the method rather than a competitor.
import { createRequire } from 'node:module';
import pLimit from 'p-limit';
import { isCorrect, loaded } from '../metrics.js';
import { renderCatalogue } from '../prompt.js';
import { callErrorText } from '../selectors/model.js';
import { RESULTS_SCHEMA, RESULTS_VERSION, resultsSkill } from '../results.js';
import type {
  Catalogue,
  Decision,
  EvalRequest,
  Lane,
  Progress,
  ResultsFile,
  SelectorRun,
  Skill,
  SystemBlock,
  ToolDeclaration,
} from '../types.js';
import { NONE_TEXT, relevanceBlock, SUGGEST_TEMPLATE } from './block.js';
import { MalformedAnswer, sumUsage, type SuggestChat } from './llm.js';
import { SuggestFailure, suggestable, suggestSkill, type SuggestSettings, type Suggestion } from './suggester.js';
import type { Ranker } from './wide.js';

export const ARMS = ['baseline', 'suggest', 'oracle'] as const;
/** Entries of the wide ranking kept per decision in the results file. */
export const RANKING_KEPT = 10;
export type Arm = (typeof ARMS)[number];

/** The agent's one tool. A free-text name, no enum: a misspelt name is a load of a skill that does not exist. */
export const SKILL_VIEW_TOOL: ToolDeclaration = {
  name: 'skill_view',
  description: "Load a skill: returns its full instructions. Pass the skill's name exactly as the index shows it.",
  parameters: {
    type: 'object',
    properties: { name: { type: 'string', description: 'the skill name, as written in the skill index' } },
    required: ['name'],
  },
};

/** The default preamble over the index (`--preamble FILE` replaces it). It urges loading, as agents' prompts do. */
export const DEFAULT_PREAMBLE = [
  'You are a capable assistant with a library of skills: tested instructions for particular tasks, written by',
  'people who have done them many times. The index below lists every skill by category with a short description.',
  '',
  'Before you answer, look through the index. When a skill matches the task, even in part, call skill_view with',
  'its exact name and follow what it says: its instructions are better than what you would improvise. When the',
  'request needs none of them, answer directly.',
].join('\n');

/** The stable system prompt of the agent under test: preamble and index (cached prefix). */
export function agentIndex(skills: Skill[], preamble: string): string {
  return `${preamble.trim()}\n\n${renderCatalogue(skills, 'hermes')}`;
}

export function agentSystem(index: string, block: string | null): SystemBlock[] {
  const system: SystemBlock[] = [{ text: index, cache: true }];
  if (block !== null) system.push({ text: block });
  return system;
}

/** The agent's first turn on `text`: what it loaded first, if anything. A failed call is an error, never "none". */
export async function agentTurn(
  chat: SuggestChat,
  system: SystemBlock[],
  req: EvalRequest,
  names: Set<string>,
  lane?: Lane,
): Promise<Decision> {
  const base: Decision = { requestId: req.id, run: 0, chosen: null };
  try {
    const result = await chat.chat(
      {
        system,
        messages: [{ role: 'user', content: req.text }],
        tools: [SKILL_VIEW_TOOL],
        toolChoice: 'auto',
        maxOutputTokens: 1024,
      },
      { lane },
    );
    const decision: Decision = {
      ...base,
      usage: result.response.usage,
      costUsd: result.costUsd,
      cached: result.cached,
      latencyMs: result.latencyMs,
    };
    const call = result.response.calls.find((c) => c.name === SKILL_VIEW_TOOL.name);
    if (call) {
      const raw = typeof call.args.name === 'string' ? call.args.name.trim() : JSON.stringify(call.args.name ?? null);
      if (names.has(raw)) decision.chosen = raw;
      else decision.rawChoice = raw;
    }
    return decision;
  } catch (err) {
    return { ...base, error: failedCallText(err) };
  } finally {
    if (lane) lane.done++;
  }
}

/** A failed call's text (an error decision, counted apart); anything else is a bug and is thrown, not counted. */
function failedCallText(err: unknown): string {
  const cause = err instanceof SuggestFailure ? err.cause : err;
  const text = cause instanceof MalformedAnswer ? cause.message : callErrorText(cause);
  if (text === null) throw cause;
  return text;
}

/** A covered request whose outcome differs between the baseline and the suggest arm. */
export interface ArmFlip {
  requestId: string;
  text: string;
  gold: string;
  baseline: string | null;
  suggest: string | null;
}

export interface ArmComparison {
  /** Covered requests wrong in the baseline and right with the suggestion. */
  fixed: ArmFlip[];
  /** Covered requests right in the baseline and wrong with the suggestion. */
  broken: ArmFlip[];
}

/** Fixed and broken covered requests between two arms; requests with an error in either arm are left out. */
export function compareArms(baseline: SelectorRun, suggest: SelectorRun, requests: EvalRequest[]): ArmComparison {
  const key = (d: Decision) => `${d.requestId}\u0000${d.run}`;
  const after = new Map(suggest.decisions.map((d) => [key(d), d]));
  const byId = new Map(requests.map((r) => [r.id, r]));
  const out: ArmComparison = { fixed: [], broken: [] };
  for (const b of baseline.decisions) {
    const r = byId.get(b.requestId);
    const s = after.get(key(b));
    if (!r || r.gold === null || !s || b.error !== undefined || s.error !== undefined) continue;
    const before = isCorrect(b, r);
    const now = isCorrect(s, r);
    if (before === now) continue;
    const flip: ArmFlip = { requestId: r.id, text: r.text, gold: r.gold, baseline: loaded(b), suggest: loaded(s) };
    (now ? out.fixed : out.broken).push(flip);
  }
  return out;
}

/** What the suggester's own calls cost for one request (0 outside the suggest arm). */
function suggesterCost(d: Decision): number {
  return typeof d.detail?.suggesterCostUsd === 'number' ? d.detail.suggesterCostUsd : 0;
}

/** Cost of one request in one arm: the agent's turn plus, in the suggest arm, the suggester's calls. */
export function requestCost(d: Decision): number {
  return (d.costUsd ?? 0) + suggesterCost(d);
}

export interface SuggestEvalInput {
  catalogue: Catalogue;
  requests: EvalRequest[];
  /** The agent under test. */
  agent: SuggestChat;
  /** The suggester's model (often the same client). */
  suggester: SuggestChat;
  settings: SuggestSettings;
  /** `--wide similarity`: the embedding ranker over the catalogue. */
  ranker?: Ranker;
  preamble: string;
  /** Where the preamble came from: 'default' or the file given. */
  preambleSource: string;
  progress?: Progress;
  /** Requests in flight at once (the client limits provider calls on its own). */
  concurrency?: number;
  /** Extra settings to record (provider, embeddings, cache...). */
  extraSettings?: Record<string, unknown>;
}

export interface SuggestEvalOutcome {
  results: ResultsFile;
  comparison: ArmComparison;
}

const VERSION: string = createRequire(import.meta.url)('../../package.json').version;

/** Runs the three arms over every request and returns the results file (decisions of the three arms). */
export async function runSuggestEval(input: SuggestEvalInput): Promise<SuggestEvalOutcome> {
  const { catalogue, requests, agent, suggester, settings } = input;
  const skills = suggestable(catalogue.skills);
  const names = new Set(skills.map((s) => s.name));
  const index = agentIndex(catalogue.skills, input.preamble);
  const n = requests.length;
  const lanes = {
    baseline: input.progress?.lane('baseline', n),
    suggester: input.progress?.lane('suggester', n),
    suggest: input.progress?.lane('suggest', n),
    oracle: input.progress?.lane('oracle', n),
  };
  const limit = pLimit(input.concurrency ?? 8);
  const rows = await Promise.all(
    requests.map((req) =>
      limit(async () => {
        const oracleTurn = agentTurn(agent, agentSystem(index, relevanceBlock(req.gold)), req, names, lanes.oracle);
        // The suggest arm's turn waits for the oracle's: when the suggestion is the oracle's answer the two prompts are
        // identical, and the cache then gives both arms the same answer instead of two samples.
        const [baseline, oracle, suggest] = await Promise.all([
          agentTurn(agent, agentSystem(index, null), req, names, lanes.baseline),
          oracleTurn,
          suggestArm(input, index, skills, names, req, lanes.suggester, lanes.suggest, oracleTurn),
        ]);
        return { baseline, oracle, suggest };
      }),
    ),
  );
  const runOf = (arm: Arm, decisions: Decision[]): SelectorRun => ({
    selector: arm,
    kind: 'decision',
    provider: agent.provider,
    model: agent.model,
    ...(arm === 'oracle' ? { ceiling: true } : {}),
    decisions,
  });
  const baselineRun = runOf('baseline', rows.map((r) => r.baseline));
  const suggestRun = runOf('suggest', rows.map((r) => r.suggest));
  suggestRun.extraCostUsd = suggestRun.decisions.reduce((sum, d) => sum + suggesterCost(d), 0);
  const oracleRun = runOf('oracle', rows.map((r) => r.oracle));
  const comparison = compareArms(baselineRun, suggestRun, requests);
  markFlips(suggestRun, comparison);
  const results: ResultsFile = {
    schema: RESULTS_SCHEMA,
    version: RESULTS_VERSION,
    command: 'suggest-eval',
    createdAt: new Date().toISOString(),
    skillbenchVersion: VERSION,
    settings: {
      ...settings,
      agent: { provider: agent.provider, model: agent.model },
      suggester: { provider: suggester.provider, model: suggester.model },
      preamble: input.preambleSource,
      preambleText: input.preamble,
      blockWording: { suggest: SUGGEST_TEMPLATE, none: NONE_TEXT },
      tool: SKILL_VIEW_TOOL.name,
      ...input.extraSettings,
    },
    catalogue: {
      source: catalogue.source,
      format: 'hermes',
      skills: catalogue.skills.map(resultsSkill),
    },
    requests,
    runs: [baselineRun, suggestRun, oracleRun],
  };
  return { results, comparison };
}

async function suggestArm(
  input: SuggestEvalInput,
  index: string,
  skills: Skill[],
  names: Set<string>,
  req: EvalRequest,
  suggesterLane: Lane | undefined,
  agentLane: Lane | undefined,
  after: Promise<unknown>,
): Promise<Decision> {
  let suggestion: Suggestion;
  try {
    suggestion = await suggestSkill(req.text, {
      chat: input.suggester,
      skills,
      settings: input.settings,
      ranker: input.ranker,
      lane: suggesterLane,
    });
  } catch (err) {
    const calls = err instanceof SuggestFailure ? err.calls : [];
    // The client counts failed calls in the lane; an answer that is not the JSON asked for is counted here.
    if (suggesterLane && err instanceof SuggestFailure && err.cause instanceof MalformedAnswer) suggesterLane.errors++;
    if (agentLane) {
      agentLane.done++;
      agentLane.errors++;
    }
    return {
      requestId: req.id,
      run: 0,
      chosen: null,
      error: `suggester: ${failedCallText(err)}`,
      detail: { suggesterCostUsd: calls.reduce((s, c) => s + c.costUsd, 0), suggesterCalls: calls },
    };
  } finally {
    if (suggesterLane) suggesterLane.done++;
  }
  await after;
  const decision = await agentTurn(input.agent, agentSystem(index, suggestion.block), req, names, agentLane);
  // The wide ranking's head (a similarity ranking covers the whole catalogue: keep the results file small).
  decision.scores = suggestion.ranking.slice(0, RANKING_KEPT);
  decision.detail = suggestionDetail(suggestion);
  return decision;
}

/** What the results file keeps of a suggestion, per decision. */
export function suggestionDetail(s: Suggestion): Record<string, unknown> {
  return {
    suggested: s.skill,
    exit: s.exit,
    gate: s.gate,
    shortlist: s.shortlist,
    pick: s.pick,
    suggesterCostUsd: s.costUsd,
    suggesterUsage: sumUsage(s.calls.map((c) => c.usage)),
    suggesterCalls: s.calls.map((c) => ({ stage: c.stage, cached: c.cached, costUsd: c.costUsd })),
  };
}

function markFlips(run: SelectorRun, comparison: ArmComparison): void {
  const fixed = new Set(comparison.fixed.map((f) => f.requestId));
  const broken = new Set(comparison.broken.map((f) => f.requestId));
  for (const d of run.decisions) {
    if (fixed.has(d.requestId)) d.detail = { ...d.detail, versusBaseline: 'fixed' };
    if (broken.has(d.requestId)) d.detail = { ...d.detail, versusBaseline: 'broken' };
  }
}
