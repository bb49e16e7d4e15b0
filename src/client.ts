// The chat client every command calls models through: provider + response cache + retries + concurrency + cost
// accounting + --dry-run / --max-cost. Providers are loaded lazily on the first live call, so a --cache-only replay
// needs no key and never imports an SDK.
import pLimit, { type LimitFunction } from 'p-limit';
import { cacheKey, embeddingFile, embeddingKey, makeEntry, readVector, ResponseCache, writeVector } from './cache.js';
import { ProviderError, UserError } from './errors.js';
import type { ProviderOptions } from './options.js';
import {
  baseUrlFrom,
  DEFAULT_EMBEDDING_MODELS,
  DEFAULT_MODELS,
  defaultConcurrency,
  KEY_VARS,
  keyFrom,
  keyOptional,
  loadChatProvider,
  loadEmbeddingProvider,
  LOCAL_PLACEHOLDER_KEY,
  PROVIDERS,
  type EmbeddingId,
} from './providers/index.js';
import { costAt, priceOf, type Price } from './providers/pricing.js';
import { CallError } from './providers/shared.js';
import type {
  ChatProvider,
  ChatRequest,
  ChatResponse,
  EmbeddingInput,
  EmbeddingProvider,
  EmbeddingRole,
  Lane,
  ProviderId,
  Usage,
} from './types.js';

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
}

/** What the selectors, the suggester and the agent loop need of a client: one call, its provider and model. */
export type ChatCaller = Pick<ChatClient, 'provider' | 'model' | 'chat'>;

/** Knobs tests and benchmarks set; the CLI uses the defaults. */
export interface ClientTuning {
  env?: NodeJS.ProcessEnv;
  /** Retries after the first attempt (default 5); 429s with a server delay have their own budget (default 30). */
  maxRetries?: number;
  maxRateLimitRetries?: number;
  /** First backoff delay in ms (default 1000), doubled each retry, with jitter. */
  retryBaseMs?: number;
  /** Longest single wait in ms (default 60000), also the cap on a server's retry-after. */
  retryMaxMs?: number;
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
    model: opts.model ?? DEFAULT_MODELS[provider],
    apiKey: key.value ?? (keyOptional(provider, baseUrl) ? LOCAL_PLACEHOLDER_KEY : undefined),
    keyVariable: key.variable,
    baseUrl,
    timeoutMs: Math.round(timeoutS * 1000),
    concurrency: opts.concurrency ?? defaultConcurrency(provider, baseUrl),
  };
}

export function parseThinking(value: string | undefined): ChatRequest['thinking'] {
  if (value === undefined) return 'minimal';
  if (value === 'minimal' || value === 'low' || value === 'medium' || value === 'high') return value;
  const n = Number(value);
  if (Number.isInteger(n) && n >= 0) return n;
  throw new UserError(`--thinking: "${value}" is not a level`, 'use minimal, low, medium, high, or a token budget such as 2048');
}

// ---------------------------------------------------------------- retries

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Defaults: 5 retries (30 for paced 429s), backoff from 1 s up to 60 s. `SKILLBENCH_RETRY_BASE_MS` shortens the base
 * (tests that drive the CLI against a faulty local server). */
export function retryPolicy(tuning: ClientTuning = {}, env: NodeJS.ProcessEnv = process.env): RetryPolicy {
  const fromEnv = Number(env.SKILLBENCH_RETRY_BASE_MS);
  return {
    maxRetries: tuning.maxRetries ?? 5,
    maxRateLimitRetries: tuning.maxRateLimitRetries ?? 30,
    baseMs: tuning.retryBaseMs ?? (Number.isFinite(fromEnv) && fromEnv >= 0 && env.SKILLBENCH_RETRY_BASE_MS !== '' ? fromEnv : 1000),
    maxMs: tuning.retryMaxMs ?? 60_000,
  };
}

export interface RetryPolicy {
  /** Retries of 5xx, 529, timeouts, dropped connections, malformed bodies, and 429s without a server delay. */
  maxRetries: number;
  /** Retries of 429s that say how long to wait (retry-after, RetryInfo): a rate limit is a queue, not a failure. */
  maxRateLimitRetries: number;
  baseMs: number;
  maxMs: number;
}

/** The wait before retry number `attempt` (0-based): the server's delay when it gave one, else exponential backoff
 * with "equal jitter" (half fixed, half random), both capped at maxMs. */
export function backoffMs(attempt: number, policy: RetryPolicy, retryAfterMs?: number): number {
  // A little jitter on the server's delay spreads the waiting workers without leaving the rate limit idle.
  if (retryAfterMs !== undefined) return Math.min(policy.maxMs, retryAfterMs + Math.random() * Math.min(policy.baseMs, Math.max(10, retryAfterMs / 4)));
  const d = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  return d / 2 + (Math.random() * d) / 2;
}

function keyHint(provider: string): string {
  const vars = (KEY_VARS as Record<string, string[]>)[provider];
  return vars ? `it is read from ${vars.join(' or ')}` : 'check the key';
}

function asCallError(err: unknown, provider: string): CallError {
  if (err instanceof CallError) return err;
  if (err instanceof ProviderError) return new CallError(err.message, err.status, err.retryable);
  return new CallError(`${provider}: ${(err as Error)?.message ?? String(err)}`, undefined, false);
}

/** Runs `fn` until it succeeds, a non-retryable error, or the retries run out; the last error as a ProviderError. */
export async function withRetries<T>(
  provider: string,
  policy: RetryPolicy,
  fn: () => Promise<T>,
  onRetry?: (e: CallError, waitMs: number) => void,
): Promise<T> {
  let other = 0;
  let rateLimited = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const e = asCallError(err, provider);
      const paced = e.status === 429 && e.retryAfterMs !== undefined;
      const exhausted = paced ? rateLimited >= policy.maxRateLimitRetries : other >= policy.maxRetries;
      if (!e.retryable || exhausted) {
        const tries = attempt + 1;
        const hint = e.status === 401 || e.status === 403 ? ` (is the API key right? ${keyHint(provider)})` : '';
        throw new ProviderError(`${e.message}${hint}${tries > 1 ? ` (after ${tries} attempts)` : ''}`, e.status, e.retryable);
      }
      const wait = backoffMs(other, policy, e.retryAfterMs);
      if (paced) rateLimited++;
      else other++;
      onRetry?.(e, wait);
      await sleep(wait);
    }
  }
}

// ---------------------------------------------------------------- the client

/** The request as sent and as keyed: the client's model, and the run's thinking level unless the request sets one. */
export function withDefaults(req: ClientRequest, model: string, thinking: ChatRequest['thinking'] = 'minimal'): ChatRequest {
  return { ...req, model, thinking: req.thinking ?? thinking };
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
  return {
    provider: core.cfg.provider,
    model: core.cfg.model,
    chat: (req, o) => chat(core, req, o),
    countTokens: (req) => countTokens(core, req),
    stats: () => clientStats(core),
    dryRunReport: () => core.dryRun.report(core.cfg, core.price),
    summary: () => clientSummary(core),
  };
}

/** What every call of one client shares: its settings, cache, concurrency limit, figures and calls in flight. */
interface ClientCore {
  opts: ProviderOptions;
  cfg: ResolvedConfig;
  thinking: ChatRequest['thinking'];
  policy: RetryPolicy;
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
}

function clientCore(opts: ProviderOptions, tuning: ClientTuning): ClientCore {
  const env = tuning.env ?? process.env;
  const cfg = resolveConfig(opts, env);
  const price = priceOf(cfg.provider, cfg.model, { baseUrl: cfg.baseUrl });
  const tally = new ChatTally();
  const modes = cacheModes(opts);
  return {
    opts,
    cfg,
    thinking: parseThinking(opts.thinking),
    policy: retryPolicy(tuning, env),
    cache: new ResponseCache(opts.cacheDir ?? '.skillbench/cache', { secrets: Object.values(KEY_VARS).flat().map((v) => env[v]) }),
    readsCache: modes.read,
    writesCache: modes.write,
    limit: pLimit(cfg.concurrency),
    price,
    tally,
    dryRun: new DryRunTally(),
    budget: new Budget(opts.maxCost, tally, price),
    provider: lazyChatProvider(cfg),
    inFlight: new Map(),
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
  const req = withDefaults(req0, core.cfg.model, core.thinking);
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
    core.dryRun.wouldCall(await estimateCall(req, core.price));
    throw new DryRunError();
  }
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
    const reserved = await core.budget.reserve(req);
    const p = await core.provider();
    if (lane) lane.inFlight++;
    const started = performance.now();
    try {
      const response = await withRetries(core.cfg.provider, core.policy, () => p.chat(req), () => void core.tally.retries++);
      const costUsd = costOfUsage(core.price, response.usage);
      core.tally.paid(response.usage, costUsd, lane);
      // Written before the caller sees it: a run killed after this point never pays for this request again.
      if (core.writesCache) await core.cache.put(makeEntry(key, 'chat', core.cfg.provider, req, sample, { response, costUsd }));
      return { response, cached: false, costUsd, latencyMs: performance.now() - started };
    } catch (err) {
      core.tally.failed(lane);
      throw err;
    } finally {
      core.budget.release(reserved);
      if (lane) lane.inFlight--;
    }
  });
}

// ---------------------------------------------------------------- token counts

/** Exact input tokens from the provider's counting API, cached like answers; null without such an API, and with
 * --cache-only or --dry-run when not cached. */
async function countTokens(core: ClientCore, req0: ClientRequest): Promise<number | null> {
  const { cfg, opts } = core;
  const req = withDefaults(req0, cfg.model, core.thinking);
  const key = cacheKey({ op: 'countTokens', provider: cfg.provider, model: cfg.model, request: req, sample: 0 });
  if (core.readsCache) {
    const hit = await core.cache.get(key);
    if (hit && typeof hit.tokens === 'number') return hit.tokens;
  }
  if (opts.cacheOnly || opts.dryRun) return null;
  const p = await core.provider();
  if (!p.countTokens) return null;
  const n = await core.limit(() => withRetries(cfg.provider, core.policy, () => p.countTokens!(req), () => void core.tally.retries++));
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
  async reserve(req: ChatRequest): Promise<number> {
    if (this.maxCostUsd === undefined) return 0;
    if (this.exceeded) throw new BudgetExceededError(this.maxCostUsd, this.tally.spentUsd);
    const cost = this.price ? (await estimateCall(req, this.price)).cost : 0;
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
  const output = Math.min(req.maxOutputTokens ?? ESTIMATED_OUTPUT_TOKENS, ESTIMATED_OUTPUT_TOKENS) + (typeof req.thinking === 'number' ? req.thinking : 0);
  return { input, output, cost: costOfUsage(price, { ...ZERO, inputTokens: input, outputTokens: output }) };
}

/** --dry-run: the calls that would be made, estimated, and the requests the cache answers. */
class DryRunTally {
  calls = 0;
  cached = 0;
  private input = 0;
  private output = 0;
  private costUsd = 0;

  wouldCall(e: CallEstimate): void {
    this.calls++;
    this.input += e.input;
    this.output += e.output;
    this.costUsd += e.cost;
  }

  report(cfg: ResolvedConfig, price: Price | null): DryRunReport {
    return {
      provider: cfg.provider,
      model: cfg.model,
      calls: this.calls,
      cached: this.cached,
      estimatedInputTokens: this.input,
      estimatedOutputTokens: this.output,
      estimatedCostUsd: price ? this.costUsd : null,
      method: `input counted offline with the o200k tokenizer (an estimate for non-OpenAI models); output assumed ${ESTIMATED_OUTPUT_TOKENS} tokens per call; list prices of ${cfg.model}`,
    };
  }
}

function clientStats({ cfg, tally, cache, price, budget }: ClientCore): ClientStats {
  return {
    provider: cfg.provider,
    model: cfg.model,
    calls: tally.calls,
    cacheHits: tally.cacheHits,
    cacheMisses: tally.cacheMisses,
    errors: tally.errors,
    retries: tally.retries,
    tokens: { ...tally.tokens },
    spentUsd: tally.spentUsd,
    costUsd: tally.costUsd,
    priceKnown: price !== null,
    corruptCacheEntries: cache.stats.corrupt,
    cacheWarnings: [...cache.stats.warnings],
    budgetExceeded: budget.exceeded,
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
  const lines = [
    `${st.provider}/${st.model}: ${n(st.calls)} calls, ${n(st.cacheHits)} cached, ${n(st.errors)} errors` +
      `${st.retries ? `, ${n(st.retries)} retries` : ''}; tokens: ${n(t.inputTokens)} input (${n(t.cachedInputTokens)} cache reads` +
      `${t.cacheWriteTokens ? `, ${n(t.cacheWriteTokens)} cache writes` : ''}), ${n(t.outputTokens)} output` +
      `${t.thinkingTokens ? `, ${n(t.thinkingTokens)} thinking` : ''}; ${dollars}`,
  ];
  if (st.cacheMisses) lines.push(`${n(st.cacheMisses)} requests missing from the cache (--cache-only): run without --cache-only to fill it`);
  if (st.corruptCacheEntries) {
    const first = st.cacheWarnings.find((w) => w.includes('corrupt')) ?? '';
    lines.push(`${n(st.corruptCacheEntries)} corrupt cache entries ignored (first: ${first})`);
  }
  const other = st.cacheWarnings.filter((w) => !w.includes('corrupt'));
  if (other.length) lines.push(`${n(other.length)} cache warnings (first: ${other[0]})`);
  if (st.budgetExceeded) lines.push('stopped calling: --max-cost reached; results cover what was done before');
  return lines.join('\n');
}

export function formatDryRun(r: DryRunReport): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const cost = r.estimatedCostUsd === null ? 'price unknown' : `~$${r.estimatedCostUsd.toFixed(4)}`;
  return (
    `dry run (${r.provider}/${r.model}): ${n(r.calls)} calls would be made, ${n(r.cached)} answered from the cache; ` +
    `~${n(r.estimatedInputTokens)} input + ~${n(r.estimatedOutputTokens)} output tokens, ${cost}\n  (${r.method})`
  );
}

function describe(req: ChatRequest): string {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  const text = last && last.role === 'user' ? last.content : '';
  return `${req.model}: "${text.length > 60 ? `${text.slice(0, 60)}...` : text}"`;
}

let countText: ((s: string) => number) | null = null;

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

// ---------------------------------------------------------------- embeddings

export interface Embedder extends EmbeddingProvider {
  /** Vectors taken from the disk cache / computed / missing (--cache-only or --dry-run, remote providers), since creation. */
  stats(): { cached: number; computed: number; misses: number };
}

/** The embedding provider of --embeddings (default `use`, offline), with vectors cached on disk by model and text
 * hash: an unchanged catalogue is not embedded again. --cache-only: a vector missing for a remote provider throws
 * CacheMissError (`use` computes it: no network, no cost). */
export async function createEmbedder(opts: ProviderOptions, tuning: ClientTuning = {}): Promise<Embedder> {
  const env = tuning.env ?? process.env;
  const id = (opts.embeddings ?? 'use') as EmbeddingId;
  if (!['use', 'gemini', 'openai'].includes(id)) throw new UserError(`--embeddings: unknown provider "${id}"`, 'use one of use, gemini, openai');
  const model = opts.embeddingModel ?? DEFAULT_EMBEDDING_MODELS[id];
  const policy = retryPolicy(tuning, env);
  let pc = { apiKey: '', baseUrl: undefined as string | undefined, model, timeoutMs: Math.round((opts.timeout || 60) * 1000) };
  if (id !== 'use') {
    // --base-url is for the embedder when it is the same provider as --provider, or no --provider is given.
    const explicit = !opts.provider || opts.provider === id ? opts.baseUrl : undefined;
    const baseUrl = baseUrlFrom(id, explicit, env);
    const key = keyFrom(id, env).value ?? (keyOptional(id, baseUrl) ? LOCAL_PLACEHOLDER_KEY : undefined);
    if (!key && !opts.cacheOnly && !opts.dryRun) {
      throw new UserError(`no API key for ${id} embeddings: ${KEY_VARS[id][0]} is not set`, `export ${KEY_VARS[id][0]}=..., use --embeddings use (offline), or --cache-only`);
    }
    pc = { ...pc, apiKey: key ?? '', baseUrl };
  }
  const cacheDir = opts.cacheDir ?? '.skillbench/cache';
  const modes = cacheModes(opts);
  let inner: Promise<EmbeddingProvider> | null = null;
  const counts = { cached: 0, computed: 0, misses: 0 };

  return {
    id,
    model,
    stats: () => ({ ...counts }),
    async embed(inputs: EmbeddingInput[], role: EmbeddingRole): Promise<number[][]> {
      const files = inputs.map((x) => embeddingFile(cacheDir, id, model, embeddingKey(role, x.title, x.text)));
      const out: (number[] | null)[] = modes.read ? await Promise.all(files.map(readVector)) : inputs.map(() => null);
      const missing = out.flatMap((v, i) => (v ? [] : [i]));
      counts.cached += inputs.length - missing.length;
      if (missing.length) {
        // --cache-only and --dry-run forbid calling a provider; `use` runs in-process, offline and free: it computes.
        if ((opts.cacheOnly || opts.dryRun) && id !== 'use') {
          counts.misses += missing.length;
          if (opts.cacheOnly) throw new CacheMissError(`${missing.length} ${id}/${model} embeddings`);
          throw new DryRunError();
        }
        inner ??= loadEmbeddingProvider(id, pc);
        const p = await inner;
        const vectors = await withRetries(id, policy, () => p.embed(missing.map((i) => inputs[i]!), role));
        counts.computed += missing.length;
        await Promise.all(
          missing.map(async (i, j) => {
            out[i] = vectors[j]!;
            if (!modes.write) return;
            return writeVector(files[i]!, { schema: 'skillbench.embedding', version: 1, provider: id, model, role, title: inputs[i]!.title ?? null, vector: vectors[j] });
          }),
        );
      }
      return out as number[][];
    },
  };
}
