// Anthropic Message Batches through @anthropic-ai/sdk: messages.batches.create / retrieve / results / cancel. Each
// request is the same Messages API body a live call sends (providers/anthropic.ts toParams), its custom_id the cache
// key (64 hex characters: within the API's [a-zA-Z0-9_-]{1,64}). Results are read from the batch's results_url,
// which the SDK follows as the absolute URL the API gives.
import Anthropic from '@anthropic-ai/sdk';
import { fromMessage, toParams } from '../anthropic.js';
import { fromStainlessError, type ProviderConfig } from '../shared.js';
import { byteLength, type BatchApi, type ItemOutcome } from './index.js';

/** Error types worth another attempt (the request itself was fine). */
const RETRYABLE = new Set(['api_error', 'overloaded_error', 'rate_limit_error', 'timeout_error']);

export function createAnthropicBatchApi(cfg: ProviderConfig): BatchApi {
  const client = new Anthropic({ apiKey: cfg.apiKey, baseURL: cfg.baseUrl ?? null, maxRetries: 0, timeout: cfg.timeoutMs });
  const batches = client.messages.batches;
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw fromStainlessError('anthropic', err);
    }
  };
  return {
    provider: 'anthropic',
    // The API's limits: 100,000 requests or 256 MB per batch.
    limits: { maxItems: 100_000, maxBytes: 250_000_000 },
    encode(item) {
      const wire = { custom_id: item.key, params: toParams(item.request) };
      return { key: item.key, wire, bytes: byteLength(wire) + 1 };
    },
    async submit(items, _label, signal) {
      const requests = items.map((i) => i.wire as Anthropic.Messages.BatchCreateParams.Request);
      return (await call(() => batches.create({ requests }, { signal }))).id;
    },
    async status(id, signal) {
      const b = await call(() => batches.retrieve(id, {}, { signal }));
      const c = b.request_counts;
      const done = c.succeeded + c.errored + c.canceled + c.expired;
      return { ended: b.processing_status === 'ended', state: b.processing_status, done, total: done + c.processing };
    },
    async results(id, _keys, structured, signal) {
      const out: ItemOutcome[] = [];
      await call(async () => {
        for await (const line of await batches.results(id, {}, { signal })) out.push(outcomeOf(line, structured));
      });
      return out;
    },
    async cancel(id, signal) {
      await call(() => batches.cancel(id, {}, { signal }));
    },
  };
}

function outcomeOf(line: Anthropic.Messages.MessageBatchIndividualResponse, structured: Set<string>): ItemOutcome {
  const key = line.custom_id;
  const r = line.result;
  switch (r.type) {
    case 'succeeded':
      return { key, ok: true, response: fromMessage(r.message, structured.has(key)) };
    case 'errored': {
      const e = r.error?.error as { type?: string; message?: string } | undefined;
      const type = e?.type ?? 'api_error';
      return { key, ok: false, reason: 'errored', message: `anthropic: batch request failed: ${type}: ${e?.message ?? 'no message'}`, retryable: RETRYABLE.has(type) };
    }
    case 'expired':
      return { key, ok: false, reason: 'expired', message: 'anthropic: batch request expired (the batch ended before it was processed)', retryable: true };
    default:
      return { key, ok: false, reason: 'canceled', message: 'anthropic: batch request canceled (the batch was canceled before it was processed)', retryable: true };
  }
}
