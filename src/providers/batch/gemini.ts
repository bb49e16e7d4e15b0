// Gemini batch mode through @google/genai, with inlined requests: batches.create (POST models/{m}:batchGenerateContent),
// batches.get until the job reaches JOB_STATE_SUCCEEDED, FAILED, CANCELLED or EXPIRED, results in
// dest.inlinedResponses (in request order, each with the request's metadata), batches.cancel. Each inlined request
// is the same contents and config a live generateContent call sends (providers/gemini.ts).
import { GoogleGenAI, type BatchJob, type InlinedRequest, type InlinedResponse } from '@google/genai';
import { fromGenaiError, fromResponse, GEMINI_API_VERSION, toConfig, toContents } from '../gemini.js';
import type { ProviderConfig } from '../shared.js';
import { byteLength, type BatchApi, type ItemOutcome } from './index.js';

const ENDED: Record<string, { reason: 'errored' | 'expired' | 'canceled'; retryable: boolean } | null> = {
  JOB_STATE_SUCCEEDED: null,
  JOB_STATE_FAILED: { reason: 'errored', retryable: false },
  JOB_STATE_CANCELLED: { reason: 'canceled', retryable: true },
  JOB_STATE_EXPIRED: { reason: 'expired', retryable: true },
};

/** google.rpc codes worth another attempt: DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNAVAILABLE. */
const RETRYABLE_CODES = new Set([4, 8, 10, 13, 14]);

export function createGeminiBatchApi(cfg: ProviderConfig): BatchApi {
  const ai = new GoogleGenAI({
    apiKey: cfg.apiKey,
    apiVersion: GEMINI_API_VERSION,
    httpOptions: { baseUrl: cfg.baseUrl, apiVersion: GEMINI_API_VERSION, timeout: cfg.timeoutMs },
  });
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw fromGenaiError(err, cfg.timeoutMs);
    }
  };
  const get = (name: string, signal?: AbortSignal): Promise<BatchJob> => call(() => ai.batches.get({ name, config: { abortSignal: signal } }));
  return {
    provider: 'gemini',
    // Inlined requests: the whole create request must stay under 20 MB.
    limits: { maxItems: 50_000, maxBytes: 19_000_000 },
    encode(item) {
      // Function calling stays manual: the SDK does not run tools for batch requests, and the field is not sent.
      const { automaticFunctionCalling: _afc, ...config } = toConfig(item.request);
      const wire: InlinedRequest = { contents: toContents(item.request.messages), config, metadata: { key: item.key } };
      return { key: item.key, wire: { model: item.request.model, inlined: wire }, bytes: byteLength(wire) + 1 };
    },
    async submit(items, label, signal) {
      const model = (items[0]!.wire as { model: string }).model;
      const src = items.map((i) => (i.wire as { inlined: InlinedRequest }).inlined);
      const job = await call(() => ai.batches.create({ model, src, config: { displayName: label, abortSignal: signal } }));
      if (!job.name) throw fromGenaiError(new SyntaxError('batch job without a name (not JSON?)'), cfg.timeoutMs);
      return job.name;
    },
    async status(id, signal) {
      const job = await get(id, signal);
      const state = String(job.state ?? 'JOB_STATE_UNSPECIFIED');
      const ended = state in ENDED;
      const why = ENDED[state];
      return {
        ended,
        state,
        ...(why ? { failure: { ...why, message: `gemini: batch ${id} ended ${state}${job.error?.message ? `: ${job.error.message}` : ''}` } } : {}),
      };
    },
    async results(id, keys, _structured, signal) {
      const job = await get(id, signal);
      const responses = job.dest?.inlinedResponses ?? [];
      // Responses come in request order; each carries its request's metadata when the API echoes it.
      return responses.map((r, i) => outcomeOf(r, r.metadata?.key ?? keys[i] ?? `#${i}`));
    },
    async cancel(id, signal) {
      await call(() => ai.batches.cancel({ name: id, config: { abortSignal: signal } }));
    },
  };
}

function outcomeOf(r: InlinedResponse, key: string): ItemOutcome {
  if (r.response) return { key, ok: true, response: fromResponse(r.response) };
  const code = r.error?.code;
  return {
    key,
    ok: false,
    reason: 'errored',
    message: `gemini: batch request failed${code !== undefined ? ` (code ${code})` : ''}: ${r.error?.message ?? 'no response and no error'}`,
    retryable: code !== undefined && RETRYABLE_CODES.has(code),
  };
}
