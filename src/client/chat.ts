// One chat request through a client: the cache first; then --cache-only and --dry-run stop; then the identical call
// in flight, the batch queue, or a live call within the -j limit, with the budget, retries, figures and cache.
import { makeEntry } from '../cache.js';
import { ProviderError } from '../errors.js';
import { CallError, stopError } from '../providers/shared.js';
import type { ChatRequest, ChatResponse, Lane, ProviderId } from '../types.js';
import { chatCacheKey } from './cache-modes.js';
import { retryHooks, type ClientCore } from './core.js';
import { CacheMissError, DryRunError } from './errors.js';
import { estimateCall, estimatePrefixTokens } from './estimate.js';
import { withDefaults } from './provider-config.js';
import { withRetries } from './retry.js';
import { costOfUsage, type ChatTally } from './tally.js';
import type { ChatOptions, ChatResult, ClientRequest } from './types.js';

/** The cache first; then --cache-only and --dry-run stop; then the identical call in flight, or a live call. */
export async function chat(core: ClientCore, req0: ClientRequest, o: ChatOptions = {}): Promise<ChatResult> {
  const req = withDefaults(req0, core.cfg.model, core.plan);
  const sample = o.sample ?? 0;
  const key = chatCacheKey(core.cfg.provider, core.cfg.model, req, sample);
  const t0 = performance.now();
  if (core.readsCache) {
    const replayed = await replayFromCache(core, key, o.lane, t0);
    if (replayed) return replayed;
  }
  if (core.opts.cacheOnly) {
    core.tally.missed(o.lane);
    throw new CacheMissError(describe(req));
  }
  if (core.opts.dryRun) {
    core.dryRun.wouldCall(await estimateCall(req, core.price), await estimatePrefixTokens(req), key);
    throw new DryRunError();
  }
  if (core.batch) return core.batch.enqueue(req, key, sample, o.lane, t0);
  return callOnce(core, req, key, sample, o.lane, t0);
}

/** The cached answer to `key`, or null. Its cost is the one recorded when it was paid (a loopback server's answers
 * stay free), else its usage at today's list price. */
async function replayFromCache(core: ClientCore, key: string, lane: Lane | undefined, t0: number): Promise<ChatResult | null> {
  const hit = await core.cache.get(key);
  if (!hit?.response) return null;
  const response = hit.response;
  const costUsd = typeof hit.costUsd === 'number' ? hit.costUsd : costOfUsage(core.price, response.usage);
  core.tally.served(response.usage, costUsd, lane);
  if (core.opts.dryRun) core.dryRun.cached++;
  return { response, cached: true, costUsd, latencyMs: performance.now() - t0 };
}

/** A live call, made once for identical requests in flight at the same time (two selectors asking the same thing):
 * the later callers share its answer and pay nothing. */
export async function callOnce(core: ClientCore, req: ChatRequest, key: string, sample: number, lane: Lane | undefined, t0: number): Promise<ChatResult> {
  const pending = core.inFlight.get(key);
  if (pending) return shareInFlight(core.tally, pending, lane, t0);
  const call = callLive(core, req, key, sample, lane);
  core.inFlight.set(key, call);
  try {
    return await call;
  } finally {
    core.inFlight.delete(key);
  }
}

/** A later caller of a call in flight: its answer counts as a cache hit. Its failure after retries (a ProviderError)
 * is this request's failure too, so this request's lane counts it; the totals counted it once, with the call. A
 * budget refusal is not an error for either caller. */
async function shareInFlight(tally: ChatTally, pending: Promise<ChatResult>, lane: Lane | undefined, t0: number): Promise<ChatResult> {
  let r: ChatResult;
  try {
    r = await pending;
  } catch (err) {
    if (err instanceof ProviderError) tally.sharedCallFailed(lane);
    throw err;
  }
  tally.served(r.response.usage, r.costUsd, lane);
  return { ...r, cached: true, latencyMs: performance.now() - t0 };
}

/** One call to the provider, within the -j limit: budget reserved, retries, the answer counted and cached. */
function callLive(core: ClientCore, req: ChatRequest, key: string, sample: number, lane: Lane | undefined): Promise<ChatResult> {
  return core.limit(async () => {
    // A stopped run refuses at once: no budget reserved, no provider loaded, no network.
    const stopped = core.breaker.stopped();
    if (stopped) {
      core.tally.failed(lane);
      throw stopped;
    }
    const reserved = await core.budget.reserve(req);
    const p = await core.provider();
    if (lane) lane.inFlight++;
    const started = performance.now();
    try {
      const response = await withRetries(core.cfg.provider, core.policy, (signal) => p.chat(req, signal), retryHooks(core));
      const costUsd = costOfUsage(core.price, response.usage);
      core.tally.paid(response.usage, costUsd, lane);
      // A response that ended without an answer (length, safety, refusal) was paid for, but it is an error row with
      // its reason, never a "none" decision, and it is not cached: a rerun asks again.
      const stop = unansweredError(core.cfg.provider, response);
      if (stop) {
        core.tally.stoppedWithout(response.stopKind!);
        throw stop;
      }
      // Written before the caller sees it: a run killed after this point never pays for this request again.
      if (core.writesCache) await core.cache.put(makeEntry(key, 'chat', core.cfg.provider, req, sample, { response, costUsd }));
      return { response, cached: false, costUsd, latencyMs: performance.now() - started };
    } catch (err) {
      if (err instanceof CallError && err.kind !== 'stop') core.breaker.record(err);
      core.tally.failed(lane);
      throw err;
    } finally {
      core.budget.release(reserved);
      if (lane) lane.inFlight--;
    }
  });
}

/** The error row of a response that ended without the answer or call it was asked for (length, safety, refusal,
 * ...), or null when it answered. Live and batch answers alike. */
export function unansweredError(provider: ProviderId, response: ChatResponse): CallError | null {
  if (response.calls.length || !response.stopKind || response.stopKind === 'stop' || response.stopKind === 'tool') return null;
  return stopError(provider, response.stopKind, response.stopReason);
}

function describe(req: ChatRequest): string {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  const text = last && last.role === 'user' ? last.content : '';
  return `${req.model}: "${text.length > 60 ? `${text.slice(0, 60)}...` : text}"`;
}
