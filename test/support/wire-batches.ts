/**
 * The three batch APIs, for the wire server (wire-server.ts): Anthropic Message Batches, Gemini batch mode with
 * inlined requests, and the OpenAI Batch API with its files. As strict as the real APIs where it matters to a client:
 * ids and custom ids, request counts and sizes, one model per OpenAI input file, results only once a job has ended,
 * results from an absolute `results_url` (Anthropic), google.rpc codes in Gemini item errors, OpenAI's validation
 * failures as a `failed` batch with `errors`, unknown ids as the API's 404.
 *
 * Every request of a job is answered by the same pipeline as a live call (strictness + the test's handler) when the
 * job ends, in submission order, with `Recorded.batch` set so a handler can tell. A handler reply of
 * `fault.batchExpired()` makes that request expire (Anthropic: an `expired` result; OpenAI: a `batch_expired` line and
 * an `expired` batch; Gemini: the whole job ends BATCH_STATE_EXPIRED, as Gemini expires jobs, not requests).
 *
 * A job ends on its `endAfterPolls`-th status poll (default 2: the first poll sees it running). `hold()` keeps every
 * job running until `release()`; `jobs` lists them (api, id, status, requests) for assertions.
 */
import { randomBytes } from 'node:crypto';
import type { Api, Recorded, Reply } from './wire-server.js';

export interface BatchOptions {
  /** The status poll on which a job ends (1: the first poll already sees it ended). */
  endAfterPolls?: number;
}

type Plain = { status?: number; headers?: Record<string, string>; body?: unknown };

interface ItemResult {
  customId: string;
  kind: 'succeeded' | 'errored' | 'expired' | 'canceled';
  status: number;
  body?: unknown;
}

export interface BatchJob {
  api: Api;
  id: string;
  model: string;
  status: 'validating' | 'running' | 'canceling' | 'ended' | 'failed';
  polls: number;
  items: { customId: string; body: Record<string, unknown> }[];
  results?: ItemResult[];
  /** OpenAI: the validation failure of the input file. */
  invalid?: { code: string; message: string; line?: number };
  displayName?: string;
  metadata?: unknown;
  inputFileId?: string;
  outputFileId?: string;
  errorFileId?: string;
  createdAt: number;
}

export interface BatchBackend {
  jobs: BatchJob[];
  hold(): void;
  release(): void;
  /** Answers a batch route, or null when `rec` is not one. */
  handle(rec: Recorded, raw: string): Promise<Reply | null>;
}

export interface BatchDeps {
  url: () => string;
  /** The reply a live call with this request would get (strictness + handler). */
  itemReply: (rec: Recorded) => Promise<Reply>;
  errorBody: (api: Api, status: number, message: string) => unknown;
}

const rid = (prefix: string) => `${prefix}${randomBytes(8).toString('hex')}`;
const iso = (ms: number) => new Date(ms).toISOString();

/** Batch routes: the method names recorded in `server.requests`. */
export function batchRouteOf(httpMethod: string, path: string): { api: Api; method: string; id?: string; model?: string } | null {
  let m = /^\/v1\/messages\/batches(?:\/([^/]+))?(?:\/(cancel|results))?$/.exec(path);
  if (m) {
    const [, id, action] = m;
    if (!id) return httpMethod === 'POST' ? { api: 'anthropic', method: 'batches.create' } : { api: 'anthropic', method: 'batches.list' };
    return { api: 'anthropic', method: action === 'cancel' ? 'batches.cancel' : action === 'results' ? 'batches.results' : 'batches.retrieve', id };
  }
  m = /^\/[^/]+\/models\/([^/:]+):batchGenerateContent$/.exec(path);
  if (m) return { api: 'gemini', method: 'batches.create', model: decodeURIComponent(m[1]!) };
  // Gemini's API versions (v1beta, the one skillbench pins): /v1/batches is OpenAI's.
  m = /^\/v\d+(?:alpha|beta)\w*\/batches\/([^/:]+)(?::(cancel))?$/.exec(path);
  if (m) return { api: 'gemini', method: m[2] ? 'batches.cancel' : 'batches.get', id: `batches/${m[1]}` };
  m = /^(?:\/v1)?\/files(?:\/([^/]+))?(?:\/(content))?$/.exec(path);
  if (m) return { api: 'openai', method: m[2] ? 'files.content' : m[1] ? 'files.retrieve' : 'files.create', id: m[1] };
  m = /^(?:\/v1)?\/batches(?:\/([^/]+))?(?:\/(cancel))?$/.exec(path);
  if (m) return { api: 'openai', method: m[2] ? 'batches.cancel' : m[1] ? 'batches.retrieve' : httpMethod === 'POST' ? 'batches.create' : 'batches.list', id: m[1] };
  return null;
}

export function createBatchBackend(options: BatchOptions, deps: BatchDeps): BatchBackend {
  const jobs: BatchJob[] = [];
  const files = new Map<string, { purpose: string; filename: string; content: string; createdAt: number }>();
  let held = false;
  const endAfter = options.endAfterPolls ?? 2;
  const err = (api: Api, status: number, message: string): Plain => ({ status, body: deps.errorBody(api, status, message) });
  const find = (api: Api, id: string | undefined) => jobs.find((j) => j.api === api && j.id === id);

  /** Answers every request of the job in order, through the live pipeline. */
  async function end(job: BatchJob): Promise<void> {
    const results: ItemResult[] = [];
    for (const it of job.items) {
      if (job.status === 'canceling') {
        results.push({ customId: it.customId, kind: 'canceled', status: 0 });
        continue;
      }
      const method = job.api === 'anthropic' ? 'messages' : job.api === 'gemini' ? 'generateContent' : 'chat.completions';
      const model = job.api === 'gemini' ? job.model : String(it.body.model ?? '');
      const rec: Recorded = { api: job.api, method, model, httpMethod: 'POST', path: '(batch request)', query: '', headers: {}, body: it.body, batch: { id: job.id, customId: it.customId } };
      results.push(toResult(it.customId, await settle(await deps.itemReply(rec))));
    }
    job.results = results;
    job.status = 'ended';
  }

  async function poll(job: BatchJob): Promise<void> {
    job.polls++;
    if (job.status === 'validating') job.status = job.invalid ? 'failed' : 'running';
    if (job.status === 'canceling' || (job.status === 'running' && !held && job.polls >= endAfter)) await end(job);
  }

  async function handle(rec: Recorded, raw: string): Promise<Reply | null> {
    const route = batchRouteOf(rec.httpMethod, rec.path);
    if (!route) return null;
    if (route.api === 'anthropic') return anthropicRoute(route.method, route.id, rec);
    if (route.api === 'gemini') return geminiRoute(route.method, route.id, route.model, rec);
    return openaiRoute(route.method, route.id, rec, raw);
  }

  // ---------------------------------------------------------------- Anthropic

  function anthropicBatch(job: BatchJob): unknown {
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    if (!job.results) counts.processing = job.items.length;
    else for (const r of job.results) counts[r.kind]++;
    const ended = job.status === 'ended';
    return {
      id: job.id,
      type: 'message_batch',
      processing_status: ended ? 'ended' : job.status === 'canceling' ? 'canceling' : 'in_progress',
      request_counts: counts,
      created_at: iso(job.createdAt),
      expires_at: iso(job.createdAt + 86_400_000),
      ended_at: ended ? iso(Date.now()) : null,
      cancel_initiated_at: null,
      archived_at: null,
      // Absolute, on another path than the batch itself: the client must follow it as given.
      results_url: ended ? `${deps.url()}/v1/messages/batches/${job.id}/results` : null,
    };
  }

  async function anthropicRoute(method: string, id: string | undefined, rec: Recorded): Promise<Reply> {
    if (method === 'batches.create') {
      const reqs = (rec.body as { requests?: unknown })?.requests;
      if (!Array.isArray(reqs) || !reqs.length) return err('anthropic', 400, 'requests: Field required (a non-empty list)');
      if (reqs.length > 100_000) return err('anthropic', 400, 'requests: at most 100000 requests per batch');
      const seen = new Set<string>();
      for (const [i, r] of reqs.entries()) {
        const cid = (r as { custom_id?: unknown })?.custom_id;
        if (typeof cid !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(cid)) return err('anthropic', 400, `requests.${i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
        if (seen.has(cid)) return err('anthropic', 400, `requests.${i}.custom_id: custom_id "${cid}" is not unique in the batch`);
        seen.add(cid);
        const p = (r as { params?: Record<string, unknown> }).params;
        if (!p || typeof p !== 'object' || typeof p.model !== 'string' || typeof p.max_tokens !== 'number' || !Array.isArray(p.messages)) {
          return err('anthropic', 400, `requests.${i}.params: model, max_tokens and messages are required`);
        }
      }
      const job: BatchJob = { api: 'anthropic', id: rid('msgbatch_'), model: '', status: 'running', polls: 0, createdAt: Date.now(), items: reqs.map((r) => ({ customId: r.custom_id, body: r.params })) };
      jobs.push(job);
      return { status: 200, body: anthropicBatch(job) };
    }
    const job = find('anthropic', id);
    if (!job) return err('anthropic', 404, `batch ${id ?? ''} not found`);
    if (method === 'batches.retrieve') {
      await poll(job);
      return { status: 200, body: anthropicBatch(job) };
    }
    if (method === 'batches.cancel') {
      if (job.status === 'running') job.status = 'canceling';
      return { status: 200, body: anthropicBatch(job) };
    }
    if (!job.results) return err('anthropic', 400, `batch ${job.id} is still processing: results are available once it has ended`);
    const lines = job.results.map((r) => JSON.stringify({ custom_id: r.customId, result: anthropicResult(r) }));
    return { status: 200, headers: { 'content-type': 'application/binary' }, body: `${lines.join('\n')}\n` };
  }

  function anthropicResult(r: ItemResult): unknown {
    if (r.kind === 'succeeded') return { type: 'succeeded', message: r.body };
    if (r.kind === 'errored') return { type: 'errored', error: r.body };
    return { type: r.kind };
  }

  // ---------------------------------------------------------------- Gemini

  function geminiOperation(job: BatchJob): unknown {
    const expired = job.results?.some((r) => r.kind === 'expired');
    const state =
      job.status === 'ended'
        ? job.results!.every((r) => r.kind === 'canceled') ? 'BATCH_STATE_CANCELLED' : expired ? 'BATCH_STATE_EXPIRED' : 'BATCH_STATE_SUCCEEDED'
        : job.polls === 0 ? 'BATCH_STATE_PENDING' : 'BATCH_STATE_RUNNING';
    const metadata: Record<string, unknown> = {
      '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch',
      name: job.id,
      model: `models/${job.model}`,
      displayName: job.displayName,
      createTime: iso(job.createdAt),
      updateTime: iso(Date.now()),
      state,
      batchStats: { requestCount: String(job.items.length), pendingRequestCount: String(job.results ? 0 : job.items.length) },
    };
    // Only a job that succeeded has output; an expired or cancelled one has none.
    if (state === 'BATCH_STATE_SUCCEEDED') {
      metadata.output = { inlinedResponses: { inlinedResponses: job.results!.map((r) => geminiResponse(r)) } };
      metadata.endTime = iso(Date.now());
    }
    return { name: job.id, metadata, ...(job.status === 'ended' ? { done: true } : {}) };
  }

  function geminiResponse(r: ItemResult): unknown {
    const metadata = { key: r.customId };
    if (r.kind === 'succeeded') return { response: r.body, metadata };
    const e = (r.body as { error?: { message?: string } })?.error;
    return { error: { code: GRPC[r.status] ?? 13, message: e?.message ?? 'internal error' }, metadata };
  }

  async function geminiRoute(method: string, id: string | undefined, model: string | undefined, rec: Recorded): Promise<Reply> {
    if (method === 'batches.create') {
      const batch = (rec.body as { batch?: Record<string, any> })?.batch; // eslint-disable-line @typescript-eslint/no-explicit-any
      const reqs = batch?.inputConfig?.requests?.requests;
      if (!Array.isArray(reqs) || !reqs.length) return err('gemini', 400, 'batch.input_config.requests: at least one request is required');
      if (Buffer.byteLength(JSON.stringify(rec.body)) > 20 * 1024 * 1024) return err('gemini', 400, 'Request payload size exceeds the limit: 20971520 bytes.');
      for (const [i, r] of reqs.entries()) {
        if (!r?.request || !Array.isArray(r.request.contents)) return err('gemini', 400, `batch.input_config.requests.requests[${i}].request.contents: required`);
      }
      const job: BatchJob = {
        api: 'gemini', id: `batches/${rid('')}`, model: model!, status: 'running', polls: 0, createdAt: Date.now(), displayName: batch!.displayName,
        items: reqs.map((r, i) => ({ customId: r.metadata?.key ?? String(i), body: r.request })),
      };
      jobs.push(job);
      return { status: 200, body: geminiOperation(job) };
    }
    const job = find('gemini', id);
    if (!job) return err('gemini', 404, `Batch ${id ?? ''} not found.`);
    if (method === 'batches.cancel') {
      if (job.status === 'running') job.status = 'canceling';
      return { status: 200, body: {} };
    }
    await poll(job);
    return { status: 200, body: geminiOperation(job) };
  }

  // ---------------------------------------------------------------- OpenAI

  function openaiBatch(job: BatchJob): unknown {
    const r = job.results ?? [];
    const expired = r.some((x) => x.kind === 'expired');
    const status =
      job.status === 'validating' ? 'validating'
        : job.status === 'failed' ? 'failed'
        : job.status === 'canceling' ? 'cancelling'
        : job.status === 'ended' ? (r.length && r.every((x) => x.kind === 'canceled') ? 'cancelled' : expired ? 'expired' : 'completed')
        : 'in_progress';
    const created = Math.floor(job.createdAt / 1000);
    return {
      id: job.id,
      object: 'batch',
      endpoint: '/v1/chat/completions',
      errors: job.invalid ? { object: 'list', data: [{ code: job.invalid.code, message: job.invalid.message, line: job.invalid.line ?? null, param: null }] } : null,
      input_file_id: job.inputFileId,
      completion_window: '24h',
      status,
      output_file_id: job.outputFileId ?? null,
      error_file_id: job.errorFileId ?? null,
      created_at: created,
      expires_at: created + 86_400,
      request_counts: { total: job.items.length, completed: r.filter((x) => x.kind === 'succeeded').length, failed: r.filter((x) => x.kind !== 'succeeded').length },
      metadata: job.metadata ?? null,
      model: job.model || undefined,
    };
  }

  /** Writes the output and error files of an ended job (once). */
  function openaiFiles(job: BatchJob): void {
    if (job.status !== 'ended' || job.outputFileId || job.errorFileId) return;
    const ok: string[] = [];
    const bad: string[] = [];
    for (const r of job.results!) {
      const id = rid('batch_req_');
      if (r.kind === 'canceled') continue; // never run: in neither file
      if (r.kind === 'expired') {
        bad.push(JSON.stringify({ id, custom_id: r.customId, response: null, error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' } }));
      } else {
        (r.kind === 'succeeded' ? ok : bad).push(JSON.stringify({ id, custom_id: r.customId, response: { status_code: r.status, request_id: rid('req_'), body: r.body }, error: null }));
      }
    }
    const put = (lines: string[]) => {
      const fid = rid('file-');
      files.set(fid, { purpose: 'batch_output', filename: `${job.id}_output.jsonl`, content: lines.length ? `${lines.join('\n')}\n` : '', createdAt: Date.now() });
      return fid;
    };
    if (ok.length) job.outputFileId = put(ok);
    if (bad.length) job.errorFileId = put(bad);
  }

  async function openaiRoute(method: string, id: string | undefined, rec: Recorded, raw: string): Promise<Reply> {
    if (method === 'files.create') {
      const type = rec.headers['content-type'] ?? '';
      if (!type.startsWith('multipart/form-data')) return err('openai', 400, "'file' is a required property (send multipart/form-data)");
      const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
      const file = form.get('file');
      const purpose = form.get('purpose');
      if (!file || typeof file === 'string') return err('openai', 400, "'file' is a required property");
      if (typeof purpose !== 'string' || !PURPOSES.includes(purpose)) return err('openai', 400, `'purpose': '${String(purpose)}' is not one of ${PURPOSES.map((p) => `'${p}'`).join(', ')}`);
      const fid = rid('file-');
      const content = await file.text();
      files.set(fid, { purpose, filename: file.name, content, createdAt: Date.now() });
      return { status: 200, body: { id: fid, object: 'file', bytes: Buffer.byteLength(content), created_at: Math.floor(Date.now() / 1000), filename: file.name, purpose, status: 'processed' } };
    }
    if (method === 'files.retrieve') {
      const f = files.get(id ?? '');
      if (!f) return err('openai', 404, `No such File object: ${id ?? ''}`);
      return { status: 200, body: { id, object: 'file', bytes: Buffer.byteLength(f.content), created_at: Math.floor(f.createdAt / 1000), filename: f.filename, purpose: f.purpose, status: 'processed' } };
    }
    if (method === 'files.content') {
      const f = files.get(id ?? '');
      if (!f) return err('openai', 404, `No such File object: ${id ?? ''}`);
      if (f.purpose === 'batch') return err('openai', 400, 'Not allowed to download files of purpose: batch');
      return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: f.content };
    }
    if (method === 'batches.create') {
      const b = (rec.body ?? {}) as { input_file_id?: string; endpoint?: string; completion_window?: string; metadata?: unknown };
      if (b.completion_window !== '24h') return err('openai', 400, `Invalid completion_window: ${String(b.completion_window)}. Supported values are: '24h'`);
      if (b.endpoint !== '/v1/chat/completions') return err('openai', 400, `Invalid endpoint: ${String(b.endpoint)} (this server batches /v1/chat/completions)`);
      const f = files.get(b.input_file_id ?? '');
      if (!f) return err('openai', 404, `No such File object: ${String(b.input_file_id)}`);
      if (f.purpose !== 'batch') return err('openai', 400, `File ${b.input_file_id} was not uploaded with purpose 'batch'`);
      const job: BatchJob = { api: 'openai', id: rid('batch_'), model: '', status: 'validating', polls: 0, createdAt: Date.now(), items: [], inputFileId: b.input_file_id, metadata: b.metadata };
      validateInput(job, f.content, b.endpoint);
      jobs.push(job);
      return { status: 200, body: openaiBatch(job) };
    }
    const job = find('openai', id);
    if (!job) return err('openai', 404, `No batch found with id '${id ?? ''}'.`);
    if (method === 'batches.cancel') {
      if (job.status === 'running' || job.status === 'validating') job.status = 'canceling';
      return { status: 200, body: openaiBatch(job) };
    }
    await poll(job);
    openaiFiles(job);
    return { status: 200, body: openaiBatch(job) };
  }

  /** The input file's lines, as the API validates them: a bad file fails the whole batch. */
  function validateInput(job: BatchJob, content: string, endpoint: string): void {
    const lines = content.split('\n').filter((l) => l.trim());
    const seen = new Set<string>();
    const fail = (code: string, message: string, line?: number) => void (job.invalid ??= { code, message, line });
    if (!lines.length) fail('empty_file', 'The input file is empty.');
    if (lines.length > 50_000) fail('too_many_requests', 'The input file contains more than 50,000 requests.');
    for (const [i, text] of lines.entries()) {
      let line: { custom_id?: unknown; method?: unknown; url?: unknown; body?: Record<string, unknown> };
      try {
        line = JSON.parse(text);
      } catch {
        fail('invalid_json_line', 'This line is not parseable as valid JSON.', i + 1);
        continue;
      }
      if (typeof line.custom_id !== 'string') fail('missing_required_parameter', "Missing required parameter: 'custom_id'.", i + 1);
      else if (seen.has(line.custom_id)) fail('duplicate_custom_id', `The custom_id for this request is a duplicate of another request: ${line.custom_id}`, i + 1);
      else seen.add(line.custom_id);
      if (line.method !== 'POST') fail('invalid_method', "The method must be 'POST'.", i + 1);
      if (line.url !== endpoint) fail('mismatched_endpoint', `The URL provided for this request does not match the batch endpoint: ${String(line.url)}`, i + 1);
      const model = String(line.body?.model ?? '');
      if (!line.body || !model) fail('missing_required_parameter', "Missing required parameter: 'body.model'.", i + 1);
      else if (job.model && model !== job.model) fail('mismatched_model', 'The provided model does not match the model of the other requests in this file: a batch takes one model.', i + 1);
      job.model ||= model;
      job.items.push({ customId: String(line.custom_id), body: line.body ?? {} });
    }
  }

  return {
    jobs,
    hold: () => void (held = true),
    release: () => void (held = false),
    handle,
  };
}

const PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'];

/** HTTP status -> google.rpc code, for Gemini's per-request errors. */
const GRPC: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 408: 4, 409: 10, 429: 8, 500: 13, 503: 14, 504: 4 };

async function settle(reply: Reply): Promise<Reply> {
  if ('fault' in reply && reply.fault === 'delay') {
    await new Promise((r) => setTimeout(r, reply.ms));
    return settle(reply.reply);
  }
  return reply;
}

function toResult(customId: string, reply: Reply): ItemResult {
  if ('fault' in reply) {
    if (reply.fault === 'batch-expired') return { customId, kind: 'expired', status: 0 };
    return { customId, kind: 'errored', status: 500, body: { type: 'error', error: { type: 'api_error', message: `wire-server: fault ${reply.fault} in a batch request` } } };
  }
  const status = reply.status ?? 200;
  return status === 200 ? { customId, kind: 'succeeded', status, body: reply.body } : { customId, kind: 'errored', status, body: reply.body };
}
