// The providers' batch APIs behind one shape: encode requests, submit them as one job, poll its state, read every
// request's outcome, cancel. Each adapter reuses its chat provider's request and response conversion, so a batch
// answer is the same ChatResponse a live call gives. SDKs load only when a batch is used (dynamic imports).
import type { ChatRequest, ChatResponse, ProviderId } from '../../types.js';
import type { ProviderConfig } from '../shared.js';

/** One request of a batch, keyed by its response-cache key (also its custom id at the provider). */
export interface BatchItem {
  key: string;
  request: ChatRequest;
}

/** A request as the batch API takes it, and its size on the wire (batches are split under the API's limits). */
export interface EncodedItem {
  key: string;
  wire: unknown;
  bytes: number;
}

export interface BatchStatus {
  /** Processing has ended: results (or the job's failure) can be read. */
  ended: boolean;
  /** The provider's own state word (in_progress, JOB_STATE_RUNNING, finalizing, ...). */
  state: string;
  /** Requests done and in all, when the API says so while the job runs. */
  done?: number;
  total?: number;
  /** Why the whole job ended without results (failed validation, expired, cancelled), when it did. */
  failure?: { message: string; reason: 'errored' | 'expired' | 'canceled'; retryable: boolean };
}

/** One request's outcome: the answer, or why there is none. `retryable`: another attempt may succeed (expired,
 * canceled, overloaded), unlike a refused parameter. */
export type ItemOutcome =
  | { key: string; ok: true; response: ChatResponse }
  | { key: string; ok: false; reason: 'errored' | 'expired' | 'canceled'; message: string; retryable: boolean };

export interface BatchApi {
  provider: ProviderId;
  /** Requests and bytes one job may hold (below the API's documented limits). */
  limits: { maxItems: number; maxBytes: number };
  encode(item: BatchItem): EncodedItem;
  /** Submits one job; returns its id. `label` is skillbench's name for it (a display name or metadata). */
  submit(items: EncodedItem[], label: string, signal?: AbortSignal): Promise<string>;
  status(id: string, signal?: AbortSignal): Promise<BatchStatus>;
  /** The outcome of every request the ended job reports (requests it does not report are the caller's to name).
   * `structured`: keys whose request asked for a JSON answer (Anthropic's answer text is then unfenced). */
  results(id: string, keys: string[], structured: Set<string>, signal?: AbortSignal): Promise<ItemOutcome[]>;
  cancel(id: string, signal?: AbortSignal): Promise<void>;
}

export async function loadBatchApi(provider: ProviderId, cfg: ProviderConfig): Promise<BatchApi> {
  switch (provider) {
    case 'anthropic':
      return (await import('./anthropic.js')).createAnthropicBatchApi(cfg);
    case 'gemini':
      return (await import('./gemini.js')).createGeminiBatchApi(cfg);
    case 'openai':
      return (await import('./openai.js')).createOpenAIBatchApi(cfg);
  }
}

export const byteLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');
