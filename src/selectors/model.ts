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
import type { SelectorChatClient } from './index.js';

/** The decision a first-turn response makes among `skills`, read through the host's loading mechanism. */
export function decisionFromResponse(host: Host, response: ChatResponse, skills: Skill[], requestId: string, run: number): Decision {
  const decision: Decision = { requestId, run, chosen: null };
  const reading = readDecision(host, response.calls, skills);
  if (reading.kind === 'load') decision.chosen = reading.skill;
  else if (reading.kind === 'unknown') decision.rawChoice = reading.asked;
  else if (reading.kind === 'undecided') decision.error = undecidedText(host, reading.call);
  return decision;
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
    const decision = decisionFromResponse(frame.host, result.response, skills, request.id, run);
    decision.usage = result.response.usage;
    decision.costUsd = result.costUsd;
    decision.cached = result.cached;
    decision.latencyMs = result.latencyMs;
    return decision;
  } catch (err) {
    const text = callErrorText(err);
    if (text === null) throw err;
    return { requestId: request.id, run, chosen: null, error: text };
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
  // One frame for the whole run: the listing is rendered once and every request shares its prefix.
  const frame = hostFrame(opts.host, skills);
  const jobs: Promise<Decision>[] = [];
  for (let run = 0; run < opts.runs; run++) {
    for (const r of requests) jobs.push(decideWithModel(client, frame, skills, r, run, opts.lane));
  }
  return { selector: 'model', kind: 'decision', provider: client.provider, model: client.model, decisions: await Promise.all(jobs) };
}
