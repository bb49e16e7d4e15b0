// The batch APIs of the wire server are as strict as the real ones where a client could get them wrong, checked
// through the real SDKs; skillbench's batch adapters turn per-request refusals into error outcomes; the batch price
// and the splitting of large batches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { GoogleGenAI } from '@google/genai';
import { anthropic, gemini, openai, startWireServer, type WireServer } from './support/wire-server.js';
import { loadBatchApi } from '../src/providers/batch/index.js';
import { chunks } from '../src/batch/queue.js';
import { batchPriceOf, costAt, LOCAL_PRICE, priceOf } from '../src/providers/pricing.js';
import type { ChatRequest } from '../src/types.js';

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer(
    {
      anthropic: () => anthropic.text('hello', { input: 10, output: 2 }),
      gemini: () => gemini.text('hello', { input: 10, output: 2 }),
      openai: () => openai.text('hello', { input: 10, output: 2 }),
    },
    { batches: { endAfterPolls: 1 } },
  );
});
afterAll(() => server?.close());

const request = (model: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model,
  system: [{ text: 'You are terse.' }],
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  maxOutputTokens: 64,
  ...extra,
});

describe('the wire server speaks the batch APIs strictly', () => {
  it('Anthropic: refuses a custom_id outside [a-zA-Z0-9_-]{1,64} and a repeated one; results only once ended, from results_url', async () => {
    const client = new Anthropic({ apiKey: 'test-key-123456', baseURL: server.url, maxRetries: 0 });
    const params = { model: 'wire', max_tokens: 10, messages: [{ role: 'user' as const, content: 'hi' }] };
    await expect(client.messages.batches.create({ requests: [{ custom_id: 'has space', params }] })).rejects.toMatchObject({ status: 400 });
    await expect(client.messages.batches.create({ requests: [{ custom_id: 'a', params }, { custom_id: 'a', params }] })).rejects.toMatchObject({ status: 400 });
    await expect(client.messages.batches.retrieve('msgbatch_unknown')).rejects.toMatchObject({ status: 404 });
    const b = await client.messages.batches.create({ requests: [{ custom_id: 'a', params }] });
    expect(b.processing_status).toBe('in_progress');
    expect(b.results_url).toBeNull();
    server.batches.hold();
    try {
      await expect(client.messages.batches.results(b.id)).rejects.toThrow(/results_url/);
      // Asked directly, before the end: the API's 400.
      await expect(client.get(`/v1/messages/batches/${b.id}/results`)).rejects.toMatchObject({ status: 400 });
    } finally {
      server.batches.release();
    }
    const ended = await client.messages.batches.retrieve(b.id);
    expect(ended.results_url).toBe(`${server.url}/v1/messages/batches/${b.id}/results`);
    const lines = [];
    for await (const line of await client.messages.batches.results(b.id)) lines.push(line);
    expect(lines).toMatchObject([{ custom_id: 'a', result: { type: 'succeeded', message: { content: [{ type: 'text', text: 'hello' }] } } }]);
  });

  it('OpenAI: a file of two models fails validation as a batch with errors; a file must be uploaded with purpose batch', async () => {
    const client = new OpenAI({ apiKey: 'test-key-123456', baseURL: server.baseUrl('openai'), maxRetries: 0 });
    const line = (id: string, model: string) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: 'hi' }] } });
    const upload = async (text: string, purpose: 'batch' | 'assistants' = 'batch') => client.files.create({ file: await toFile(Buffer.from(text), 'in.jsonl'), purpose });
    const mixed = await upload(`${line('a', 'm1')}\n${line('b', 'm2')}\n`);
    const b = await client.batches.create({ input_file_id: mixed.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(b.status).toBe('validating');
    const failed = await client.batches.retrieve(b.id);
    expect(failed.status).toBe('failed');
    expect(failed.errors?.data?.[0]).toMatchObject({ code: 'mismatched_model', line: 2 });
    const other = await upload(line('a', 'm1'), 'assistants');
    await expect(client.batches.create({ input_file_id: other.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toMatchObject({ status: 400 });
    await expect(client.batches.create({ input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toMatchObject({ status: 404 });
  });

  it('Gemini: the job is an operation whose state the SDK reads as JOB_STATE_*; inlined responses carry their metadata', async () => {
    const ai = new GoogleGenAI({ apiKey: 'test-key-123456', apiVersion: 'v1beta', httpOptions: { baseUrl: server.url, apiVersion: 'v1beta' } });
    const job = await ai.batches.create({ model: 'wire', src: [{ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], metadata: { key: 'k1' } }] });
    expect(job.state).toBe('JOB_STATE_PENDING');
    const done = await ai.batches.get({ name: job.name! });
    expect(done.state).toBe('JOB_STATE_SUCCEEDED');
    expect(done.dest?.inlinedResponses?.[0]).toMatchObject({ metadata: { key: 'k1' }, response: { candidates: [{ content: { parts: [{ text: 'hello' }] } }] } });
    await expect(ai.batches.get({ name: 'batches/unknown' })).rejects.toMatchObject({ status: 404 });
  });
});

describe("skillbench's batch adapters", () => {
  it.each(['anthropic', 'gemini', 'openai'] as const)('%s: a parameter the model refuses is an error outcome of that request, not of the job', async (provider) => {
    // gpt-6-luna, claude-haiku-5-5 and gemini-3.5-flash-lite all refuse temperature (data/models.json).
    const model = { anthropic: 'claude-haiku-5-5', gemini: 'gemini-3.5-flash-lite', openai: 'gpt-6-luna' }[provider];
    const api = await loadBatchApi(provider, { apiKey: 'test-key-123456', baseUrl: server.baseUrl(provider), model, timeoutMs: 10_000 });
    const good = api.encode({ key: 'a'.repeat(64), request: request(model) });
    const bad = api.encode({ key: 'b'.repeat(64), request: request(model, { temperature: 0.3 }) });
    const id = await api.submit([good, bad], 'skillbench-test');
    let st = await api.status(id);
    for (let i = 0; i < 5 && !st.ended; i++) st = await api.status(id);
    expect(st.ended).toBe(true);
    const out = await api.results(id, [good.key, bad.key], new Set());
    const byKey = new Map(out.map((o) => [o.key, o]));
    expect(byKey.get(good.key)).toMatchObject({ ok: true, response: { text: 'hello', usage: { inputTokens: 10 } } });
    expect(byKey.get(bad.key)).toMatchObject({ ok: false, reason: 'errored', retryable: false, message: expect.stringMatching(/temperature/) });
  });

  it('splits a batch under the count and byte limits, keeping the order', () => {
    const items = Array.from({ length: 7 }, (_, i) => ({ enc: { key: String(i), wire: null, bytes: 40 } }));
    expect(chunks(items, { maxItems: 3, maxBytes: 1e9 }).map((c) => c.map((x) => x.enc.key).join(''))).toEqual(['012', '345', '6']);
    expect(chunks(items, { maxItems: 100, maxBytes: 100 }).map((c) => c.length)).toEqual([2, 2, 2, 1]);
    // One request larger than the limit still goes alone (the API then says what is wrong with it).
    expect(chunks([{ enc: { key: 'x', wire: null, bytes: 500 } }], { maxItems: 10, maxBytes: 100 })).toHaveLength(1);
  });
});

describe('the batch price', () => {
  it('is the list price times the table\'s batchDiscount, long-prompt tiers included; unknown without one', () => {
    const list = priceOf('anthropic', 'claude-haiku-5-5')!;
    const batch = batchPriceOf(list)!;
    expect(list.batchDiscount).toBe(0.5);
    const usage = { inputTokens: 150_000, cachedInputTokens: 20_000, cacheWriteTokens: 1_000, outputTokens: 900, thinkingTokens: 100 };
    expect(costAt(batch, usage)).toBeCloseTo(costAt(list, usage) / 2, 12);
    const small = { ...usage, inputTokens: 5_000, cachedInputTokens: 0, cacheWriteTokens: 0 };
    expect(costAt(batch, small)).toBeCloseTo(costAt(list, small) / 2, 12);
    expect(batchPriceOf(priceOf('gemini', 'gemini-3.1-flash-lite'))).toBeNull(); // a row without batchDiscount
    expect(batchPriceOf(null)).toBeNull();
    expect(batchPriceOf(LOCAL_PRICE)).toBe(LOCAL_PRICE);
  });
});
