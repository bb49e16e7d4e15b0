// What the batch mode needs of its client (built by src/client/batch-host.ts), and what a request resolves with.
import type { ResponseCache } from '../cache.js';
import type { BatchApi } from '../providers/batch/index.js';
import type { Price } from '../providers/pricing.js';
import type { ChatRequest, ChatResponse, Lane, ProviderId, Usage } from '../types.js';
import type { BatchSettings } from './settings.js';

/** What a batch-mode request resolves with: a live call's ChatResult. */
export interface BatchResult {
  response: ChatResponse;
  cached: boolean;
  costUsd: number;
  latencyMs: number;
}

/** The client's figures, moved exactly as a live call moves them. */
export interface BatchTally {
  paid(usage: Usage, costUsd: number, lane: Lane | undefined): void;
  served(usage: Usage, costUsd: number, lane: Lane | undefined): void;
  failed(lane: Lane | undefined): void;
  sharedCallFailed(lane: Lane | undefined): void;
  stoppedWithout(kind: string): void;
}

/** What the batch mode needs of its client. */
export interface BatchHost {
  provider: ProviderId;
  model: string;
  baseUrl: string | undefined;
  cacheDir: string;
  cache: ResponseCache;
  /** Null when unknown (the model table has no batch discount for the model): answers are then costed at 0 and
   * their cache entries carry no cost (a replay prices them at the list price). */
  batchPrice: Price | null;
  /** The price --max-cost reserves at: the batch price, else the list price (an upper bound). */
  budgetPrice: Price | null;
  tally: BatchTally;
  reserve(req: ChatRequest, price: Price | null): Promise<number>;
  release(reservedUsd: number): void;
  /** A batch API call with the client's retries (transient failures, rate limits, the breaker). */
  withRetries<T>(fn: (signal?: AbortSignal) => Promise<T>): Promise<T>;
  api(): Promise<BatchApi>;
  /** The error row of a response that ended without an answer, or null when it answered. */
  unanswered(response: ChatResponse): (Error & { kind?: string }) | null;
  /** --batch-retry live: one live call, as the client makes it (cache, retries, cost). */
  live(req: ChatRequest, key: string, sample: number, lane: Lane | undefined): Promise<BatchResult>;
  notice(line: string): void;
  settings: BatchSettings;
}
