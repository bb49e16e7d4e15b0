// `improve --dry-run`: what the loop would call and cost. The loop runs with the client in dry-run mode, so whatever
// the cache holds (a rerun, an interrupted run) is replayed for free; from the first step the cache does not hold,
// the rest is estimated: the uncached scoring calls of that step, then per iteration left one rewriter call and up
// to (candidates kept) × (requests) scoring calls. Input tokens are counted offline (o200k), outputs assumed: the
// client's 200 tokens per selection call, the rewriter's output cap per rewriter call (an upper bound).
import { ESTIMATED_OUTPUT_TOKENS, estimateInputTokens, resolveConfig, type ChatClient } from '../client.js';
import { costAt, priceOf } from '../providers/pricing.js';
import type { Host } from '../hosts/profile.js';
import { hostFrame } from '../hosts/request.js';
import { DESCRIPTION_MAX } from '../validate.js';
import type { ProviderOptions } from '../options.js';
import type { EvalRequest, ImproveCandidate, Skill } from '../types.js';
import { rewriterMaxTokens, rewriterSystem, rewriterUser } from './rewriter.js';

/** Where the dry run left the cache: the iteration (0: the original's scoring), and what was not cached there. */
export interface DryRunStop {
  iteration: number;
  /** Scoring calls of that step not in the cache. */
  uncachedScoring: number;
  /** The step was the iteration's rewriter call. */
  atRewriter: boolean;
}

export interface DryRunPlan {
  opts: ProviderOptions & { iterations: number; candidates: number; prescreen?: string; prescreenKeep: number };
  /** The host whose prompt the scoring calls reproduce. */
  host: Host;
  loop: { stop?: DryRunStop; completed: ImproveCandidate[] };
  inputs: { skills: Skill[]; target: Skill; requests: EvalRequest[] };
  scorer: ChatClient;
  rewriter: ChatClient;
}

export async function dryRunEstimate(plan: DryRunPlan): Promise<string> {
  const { opts, host, loop, inputs, scorer, rewriter } = plan;
  const n = inputs.requests.length;
  const perIteration = opts.prescreen ? Math.min(opts.prescreenKeep, opts.candidates) : opts.candidates;
  const cached = scorer.dryRunReport().cached + (rewriter === scorer ? 0 : rewriter.dryRunReport().cached);
  const header = `dry run, nothing called (${scorer.provider}/${scorer.model}${rewriter === scorer ? '' : `; rewriter ${rewriter.provider}/${rewriter.model}`}): improve ${inputs.target.name} on ${n} requests, up to ${opts.iterations} iterations of ${opts.candidates} candidates${opts.prescreen ? ` (${perIteration} kept by the ${opts.prescreen} pre-screen)` : ''}`;
  const stop = loop.stop;
  if (!stop) {
    return `${header}\n  every call of the loop is in the cache (${cached.toLocaleString('en-US')} answers): no call would be made; run without --dry-run to see the report (free)`;
  }
  const left = opts.iterations - stop.iteration + (stop.atRewriter ? 1 : 0);
  const scoring = stop.uncachedScoring + left * perIteration * n;
  const calls = scoring + left;

  const { baseUrl } = resolveConfig(opts);
  const scoringIn = await scoringInputTokens(scorer.model, inputs, host);
  const rewriteIn = await rewriterInputTokens(rewriter.model, inputs, opts.candidates);
  const rewriteOut = rewriterMaxTokens(opts.candidates);
  const scoreTokens = { input: (stop.uncachedScoring / n) * scoringIn + left * perIteration * scoringIn, output: scoring * ESTIMATED_OUTPUT_TOKENS };
  const rewriteTokens = { input: left * rewriteIn, output: left * rewriteOut };
  const cost = (c: ChatClient, t: { input: number; output: number }) => {
    const price = priceOf(c.provider, c.model, { baseUrl });
    return price ? costAt(price, { inputTokens: Math.round(t.input), cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: Math.round(t.output), thinkingTokens: 0 }) : null;
  };
  const costs = [cost(scorer, scoreTokens), cost(rewriter, rewriteTokens)];
  const dollars = costs.some((c) => c === null) ? 'price unknown' : `~$${(costs[0]! + costs[1]!).toFixed(4)}`;
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  const where = stop.iteration === 0 ? "the original description's scoring" : stop.atRewriter ? `the rewriter call of iteration ${stop.iteration}` : `the scoring of iteration ${stop.iteration}`;
  return [
    header,
    `  answered from the cache: ${fmt(cached)} calls; the cache stops at ${where}`,
    `  would be made, at most: ${fmt(stop.uncachedScoring)} scoring calls now, then ${left} iteration${left === 1 ? '' : 's'} × (1 rewriter call + ${perIteration} candidates × ${n} requests) = ${fmt(calls)} calls`,
    `  ~${fmt(scoreTokens.input + rewriteTokens.input)} input + ~${fmt(scoreTokens.output + rewriteTokens.output)} output tokens, ${dollars} at list price (fewer when no train failure is left or a candidate repeats one already scored)`,
    `  (input counted offline with the o200k tokenizer, an estimate for non-OpenAI models; ${ESTIMATED_OUTPUT_TOKENS} output tokens per scoring call, ${fmt(rewriteOut)} per rewriter call: its cap)`,
  ].join('\n');
}

/** Input tokens of scoring one candidate: every request with the catalogue as it is now. */
async function scoringInputTokens(model: string, inputs: DryRunPlan['inputs'], host: Host): Promise<number> {
  let total = 0;
  const frame = hostFrame(host, inputs.skills);
  for (const r of inputs.requests) total += await estimateInputTokens({ model, ...frame.request(r.text) });
  return total;
}

/** Input tokens of one rewriter call, every positive counted as a failure and a full-length history (an upper bound). */
async function rewriterInputTokens(model: string, inputs: DryRunPlan['inputs'], count: number): Promise<number> {
  const skill = inputs.target;
  const positives = inputs.requests.filter((r) => r.gold === skill.name).map((r) => ({ text: r.text, loaded: null }));
  const input = {
    skill,
    current: skill.description,
    others: inputs.skills.filter((s) => s.name !== skill.name),
    missed: positives,
    falseTriggers: [],
    handled: [],
    history: Array.from({ length: 6 }, () => ({ description: skill.description, train: '0/0' })),
    count,
    maxChars: DESCRIPTION_MAX,
  };
  return estimateInputTokens({ model, system: [{ text: rewriterSystem(input) }], messages: [{ role: 'user', content: rewriterUser(input) }], tools: [] });
}
