// The chat client every command calls models through: provider + response cache + retries + concurrency + cost
// accounting + --dry-run / --max-cost. Providers are loaded lazily on the first live call, so a --cache-only replay
// needs no key and never imports an SDK.
import pLimit, { type LimitFunction } from 'p-limit';
import { cacheKey, makeEntry, ResponseCache } from './cache.js';
import { Breaker } from './client/breaker.js';
import { Pacer, retryPolicy, withRetries, type RetryPolicy, type RetryTuning } from './client/retry.js';
import { ProviderError, UserError } from './errors.js';
import type { ProviderOptions } from './options.js';
import { findModel, today } from './providers/models.js';
import { applyPlan, parseThinkingFlag, planModel, promptCacheNote, type ModelPlan } from './providers/params.js';
import {
  baseUrlFrom,
  defaultChatModel,
  defaultConcurrency,
  KEY_VARS,
  keyFrom,
  keyOptional,
  loadChatProvider,
  LOCAL_PLACEHOLDER_KEY,
  PROVIDERS,
} from './providers/index.js';
import { batchPriceOf, costAt, isLocalBaseUrl, priceOf, type Price } from './providers/pricing.js';
import { BatchQueue, batchSettings, type BatchHost, type BatchStats } from './batch/queue.js';
import { formatBatchStats } from './batch/summary.js';
import { BatchStore } from './batch/store.js';
import { loadBatchApi, type BatchApi } from './providers/batch/index.js';
import { CallError, stopError } from './providers/shared.js';
import { registerSecret, registerUrlSecrets, knownSecrets, safeUrl } from './secrets.js';
import type { ChatProvider, ChatRequest, ChatResponse, Lane, ProviderId, Usage } from './types.js';

export { backoffMs, retryPolicy, withRetries, Pacer, type RetryPolicy } from './client/retry.js';
export { RunStoppedError, explainFailure, TRIP_AFTER } from './client/breaker.js';
export { createEmbedder, type Embedder } from './client/embedder.js';

// ---------------------------------------------------------------- errors

/** `--cache-only` and the response is not in the cache. A ProviderError, so callers record it as an error result;
 * the command reads `stats().cacheMisses` to say how many requests are missing. */
export class CacheMissError extends ProviderError {
  constructor(what: string) {
    super(`not in the cache (--cache-only): ${what}`, undefined, false);
    this.name = 'CacheMissError';
  }
}

/** `--dry-run` and the response is not cached: the call was recorded in dryRunReport(), not made. */
export class DryRunError extends ProviderError {
  constructor() {
    super('dry run: call not made', undefined, false);
    this.name = 'DryRunError';
  }
}

/** `--max-cost`: the next call could take spending past the limit. Not a ProviderError: commands catch it, keep what
 * was done, and say so. Once thrown, every later live call throws it too (cached answers are still served). */
export class BudgetExceededError extends Error {
  constructor(
    readonly maxCostUsd: number,
    readonly spentUsd: number,
  ) {
    super(`--max-cost $${maxCostUsd} reached: spent $${spentUsd.toFixed(4)}, the next call could exceed it; stopped calling`);
    this.name = 'BudgetExceededError';
  }
}

// ---------------------------------------------------------------- types

export interface ChatResult {
  response: ChatResponse;
  cached: boolean;
  /** List price of this response's usage (the same whether it was replayed or paid now; see stats().spentUsd). */
  costUsd: number;
  latencyMs: number;
}

export type ClientRequest = Omit<ChatRequest, 'model'>;

export interface ChatOptions {
  /** Repeat index of the same request (--runs); 0 for the first. */
  sample?: number;
  /** The progress lane to count this request in. */
  lane?: Lane;
}

export interface ClientStats {
  provider: ProviderId;
  model: string;
  /** Live calls that succeeded (retries not counted). */
  calls: number;
  cacheHits: number;
  /** --cache-only misses. */
  cacheMisses: number;
  /** Requests that failed after their retries (cache misses and dry-run skips not included). */
  errors: number;
  /** Of the errors: responses that ended without an answer, by stop reason (length, safety, refusal, ...). */
  stopped: Record<string, number>;
  /** Why the run stopped calling (the fail-fast breaker), or null. */
  runStopped: string | null;
  /** One-line notes about the model (unknown to the table, retiring soon). */
  notes: string[];
  retries: number;
  /** Tokens of every result returned (live and cached). */
  tokens: Usage;
  /** Dollars paid in this run (live calls). */
  spentUsd: number;
  /** List price of every result returned (what the run costs without a cache). */
  costUsd: number;
  /** False when the model's price is unknown: dollar figures are then 0, not estimates. */
  priceKnown: boolean;
  corruptCacheEntries: number;
  cacheWarnings: string[];
  budgetExceeded: boolean;
  /** Batch mode: jobs submitted and picked up, requests that expired or failed in them. */
  batch?: BatchStats;
}

export interface DryRunReport {
  provider: ProviderId;
  model: string;
  /** Calls that would be made (not cached). */
  calls: number;
  /** Requests answered from the cache. */
  cached: number;
  estimatedInputTokens: number;
  estimatedOutputTokens: number;
  /** At list price; null when the price is unknown. */
  estimatedCostUsd: number | null;
  /** How the estimate was made. */
  method: string;
  /** Whether the stable prefix (tools + catalogue) reaches the model's prompt-cache minimum. */
  promptCache?: string;
  /** Batch mode: the same calls at the batch price (null: unknown), and how many are in jobs already submitted. */
  batch?: { multiplier: number | null; estimatedCostUsd: number | null; alreadySubmitted: number };
}

export interface ChatClient {
  provider: ProviderId;
  model: string;
  chat(req: ClientRequest, o?: ChatOptions): Promise<ChatResult>;
  /** Exact input tokens of a request where the provider has a counting API (gemini, anthropic), else null. */
  countTokens(req: ClientRequest): Promise<number | null>;
  stats(): ClientStats;
  dryRunReport(): DryRunReport;
  /** One or two lines for the end of a run: calls, cache hits, tokens, dollars, errors, misses, warnings. */
  summary(): string;
  /** The cache key of a request as this client would send it (benchmarks fill caches with it). */
  keyOf(req: ClientRequest, sample?: number): string;
  /**
   * Present in batch mode (ProviderOptions.batch, --batch): chat() calls that are not cached join a queue that is
   * submitted through the provider's batch API once no new call has come for a moment (see src/batch/queue.ts).
   * `hold()` keeps the queue from being submitted until the function it returns is called: take one before an
   * asynchronous step after which more calls follow, so that they all go in one batch.
   */
  batch?: { hold(): () => void };
}

/** What the selectors, the suggester and the agent loop need of a client: one call, its provider and model. */
export type ChatCaller = Pick<ChatClient, 'provider' | 'model' | 'chat'>;

/** Knobs tests and benchmarks set; the CLI uses the defaults (see client/retry.ts). */
export interface ClientTuning extends RetryTuning {
  env?: NodeJS.ProcessEnv;
  /** Embeddings: called once, before the model is first loaded or called (a vector is not in the disk cache). */
  onEmbeddingLoad?: () => void;
  /** Where batch mode says what it submits and waits for (default: stderr). */
  notice?: (line: string) => void;
}

export interface ResolvedConfig {
  provider: ProviderId;
  model: string;
  apiKey?: string;
  keyVariable?: string;
  baseUrl?: string;
  timeoutMs: number;
  concurrency: number;
}

// ---------------------------------------------------------------- resolution

/** Which provider a key exists for (gemini, anthropic, openai, in that order), or null. */
export function availableChatProvider(env: NodeJS.ProcessEnv = process.env): ProviderId | null {
  for (const p of PROVIDERS) if (keyFrom(p, env).value) return p;
  return null;
}

export function resolveConfig(opts: ProviderOptions, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  let provider = opts.provider as ProviderId | undefined;
  if (provider && !PROVIDERS.includes(provider)) {
    throw new UserError(`--provider: unknown provider "${provider}"`, `use one of ${PROVIDERS.join(', ')}`);
  }
  // A bare --base-url or OPENAI_BASE_URL with no key (Ollama, vLLM) means an OpenAI-compatible server.
  provider ??= availableChatProvider(env) ?? (opts.baseUrl || env.OPENAI_BASE_URL ? 'openai' : undefined);
  if (!provider) {
    throw new UserError(
      'no model provider: no API key is set',
      `set GEMINI_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY, pass --provider and --base-url for a local server, or replay with --provider <id> --cache-only`,
    );
  }
  const baseUrl = baseUrlFrom(provider, opts.baseUrl, env);
  const key = keyFrom(provider, env);
  // What is sent is what must never be written: the key as sent (trimmed), and credentials in the base URL.
  registerSecret(key.value);
  registerUrlSecrets(baseUrl);
  const noCallNeeded = Boolean(opts.cacheOnly || opts.dryRun);
  if (!key.value && !keyOptional(provider, baseUrl) && !noCallNeeded) {
    const vars = KEY_VARS[provider];
    throw new UserError(
      `no API key for ${provider}: ${vars[0]} is not set`,
      `export ${vars[0]}=...${vars.length > 1 ? ` (or ${vars.slice(1).join(', ')})` : ''}, or replay cached responses with --cache-only`,
    );
  }
  const timeoutS = opts.timeout === undefined || opts.timeout === 0 ? (opts.timeout === 0 ? 600 : 60) : opts.timeout;
  return {
    provider,
    model: opts.model?.trim() || defaultChatModel(provider),
    apiKey: key.value ?? (keyOptional(provider, baseUrl) ? LOCAL_PLACEHOLDER_KEY : undefined),
    keyVariable: key.variable,
    baseUrl,
    timeoutMs: Math.round(timeoutS * 1000),
    concurrency: opts.concurrency ?? defaultConcurrency(provider, baseUrl),
  };
}

/** --thinking as given: undefined when not given (the model table's setting for the model then applies). */
export const parseThinking = parseThinkingFlag;

// ---------------------------------------------------------------- the client

/** The request as sent and as keyed: the client's model, and the parameters the model table allows (applyPlan). */
export function withDefaults(req: ClientRequest, model: string, plan: ModelPlan = { row: null, thinking: undefined, notes: [] }): ChatRequest {
  return applyPlan(req, model, plan);
}

/** The model's plan for a configuration: its table row, thinking parameter and notes (throws on a retired model or a
 * --thinking it does not take: before any call). */
export function modelPlan(cfg: Pick<ResolvedConfig, 'provider' | 'model' | 'baseUrl'>, thinking: string | undefined, env: NodeJS.ProcessEnv = process.env): ModelPlan {
  const local = cfg.provider === 'openai' && Boolean(cfg.baseUrl) && (isLocalBaseUrl(cfg.baseUrl) || keyOptional(cfg.provider, cfg.baseUrl));
  return planModel(cfg.provider, cfg.model, findModel(cfg.provider, cfg.model), parseThinkingFlag(thinking), today(env), local);
}

/** What the cache options ask for; a contradiction is bad input. */
export function cacheModes(opts: Pick<ProviderOptions, 'cache' | 'cacheWrite' | 'cacheOnly'>): { read: boolean; write: boolean } {
  if (opts.cache === false && opts.cacheOnly) {
    throw new UserError('--no-cache and --cache-only contradict each other (one never reads the cache, the other only reads it)', 'keep one of them');
  }
  return { read: opts.cache !== false || Boolean(opts.cacheOnly), write: opts.cache !== false && opts.cacheWrite !== false };
}

/** The cache key of a chat request (`req` as returned by withDefaults). */
export function chatCacheKey(provider: ProviderId, model: string, req: ChatRequest, sample = 0): string {
  return cacheKey({ op: 'chat', provider, model, request: req, sample });
}

const ZERO: Usage = { inputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, thinkingTokens: 0 };
/** Dry-run and --max-cost output estimate: selection answers are short; a budget check must not be too timid. */
export const ESTIMATED_OUTPUT_TOKENS = 200;

export async function createChatClient(opts: ProviderOptions, tuning: ClientTuning = {}): Promise<ChatClient> {
  const core = clientCore(opts, tuning);
  if (opts.batch && !opts.dryRun) core.batch = new BatchQueue(batchHost(core, tuning));
  const batch = core.batch;
  return {
    ...(batch ? { batch: { hold: () => batch.hold() } } : {}),
    provider: core.cfg.provider,
    model: core.cfg.model,
    chat: (req, o) => chat(core, req, o),
    countTokens: (req) => countTokens(core, req),
    stats: () => clientStats(core),
    dryRunReport: () => core.dryRun.report(core.cfg, core.price, core.plan),
    summary: () => clientSummary(core),
    keyOf: (req, sample = 0) => chatCacheKey(core.cfg.provider, core.cfg.model, withDefaults(req, core.cfg.model, core.plan), sample),
  };
}

/** What every call of one client shares: its settings, cache, concurrency limit, figures and calls in flight. */
interface ClientCore {
  opts: ProviderOptions;
  cfg: ResolvedConfig;
  /** The model's table row, its thinking parameter and notes (see providers/params.ts). */
  plan: ModelPlan;
  policy: RetryPolicy;
  /** Every lane waits when the server asks one to, and fewer attempts fly after a 429. */
  pacer: Pacer;
  /** Stops the run after the first few calls fail the same way waiting cannot cure. */
  breaker: Breaker;
  cache: ResponseCache;
  /** Look answers up in the cache: unless --no-cache (always with --cache-only). */
  readsCache: boolean;
  /** Keep live answers in the cache: unless --no-cache or --no-cache-write. */
  writesCache: boolean;
  limit: LimitFunction;
  /** Null when the model's list price is unknown: dollar figures are then 0 and --max-cost cannot be enforced. */
  price: Price | null;
  tally: ChatTally;
  dryRun: DryRunTally;
  budget: Budget;
  provider: () => Promise<ChatProvider>;
  /** Live calls not yet answered, by cache key. */
  inFlight: Map<string, Promise<ChatResult>>;
  /** Batch mode (--batch): uncached calls go through the provider's batch API. */
  batch: BatchQueue | null;
}

function clientCore(opts: ProviderOptions, tuning: ClientTuning): ClientCore {
  const env = tuning.env ?? process.env;
  if (opts.batch && opts.cacheOnly) {
    throw new UserError('--batch and --cache-only: --cache-only never calls, so there is nothing to batch', 'drop one of them');
  }
  const cfg = resolveConfig(opts, env);
  const plan = modelPlan(cfg, opts.thinking, env);
  const price = priceOf(cfg.provider, cfg.model, { baseUrl: cfg.baseUrl });
  const tally = new ChatTally();
  // Every key in the environment, as sent (trimmed) and as written there, must stay out of cache files.
  for (const v of Object.values(KEY_VARS).flat()) registerSecret(env[v]);
  const retryDeadlineMs = tuning.retryDeadlineMs ?? (opts.maxRetryTime !== undefined ? Math.round(opts.maxRetryTime * 1000) : undefined);
  const modes = cacheModes(opts);
  return {
    opts,
    cfg,
    plan,
    policy: retryPolicy({ ...tuning, retryDeadlineMs }, env),
    pacer: new Pacer(cfg.concurrency),
    breaker: new Breaker(cfg.provider, cfg.model),
    cache: new ResponseCache(opts.cacheDir ?? '.skillbench/cache', { secrets: knownSecrets() }),
    readsCache: modes.read,
    writesCache: modes.write,
    limit: pLimit(cfg.concurrency),
    price,
    tally,
    dryRun: new DryRunTally(opts.batch ? { price: batchPriceOf(price), store: new BatchStore(opts.cacheDir ?? '.skillbench/cache'), baseUrl: safeUrl(cfg.baseUrl) ?? null } : undefined),
    budget: new Budget(opts.maxCost, tally, price),
    provider: lazyChatProvider(cfg),
    inFlight: new Map(),
    batch: null,
  };
}

/** The provider, loaded on the first live call only: a --cache-only replay needs no key and never imports an SDK. */
function lazyChatProvider(cfg: ResolvedConfig): () => Promise<ChatProvider> {
  let loaded: Promise<ChatProvider> | null = null;
  return () =>
    (loaded ??= (async () => {
      if (!cfg.apiKey) {
        // Only reachable with --cache-only/--dry-run, which never call: a bug if it happens.
        throw new UserError(`no API key for ${cfg.provider}`, `export ${KEY_VARS[cfg.provider][0]}=...`);
      }
      return loadChatProvider(cfg.provider, { apiKey: cfg.apiKey, baseUrl: cfg.baseUrl, model: cfg.model, timeoutMs: cfg.timeoutMs });
    })());
}

// ---------------------------------------------------------------- one chat request

/** The cache first; then --cache-only and --dry-run stop; then the identical call in flight, or a live call. */
async function chat(core: ClientCore, req0: ClientRequest, o: ChatOptions = {}): Promise<ChatResult> {
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
async function callOnce(core: ClientCore, req: ChatRequest, key: string, sample: number, lane: Lane | undefined, t0: number): Promise<ChatResult> {
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

/** What the batch mode (src/batch/queue.ts) uses of its client: the cache, the figures, the budget at the batch
 * price, the retry loop for the batch API's own calls, and one live call for --batch-retry live. */
function batchHost(core: ClientCore, tuning: ClientTuning): BatchHost {
  const { cfg } = core;
  const batchPrice = batchPriceOf(core.price);
  // Submissions and result files can be large: a batch API call gets at least 5 minutes.
  const timeoutMs = Math.max(cfg.timeoutMs, 300_000);
  let api: Promise<BatchApi> | null = null;
  return {
    provider: cfg.provider,
    model: cfg.model,
    baseUrl: cfg.baseUrl,
    cacheDir: core.opts.cacheDir ?? '.skillbench/cache',
    cache: core.cache,
    batchPrice,
    budgetPrice: batchPrice ?? core.price,
    tally: core.tally,
    reserve: (req, price) => core.budget.reserve(req, price),
    release: (usd) => core.budget.release(usd),
    withRetries: (fn) => withRetries(cfg.provider, core.policy, fn, { ...retryHooks(core), timeoutMs }),
    api: () =>
      (api ??= (async () => {
        // Only reachable with a key (resolveConfig refuses a live run without one): a bug otherwise.
        if (!cfg.apiKey) throw new UserError(`no API key for ${cfg.provider}`, `export ${KEY_VARS[cfg.provider][0]}=...`);
        return loadBatchApi(cfg.provider, { apiKey: cfg.apiKey, baseUrl: cfg.baseUrl, model: cfg.model, timeoutMs });
      })()),
    unanswered: (response) => unansweredError(cfg.provider, response),
    live: (req, key, sample, lane) => callOnce(core, req, key, sample, lane, performance.now()),
    notice: tuning.notice ?? ((line) => console.error(`skillbench: ${line}`)),
    settings: batchSettings(core.opts, tuning.env ?? process.env),
  };
}

/** The retry loop's view of the client: its pacer, breaker, per-attempt timeout and retry counter. */
function retryHooks(core: ClientCore) {
  return {
    pacer: core.pacer,
    timeoutMs: core.cfg.timeoutMs,
    stopped: () => core.breaker.stopped(),
    onRetry: () => void core.tally.retries++,
  };
}

// ---------------------------------------------------------------- token counts

/** Exact input tokens from the provider's counting API, cached like answers; null without such an API, and with
 * --cache-only or --dry-run when not cached. */
async function countTokens(core: ClientCore, req0: ClientRequest): Promise<number | null> {
  const { cfg, opts } = core;
  const req = withDefaults(req0, cfg.model, core.plan);
  const key = cacheKey({ op: 'countTokens', provider: cfg.provider, model: cfg.model, request: req, sample: 0 });
  if (core.readsCache) {
    const hit = await core.cache.get(key);
    if (hit && typeof hit.tokens === 'number') return hit.tokens;
  }
  if (opts.cacheOnly || opts.dryRun) return null;
  const p = await core.provider();
  if (!p.countTokens) return null;
  const n = await core.limit(() => withRetries(cfg.provider, core.policy, (signal) => p.countTokens!(req, signal), retryHooks(core)));
  if (core.writesCache) await core.cache.put(makeEntry(key, 'countTokens', cfg.provider, req, 0, { tokens: n }));
  return n;
}

// ---------------------------------------------------------------- figures

const costOfUsage = (price: Price | null, u: Usage): number => (price ? costAt(price, u) : 0);

function addUsage(total: Usage, u: Usage): void {
  total.inputTokens += u.inputTokens;
  total.cachedInputTokens += u.cachedInputTokens;
  total.cacheWriteTokens += u.cacheWriteTokens;
  total.outputTokens += u.outputTokens;
  total.thinkingTokens += u.thinkingTokens;
}

/** A client's running figures, and the caller's progress lane kept in step with them: every request ends in one
 * of these methods (or in a dry-run skip or a budget refusal, which are neither answers nor errors). */
class ChatTally {
  calls = 0;
  cacheHits = 0;
  cacheMisses = 0;
  errors = 0;
  retries = 0;
  spentUsd = 0;
  costUsd = 0;
  readonly tokens: Usage = { ...ZERO };

  /** An answer not paid for now: replayed from the cache, or shared with the identical call in flight. */
  served(usage: Usage, costUsd: number, lane: Lane | undefined): void {
    this.cacheHits++;
    addUsage(this.tokens, usage);
    this.costUsd += costUsd;
    if (lane) lane.cacheHits++;
  }

  /** A live call that succeeded. */
  paid(usage: Usage, costUsd: number, lane: Lane | undefined): void {
    this.calls++;
    this.spentUsd += costUsd;
    this.costUsd += costUsd;
    addUsage(this.tokens, usage);
    if (lane) {
      lane.inputTokens += usage.inputTokens;
      lane.outputTokens += usage.outputTokens + usage.thinkingTokens;
      lane.costUsd += costUsd;
    }
  }

  /** Of the failures: a response that ended without an answer, by its stop reason. */
  readonly stopped: Record<string, number> = {};

  stoppedWithout(kind: string): void {
    this.stopped[kind] = (this.stopped[kind] ?? 0) + 1;
  }

  /** A live call that failed after its retries. */
  failed(lane: Lane | undefined): void {
    this.errors++;
    if (lane) lane.errors++;
  }

  /** The identical call this request waited for failed: counted in the totals once already, by failed(). */
  sharedCallFailed(lane: Lane | undefined): void {
    if (lane) lane.errors++;
  }

  /** --cache-only and not in the cache: an error for the lane, a miss (not an error) in the totals. */
  missed(lane: Lane | undefined): void {
    this.cacheMisses++;
    if (lane) lane.errors++;
  }
}

/** --max-cost: a live call is refused when what is spent, what the calls in flight may cost and its own estimate
 * could pass the limit. After the first refusal every live call is refused (cached answers are still served). */
class Budget {
  exceeded = false;
  private reservedUsd = 0;

  constructor(
    private readonly maxCostUsd: number | undefined,
    private readonly tally: ChatTally,
    private readonly price: Price | null,
  ) {}

  /** Reserves the call's estimated cost or throws BudgetExceededError; returns what to release when the call ends.
   * With no list price the estimate is 0: the limit cannot be enforced (the summary says so). */
  async reserve(req: ChatRequest, price: Price | null = this.price): Promise<number> {
    if (this.maxCostUsd === undefined) return 0;
    if (this.exceeded) throw new BudgetExceededError(this.maxCostUsd, this.tally.spentUsd);
    const cost = price ? (await estimateCall(req, price)).cost : 0;
    if (this.tally.spentUsd + this.reservedUsd + cost > this.maxCostUsd) {
      this.exceeded = true;
      throw new BudgetExceededError(this.maxCostUsd, this.tally.spentUsd);
    }
    this.reservedUsd += cost;
    return cost;
  }

  release(reservedUsd: number): void {
    this.reservedUsd -= reservedUsd;
  }
}

interface CallEstimate {
  input: number;
  output: number;
  cost: number;
}

/** Offline estimate of a call: input counted, output assumed (see ESTIMATED_OUTPUT_TOKENS) plus any thinking budget. */
async function estimateCall(req: ChatRequest, price: Price | null): Promise<CallEstimate> {
  const input = await estimateInputTokens(req);
  const budget = req.thinking && 'budget' in req.thinking ? req.thinking.budget : 0;
  const output = Math.min(req.maxOutputTokens ?? ESTIMATED_OUTPUT_TOKENS, ESTIMATED_OUTPUT_TOKENS) + budget;
  return { input, output, cost: costOfUsage(price, { ...ZERO, inputTokens: input, outputTokens: output }) };
}

/** --dry-run: the calls that would be made, estimated, and the requests the cache answers. */
class DryRunTally {
  calls = 0;
  cached = 0;
  private input = 0;
  private output = 0;
  private costUsd = 0;
  private batchCostUsd = 0;
  private readonly keys: string[] = [];

  private prefix = 0;

  /** `batch`: --dry-run --batch, with the batch price and the jobs already submitted from this cache folder. */
  constructor(private readonly batch?: { price: Price | null; store: BatchStore; baseUrl: string | null }) {}

  wouldCall(e: CallEstimate, prefixTokens = 0, key?: string): void {
    this.prefix = Math.max(this.prefix, prefixTokens);
    this.calls++;
    this.input += e.input;
    this.output += e.output;
    this.costUsd += e.cost;
    if (this.batch) {
      if (this.batch.price) this.batchCostUsd += costAt(this.batch.price, { ...ZERO, inputTokens: e.input, outputTokens: e.output });
      if (key) this.keys.push(key);
    }
  }

  private batchReport(cfg: ResolvedConfig): DryRunReport['batch'] {
    if (!this.batch) return undefined;
    const { price, store, baseUrl } = this.batch;
    const submitted = new Set(store.open(cfg.provider, cfg.model, baseUrl).flatMap((r) => r.items.map((it) => it.key)));
    return {
      multiplier: price ? (price.batchDiscount ?? 1) : null,
      estimatedCostUsd: price ? this.batchCostUsd : null,
      alreadySubmitted: this.keys.filter((k) => submitted.has(k)).length,
    };
  }

  report(cfg: ResolvedConfig, price: Price | null, plan?: ModelPlan): DryRunReport {
    return {
      ...(this.calls && plan ? { promptCache: promptCacheNote(cfg.provider, cfg.model, plan.row, this.prefix) } : {}),
      provider: cfg.provider,
      model: cfg.model,
      calls: this.calls,
      cached: this.cached,
      estimatedInputTokens: this.input,
      estimatedOutputTokens: this.output,
      estimatedCostUsd: price ? this.costUsd : null,
      method: `input counted offline with the o200k tokenizer (an estimate for non-OpenAI models); output assumed ${ESTIMATED_OUTPUT_TOKENS} tokens per call; list prices of ${cfg.model}`,
      ...(this.batch ? { batch: this.batchReport(cfg) } : {}),
    };
  }
}

function clientStats({ cfg, tally, cache, price, budget, breaker, plan, batch }: ClientCore): ClientStats {
  return {
    provider: cfg.provider,
    model: cfg.model,
    calls: tally.calls,
    cacheHits: tally.cacheHits,
    cacheMisses: tally.cacheMisses,
    errors: tally.errors,
    stopped: { ...tally.stopped },
    runStopped: breaker.reason(),
    notes: [...plan.notes],
    retries: tally.retries,
    tokens: { ...tally.tokens },
    spentUsd: tally.spentUsd,
    costUsd: tally.costUsd,
    // In batch mode the answers paid now are priced at the batch price, which the table may not give.
    priceKnown: batch ? batch.stats.multiplier !== null && price !== null : price !== null,
    corruptCacheEntries: cache.stats.corrupt,
    cacheWarnings: [...cache.stats.warnings],
    budgetExceeded: budget.exceeded,
    ...(batch ? { batch: { ...batch.stats, ids: [...batch.stats.ids] } } : {}),
  };
}

function clientSummary(core: ClientCore): string {
  const text = formatStats(clientStats(core));
  return core.opts.maxCost !== undefined && !core.price ? `${text}\n--max-cost was not enforced: no list price for ${core.cfg.model}` : text;
}

/**
 * With --cache-only, a miss leaves the figures incomplete: the run ends as bad input (exit 2), after its tables and
 * files are written, so what was replayed is kept. Null when every request was in the cache.
 */
export function cacheMissFailure(stats: Pick<ClientStats, 'cacheMisses'>[]): UserError | null {
  const missing = stats.reduce((sum, st) => sum + st.cacheMisses, 0);
  if (!missing) return null;
  return new UserError(
    `${missing.toLocaleString('en-US')} requests were not in the cache (--cache-only): the figures above are incomplete`,
    'run once without --cache-only (with a key) to fill the cache, or check that the catalogue, requests, model and options match the cached run',
  );
}

/** Human summary of a run's provider use. */
export function formatStats(st: ClientStats): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const t = st.tokens;
  const dollars = st.priceKnown ? `$${st.spentUsd.toFixed(4)} spent ($${st.costUsd.toFixed(4)} at list price without the cache)` : 'price unknown';
  const lines: string[] = [];
  if (st.runStopped) lines.push(`run stopped: ${st.runStopped}`);
  lines.push(
    `${st.provider}/${st.model}: ${n(st.calls)} calls, ${n(st.cacheHits)} cached, ${n(st.errors)} errors` +
      `${st.retries ? `, ${n(st.retries)} retries` : ''}; tokens: ${n(t.inputTokens)} input (${n(t.cachedInputTokens)} cache reads` +
      `${t.cacheWriteTokens ? `, ${n(t.cacheWriteTokens)} cache writes` : ''}), ${n(t.outputTokens)} output` +
      `${t.thinkingTokens ? `, ${n(t.thinkingTokens)} thinking` : ''}; ${dollars}`,
  );
  const stops = Object.entries(st.stopped ?? {});
  if (stops.length) lines.push(`${n(stops.reduce((a, [, k]) => a + k, 0))} responses ended without an answer (${stops.map(([k, v]) => `${k} ${n(v)}`).join(', ')}): error rows, not cached`);
  for (const note of st.notes ?? []) lines.push(`note: ${note}`);
  if (st.cacheMisses) lines.push(`${n(st.cacheMisses)} requests missing from the cache (--cache-only): run without --cache-only to fill it`);
  if (st.corruptCacheEntries) {
    const first = st.cacheWarnings.find((w) => w.includes('corrupt')) ?? '';
    lines.push(`${n(st.corruptCacheEntries)} corrupt cache entries ignored (first: ${first})`);
  }
  const other = st.cacheWarnings.filter((w) => !w.includes('corrupt'));
  if (other.length) lines.push(`${n(other.length)} cache warnings (first: ${other[0]})`);
  if (st.budgetExceeded) lines.push('stopped calling: --max-cost reached; results cover what was done before');
  if (st.batch) lines.push(...formatBatchStats(st.batch));
  return lines.join('\n');
}

function describe(req: ChatRequest): string {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  const text = last && last.role === 'user' ? last.content : '';
  return `${req.model}: "${text.length > 60 ? `${text.slice(0, 60)}...` : text}"`;
}

let countText: ((s: string) => number) | null = null;

/** Offline estimate of the stable prefix a provider may cache: the tools and the system blocks up to the last one
 * marked for caching (the catalogue). */
export async function estimatePrefixTokens(req: Pick<ChatRequest, 'system' | 'tools'>): Promise<number> {
  countText ??= (await import('./tokenizer.js')).countTokens;
  const last = req.system.map((b) => Boolean(b.cache)).lastIndexOf(true);
  if (last < 0) return 0;
  const parts = req.system.slice(0, last + 1).map((b) => b.text);
  if (req.tools.length) parts.push(JSON.stringify(req.tools));
  return parts.reduce((a, p) => a + countMemo(p), 0);
}

/** Offline estimate of a request's input tokens (o200k: exact for OpenAI, close for others). */
export async function estimateInputTokens(req: ChatRequest): Promise<number> {
  // The audit's counter: a skill file or a request may hold special-token look-alikes ("<|endoftext|>"), which
  // a tokenizer's default encoding refuses with an exception.
  countText ??= (await import('./tokenizer.js')).countTokens;
  const parts: string[] = req.system.map((b) => b.text);
  for (const m of req.messages) {
    if (m.role === 'user') parts.push(m.content);
    else if (m.role === 'assistant') parts.push(m.text, JSON.stringify(m.calls));
    else parts.push(...m.results.map((r) => r.content));
  }
  if (req.tools.length) parts.push(JSON.stringify(req.tools));
  return parts.reduce((a, p) => a + countMemo(p), 0) + 4 * req.messages.length;
}

/** The catalogue prompt is the same in every request of a run: count long texts once. */
const countedLong = new Map<string, number>();
function countMemo(text: string): number {
  if (text.length < 1024) return countText!(text);
  let n = countedLong.get(text);
  if (n === undefined) {
    if (countedLong.size >= 256) countedLong.clear();
    n = countText!(text);
    countedLong.set(text, n);
  }
  return n;
}

