// The OpenAI Batch API through the `openai` package: the requests as a JSONL file uploaded with purpose "batch"
// (files.create), batches.create on /v1/chat/completions with a 24 h window, batches.retrieve until completed,
// failed, expired or cancelled, then the output and error files (files.content). Each line's body is the same Chat
// Completions request a live call sends (providers/openai.ts toParams).
import OpenAI, { toFile } from 'openai';
import { fromCompletion, isOpenAICloud, toParams } from '../openai.js';
import { fromStainlessError, isRetryableStatus, type ProviderConfig } from '../shared.js';
import { byteLength, type BatchApi, type BatchStatus, type ItemOutcome } from './index.js';

const ENDPOINT = '/v1/chat/completions';

const ENDED: Record<string, BatchStatus['failure'] | null> = {
  completed: null,
  failed: { reason: 'errored', retryable: false, message: '' },
  expired: { reason: 'expired', retryable: true, message: '' },
  cancelled: { reason: 'canceled', retryable: true, message: '' },
};

interface OutputLine {
  custom_id?: string;
  response?: { status_code?: number; body?: unknown } | null;
  error?: { code?: string; message?: string } | null;
}

export function createOpenAIBatchApi(cfg: ProviderConfig): BatchApi {
  const api = new OpenAI({ apiKey: cfg.apiKey, baseURL: cfg.baseUrl ?? null, maxRetries: 0, timeout: cfg.timeoutMs });
  const cloud = isOpenAICloud(cfg.baseUrl);
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw fromStainlessError('openai', err);
    }
  };
  const lines = async (fileId: string | undefined | null, signal?: AbortSignal): Promise<OutputLine[]> => {
    if (!fileId) return [];
    const text = await call(async () => (await api.files.content(fileId, { signal })).text());
    return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as OutputLine);
  };
  return {
    provider: 'openai',
    // The API's limits: 50,000 requests and 200 MB per input file.
    limits: { maxItems: 50_000, maxBytes: 190_000_000 },
    encode(item) {
      const wire = { custom_id: item.key, method: 'POST', url: ENDPOINT, body: toParams(item.request, cloud) };
      return { key: item.key, wire, bytes: byteLength(wire) + 1 };
    },
    async submit(items, label, signal) {
      const jsonl = `${items.map((i) => JSON.stringify(i.wire)).join('\n')}\n`;
      const file = await call(async () =>
        api.files.create({ file: await toFile(Buffer.from(jsonl, 'utf8'), `${label}.jsonl`, { type: 'application/jsonl' }), purpose: 'batch' }, { signal }),
      );
      const batch = await call(() => api.batches.create({ input_file_id: file.id, endpoint: ENDPOINT, completion_window: '24h', metadata: { skillbench: label } }, { signal }));
      return batch.id;
    },
    async status(id, signal) {
      const b = await call(() => api.batches.retrieve(id, { signal }));
      const ended = b.status in ENDED;
      const why = ENDED[b.status];
      const c = b.request_counts;
      const detail = b.errors?.data?.[0];
      return {
        ended,
        state: b.status,
        ...(c ? { done: c.completed + c.failed, total: c.total } : {}),
        ...(why ? { failure: { ...why, message: `openai: batch ${id} ${b.status}${detail?.message ? `: ${detail.message}${detail.line ? ` (line ${detail.line})` : ''}` : ''}` } } : {}),
      };
    },
    async results(id, _keys, _structured, signal) {
      const b = await call(() => api.batches.retrieve(id, { signal }));
      const [ok, failed] = await Promise.all([lines(b.output_file_id, signal), lines(b.error_file_id, signal)]);
      return [...ok, ...failed].filter((l) => typeof l.custom_id === 'string').map(outcomeOf);
    },
    async cancel(id, signal) {
      await call(() => api.batches.cancel(id, { signal }));
    },
  };
}

function outcomeOf(line: OutputLine): ItemOutcome {
  const key = line.custom_id!;
  const status = line.response?.status_code;
  if (status === 200 && line.response?.body) return { key, ok: true, response: fromCompletion(line.response.body as OpenAI.Chat.ChatCompletion) };
  const code = line.error?.code;
  if (code === 'batch_expired') return { key, ok: false, reason: 'expired', message: `openai: batch request expired: ${line.error?.message ?? 'not processed within the completion window'}`, retryable: true };
  if (code === 'batch_cancelled') return { key, ok: false, reason: 'canceled', message: `openai: batch request canceled: ${line.error?.message ?? 'the batch was cancelled'}`, retryable: true };
  const body = line.response?.body as { error?: { message?: string } } | undefined;
  const message = body?.error?.message ?? line.error?.message ?? 'no response';
  return { key, ok: false, reason: 'errored', message: `openai: batch request failed${status ? ` (HTTP ${status})` : ''}: ${message}`, retryable: isRetryableStatus(status) };
}
