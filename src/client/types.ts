// The chat client's public shapes: what a call returns, what a client offers, its figures and its dry-run report.
// Kept apart from the code so that every client module (and every caller) can name them without a cycle.
import type { BatchStats } from '../batch/queue.js';
import type { ChatRequest, ChatResponse, Lane, ProviderId, Usage } from '../types.js';
import type { RetryTuning } from './retry.js';

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
