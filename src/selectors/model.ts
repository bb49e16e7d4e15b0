// The model selector: the level-1 catalogue in the system prompt (a cacheable block), a short fixed instruction, and
// the activate_skill tool with the catalogue's names as an enum. Only the first turn is run: the first activate_skill
// call is the decision; no call is "none"; a name outside the enum is a wrong load kept as rawChoice; a call that
// failed is an error, counted apart.
import { renderCatalogue } from '../prompt.js';
import { activateSkillTool } from '../tools.js';
import { ProviderError } from '../errors.js';
import type { CatalogueFormat, ChatRequest, ChatResponse, Decision, EvalRequest, Lane, SelectorRun, Skill } from '../types.js';
import { skillsFor, type SelectorChatClient } from './index.js';

export const MODEL_INSTRUCTION =
  'You are an assistant that can load skills: packaged instructions for specialised tasks. The skills available are ' +
  'listed below with their descriptions. When the user\'s request matches a skill\'s description, call the ' +
  'activate_skill tool with that skill\'s name before doing anything else. When no skill fits the request, answer ' +
  'directly without calling any tool.';

/** The first-turn request for one user message (the same system prompt and tools for every request). */
export function modelRequest(skills: Skill[], format: CatalogueFormat, text: string): Omit<ChatRequest, 'model'> {
  return {
    system: [
      { text: MODEL_INSTRUCTION },
      { text: renderCatalogue(skills, format), cache: true },
    ],
    messages: [{ role: 'user', content: text }],
    tools: [activateSkillTool(skills.map((s) => s.name))],
    toolChoice: 'auto',
    maxOutputTokens: 512,
  };
}

/** The decision a first-turn response makes among `names`. */
export function decisionFromResponse(response: ChatResponse, names: string[], requestId: string, run: number): Decision {
  const decision: Decision = { requestId, run, chosen: null };
  const call = response.calls.find((c) => c.name === 'activate_skill');
  if (!call) return decision;
  const asked = typeof call.args?.name === 'string' ? call.args.name : JSON.stringify(call.args?.name ?? null);
  if (names.includes(asked)) decision.chosen = asked;
  else decision.rawChoice = asked;
  return decision;
}

/** What a failed call leaves on its decision: the error text, its kind, and the stop reason of a response that ended
 * without an answer. Null for anything else (a bug: thrown). */
export function callErrorFields(err: unknown): Pick<Decision, 'error' | 'errorKind' | 'stopReason'> | null {
  const error = callErrorText(err);
  if (error === null) return null;
  const e = err as { name?: string; kind?: string; message?: string };
  if (e.name === 'BudgetExceededError') return { error, errorKind: 'budget' };
  if (e.name === 'CacheMissError') return { error, errorKind: 'cache' };
  if (e.kind === 'stop') {
    const reason = /stop reason (\w+)/.exec(e.message ?? '')?.[1];
    return { error, errorKind: 'stop', ...(reason ? { stopReason: reason } : {}) };
  }
  return { error, errorKind: 'call' };
}

/** What the answer was, for the report's drill-down: its tool calls, its text and why it ended (each when present). */
export function answerRecord(response: ChatResponse): Pick<Decision, 'calls' | 'answer' | 'stopReason'> {
  const out: Pick<Decision, 'calls' | 'answer' | 'stopReason'> = {};
  if (response.calls.length) out.calls = response.calls.map((c) => ({ name: c.name, args: c.args ?? {} }));
  if (response.text.trim()) out.answer = response.text;
  if (response.stopReason) out.stopReason = response.stopReason;
  return out;
}

/** Turns a failed call into the decision's `error` text; anything else is a bug and is thrown. */
export function callErrorText(err: unknown): string | null {
  // ProviderError covers failed calls, --cache-only misses and --dry-run skips (their classes extend it).
  if (err instanceof ProviderError) return err.message;
  // --max-cost reached: the request was not run; it stays an error (never "none") and the run keeps what was done.
  if (err instanceof Error && err.name === 'BudgetExceededError') return err.message;
  return null;
}

/** One request, one run: ask the model, record the decision with its usage, cost and cache state. */
export async function decideWithModel(
  client: SelectorChatClient,
  skills: Skill[],
  format: CatalogueFormat,
  request: EvalRequest,
  run: number,
  lane?: Lane,
): Promise<Decision> {
  const names = skills.map((s) => s.name);
  try {
    const result = await client.chat(modelRequest(skills, format, request.text), { sample: run, lane });
    const decision = { ...decisionFromResponse(result.response, names, request.id, run), ...answerRecord(result.response) };
    decision.usage = result.response.usage;
    decision.costUsd = result.costUsd;
    decision.cached = result.cached;
    decision.latencyMs = result.latencyMs;
    return decision;
  } catch (err) {
    const fields = callErrorFields(err);
    if (fields === null) throw err;
    return { requestId: request.id, run, chosen: null, ...fields };
  } finally {
    if (lane) lane.done++;
  }
}

export interface ModelSelectorOptions {
  format: CatalogueFormat;
  /** Repeats (--runs); the run index is the sample index, so each repeat has its own cache key. */
  runs: number;
  lane?: Lane;
}

export async function runModelSelector(client: SelectorChatClient, skills: Skill[], requests: EvalRequest[], opts: ModelSelectorOptions): Promise<SelectorRun> {
  const jobs: Promise<Decision>[] = [];
  for (let run = 0; run < opts.runs; run++) {
    // A request with its own candidates sees only those skills in its prompt and its tool's enum.
    for (const r of requests) jobs.push(decideWithModel(client, skillsFor(skills, r), opts.format, r, run, opts.lane));
  }
  return { selector: 'model', kind: 'decision', provider: client.provider, model: client.model, decisions: await Promise.all(jobs) };
}
