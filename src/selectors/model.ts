// The model selector: the first turn of the host's prompt (generic by default: the lean catalogue in the system
// prompt and activate_skill with the names as an enum; or the prompt of the agent named by --host), and the decision
// read the way that host would act on it. Only the first turn is run: its first load is the decision; no call is
// "none"; a name outside the catalogue is a wrong load kept as rawChoice; calls that load nothing, and failed calls,
// are errors, counted apart.
import { ProviderError } from '../errors.js';
import { readDecision, undecidedText } from '../hosts/decision.js';
import type { Host } from '../hosts/profile.js';
import { hostFrame, type HostFrame } from '../hosts/request.js';
import type { ChatResponse, Decision, EvalRequest, Lane, SelectorRun, Skill } from '../types.js';
import { skillsFor, type SelectorChatClient } from './index.js';

/** The stop reason recorded on a first turn that called tools without loading a skill. */
export const NO_LOAD_STOP = 'no-load';

/** The decision a first-turn response makes among `skills`, read through the host's loading mechanism. */
export function decisionFromResponse(host: Host, response: ChatResponse, skills: Skill[], requestId: string, run: number): Decision {
  const decision: Decision = { requestId, run, chosen: null };
  const reading = readDecision(host, response.calls, skills);
  if (reading.kind === 'load') decision.chosen = reading.skill;
  else if (reading.kind === 'unknown') decision.rawChoice = reading.asked;
  else if (reading.kind === 'undecided') {
    // The model stopped its first turn to run another tool: no decision to read, an error row, never "none".
    decision.error = undecidedText(host, reading.call);
    decision.errorKind = 'stop';
    decision.stopReason = NO_LOAD_STOP;
  }
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

/** One request, one run: ask the model in the frame's prompt, record the decision with its usage, cost and cache state. */
export async function decideWithModel(
  client: SelectorChatClient,
  frame: HostFrame,
  skills: Skill[],
  request: EvalRequest,
  run: number,
  lane?: Lane,
): Promise<Decision> {
  try {
    const result = await client.chat(frame.request(request.text), { sample: run, lane });
    // The answer's record first: an undecided turn's stop reason (no-load) wins over the response's own.
    const decision = { ...answerRecord(result.response), ...decisionFromResponse(frame.host, result.response, skills, request.id, run) };
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
  host: Host;
  /** Repeats (--runs); the run index is the sample index, so each repeat has its own cache key. */
  runs: number;
  lane?: Lane;
}

export async function runModelSelector(client: SelectorChatClient, skills: Skill[], requests: EvalRequest[], opts: ModelSelectorOptions): Promise<SelectorRun> {
  // One frame per set of skills shown: the whole catalogue (rendered once, every request shares its prefix), or a
  // request's own candidates, which it sees alone in its prompt and its tool's enum, and loads among.
  const frames = new Map<string, { frame: HostFrame; skills: Skill[] }>();
  const frameFor = (r: EvalRequest) => {
    const key = r.candidates ? JSON.stringify([...r.candidates].sort()) : '*';
    let f = frames.get(key);
    if (!f) {
      const shown = skillsFor(skills, r);
      frames.set(key, (f = { frame: hostFrame(opts.host, shown), skills: shown }));
    }
    return f;
  };
  const jobs: Promise<Decision>[] = [];
  for (let run = 0; run < opts.runs; run++) {
    for (const r of requests) {
      const { frame, skills: shown } = frameFor(r);
      jobs.push(decideWithModel(client, frame, shown, r, run, opts.lane));
    }
  }
  return { selector: 'model', kind: 'decision', provider: client.provider, model: client.model, decisions: await Promise.all(jobs) };
}
