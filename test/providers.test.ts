// Wire-level tests of the three chat providers: the real SDKs, pointed by base URL at the local wire server.
// They assert what the SDKs actually send and how scripted answers are parsed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicProvider, thinkingFor as anthropicThinking } from '../src/providers/anthropic.js';
import { createGeminiEmbedder, createGeminiProvider, thinkingConfigFor } from '../src/providers/gemini.js';
import { createOpenAIEmbedder, createOpenAIProvider, toParams as openaiParams } from '../src/providers/openai.js';
import type { ChatRequest, ToolDeclaration } from '../src/types.js';
import { anthropic, gemini, openai, script, startWireServer, type WireServer } from './support/wire-server.js';

const activate: ToolDeclaration = {
  name: 'activate_skill',
  description: 'Load a skill by name',
  parameters: {
    type: 'object',
    properties: { name: { type: 'string', enum: ['pdf', 'xlsx', 'docx'] } },
    required: ['name'],
  },
};

function request(model: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model,
    system: [
      { text: '<available_skills>pdf, xlsx, docx</available_skills>', cache: true },
      { text: 'Load a skill only when it helps.' },
    ],
    messages: [{ role: 'user', content: 'Fill in this PDF form' }],
    tools: [activate],
    ...extra,
  };
}

const KEY = 'wire-test-key-0123456789';

describe('gemini provider through @google/genai', () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer({});
  });
  afterAll(() => server.close());

  it('sends function declarations with JSON-schema parameters and the enum, AFC off, pinned v1beta, minimal thinking', async () => {
    server.setHandlers({
      gemini: script(gemini.functionCall('activate_skill', { name: 'pdf' }, { input: 812, output: 7, cachedInput: 512, thinking: 3 }, { thoughtSignature: 'c2lnbmF0dXJl' })),
    });
    const before = server.requests.length;
    const p = createGeminiProvider({ apiKey: KEY, baseUrl: server.url, model: 'gemini-2.5-flash-lite', timeoutMs: 5000 });
    const res = await p.chat(request('gemini-2.5-flash-lite', { thinking: { budget: 0 } }));

    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(1); // no automatic second call after the function call
    expect(sent[0]!.path).toBe('/v1beta/models/gemini-2.5-flash-lite:generateContent');
    expect(sent[0]!.headers['x-goog-api-key']).toBe(KEY);
    const body = sent[0]!.body;
    const decl = body.tools[0].functionDeclarations[0];
    expect(decl.name).toBe('activate_skill');
    expect(decl.parametersJsonSchema.properties.name.enum).toEqual(['pdf', 'xlsx', 'docx']);
    expect(decl.parameters).toBeUndefined();
    expect(body.toolConfig.functionCallingConfig.mode).toBe('AUTO');
    expect(body.systemInstruction.parts.map((p: { text: string }) => p.text)).toEqual([
      '<available_skills>pdf, xlsx, docx</available_skills>',
      'Load a skill only when it helps.',
    ]);
    expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 0 });
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'Fill in this PDF form' }] }]);

    expect(res.calls).toEqual([{ id: 'gemini-call-0', name: 'activate_skill', args: { name: 'pdf' } }]);
    expect(res.usage).toEqual({ inputTokens: 812, cachedInputTokens: 512, cacheWriteTokens: 0, outputTokens: 7, thinkingTokens: 3 });
    expect(res.stopReason).toBe('STOP');
    expect(res.stopKind).toBe('tool');
  });

  it('replays the model content verbatim (thought signature) and sends tool results as functionResponse', async () => {
    server.setHandlers({
      gemini: script(
        gemini.functionCall('activate_skill', { name: 'pdf' }, {}, { thoughtSignature: 'c2lnbmF0dXJl' }),
        gemini.text('Done: the form is filled.'),
      ),
    });
    const p = createGeminiProvider({ apiKey: KEY, baseUrl: server.url, model: 'gemini-3-flash-preview', timeoutMs: 5000 });
    const first = await p.chat(request('gemini-3-flash-preview', { thinking: { level: 'minimal' } }));
    const before = server.requests.length;
    const second = await p.chat(
      request('gemini-3-flash-preview', {
        thinking: { level: 'minimal' },
        messages: [
          { role: 'user', content: 'Fill in this PDF form' },
          { role: 'assistant', text: first.text, calls: first.calls, raw: first.raw },
          { role: 'tool', results: [{ callId: first.calls[0]!.id, name: 'activate_skill', content: '<skill_content name="pdf"/>' }] },
        ],
      }),
    );
    const body = server.requests[before]!.body;
    expect(body.contents[1]).toEqual({
      role: 'model',
      parts: [{ functionCall: { name: 'activate_skill', args: { name: 'pdf' } }, thoughtSignature: 'c2lnbmF0dXJl' }],
    });
    expect(body.contents[2]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { name: 'activate_skill', response: { result: '<skill_content name="pdf"/>' } } }],
    });
    expect(body.generationConfig.thinkingConfig).toEqual({ thinkingLevel: 'MINIMAL' });
    expect(second.text).toBe('Done: the form is filled.');
    expect(second.calls).toEqual([]);
  });

  it('a malformed function call, a length stop and a blocked prompt are stop kinds, never a plain answer', async () => {
    const p = createGeminiProvider({ apiKey: KEY, baseUrl: server.url, model: 'gemini-3.5-flash-lite', timeoutMs: 5000 });
    server.setHandlers({ gemini: script(gemini.content([], { input: 50, output: 0 }, 'MALFORMED_FUNCTION_CALL')) });
    expect(await p.chat(request('gemini-3.5-flash-lite'))).toMatchObject({ calls: [], stopKind: 'malformed', stopReason: 'MALFORMED_FUNCTION_CALL' });
    server.setHandlers({ gemini: script(gemini.content([{ text: 'I would' }], { input: 50, output: 512 }, 'MAX_TOKENS')) });
    expect(await p.chat(request('gemini-3.5-flash-lite'))).toMatchObject({ calls: [], stopKind: 'length' });
    server.setHandlers({ gemini: script({ status: 200, body: { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 50 } } }) });
    expect(await p.chat(request('gemini-3.5-flash-lite'))).toMatchObject({ calls: [], stopKind: 'safety', stopReason: 'SAFETY' });
  });

  it('asks for structured output with responseJsonSchema and no tools', async () => {
    server.setHandlers({ gemini: script(gemini.json({ skill: 'pdf', confidence: 0.9 })) });
    const before = server.requests.length;
    const p = createGeminiProvider({ apiKey: KEY, baseUrl: server.url, model: 'gemini-2.5-flash-lite', timeoutMs: 5000 });
    const schema = { type: 'object', properties: { skill: { type: 'string' }, confidence: { type: 'number' } } };
    const res = await p.chat(request('gemini-2.5-flash-lite', { responseSchema: schema, thinking: { budget: 24576 } }));
    const body = server.requests[before]!.body;
    expect(body.generationConfig.responseMimeType).toBe('application/json');
    expect(body.generationConfig.responseJsonSchema).toEqual(schema);
    expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 24576 });
    expect(body.tools).toBeUndefined();
    expect(JSON.parse(res.text)).toEqual({ skill: 'pdf', confidence: 0.9 });
  });

  it('counts the tokens of a whole request (system and tools included) with :countTokens', async () => {
    server.setHandlers({ gemini: script(gemini.countTokens(1234)) });
    const before = server.requests.length;
    const p = createGeminiProvider({ apiKey: KEY, baseUrl: server.url, model: 'gemini-3.5-flash-lite', timeoutMs: 5000 });
    expect(await p.countTokens!(request('gemini-3.5-flash-lite'))).toBe(1234);
    const sent = server.requests[before]!;
    expect(sent.path).toBe('/v1beta/models/gemini-3.5-flash-lite:countTokens');
    expect(sent.body.generateContentRequest.systemInstruction.parts).toHaveLength(2);
    expect(sent.body.generateContentRequest.tools[0].functionDeclarations[0].name).toBe('activate_skill');
  });

  it('embeds one Content per text with the gemini-embedding-2 task prefixes', async () => {
    server.setHandlers({
      gemini: (req) => gemini.embeddings(req.body.requests.map((_: unknown, i: number) => [i, 1, 0])),
    });
    const before = server.requests.length;
    const e = createGeminiEmbedder({ apiKey: KEY, baseUrl: server.url, model: 'gemini-embedding-2', timeoutMs: 5000 });
    const docs = await e.embed([{ text: 'Fill PDF forms', title: 'pdf' }, { text: 'Edit spreadsheets', title: 'xlsx' }], 'document');
    expect(docs).toEqual([[0, 1, 0], [1, 1, 0]]);
    const sent = server.requests[before]!;
    expect(sent.path).toBe('/v1beta/models/gemini-embedding-2:batchEmbedContents');
    expect(sent.body.requests.map((r: { content: { parts: { text: string }[] } }) => r.content.parts.map((p) => p.text))).toEqual([
      ['title: pdf | text: Fill PDF forms'],
      ['title: xlsx | text: Edit spreadsheets'],
    ]);
    await e.embed([{ text: 'sum a column' }], 'query');
    expect(server.requests.at(-1)!.body.requests[0].content.parts[0].text).toBe('task: search result | query: sum a column');
  });
});

describe('anthropic provider through @anthropic-ai/sdk', () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer({});
  });
  afterAll(() => server.close());

  it('sends system blocks with cache_control on the cached block, tools with input_schema, tool_choice auto', async () => {
    server.setHandlers({ anthropic: script(anthropic.toolUse('activate_skill', { name: 'xlsx' }, { input: 20, cachedInput: 1000, cacheWrite: 50, output: 12 })) });
    const before = server.requests.length;
    const p = createAnthropicProvider({ apiKey: KEY, baseUrl: server.url, model: 'claude-haiku-4-5', timeoutMs: 5000 });
    const res = await p.chat(request('claude-haiku-4-5'));
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/v1/messages');
    const body = sent[0]!.body;
    expect(body.system).toEqual([
      { type: 'text', text: '<available_skills>pdf, xlsx, docx</available_skills>', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Load a skill only when it helps.' },
    ]);
    expect(body.tools).toEqual([{ name: 'activate_skill', description: 'Load a skill by name', input_schema: activate.parameters }]);
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(body.max_tokens).toBe(1024);
    expect(body.thinking).toBeUndefined();
    expect(body.messages).toEqual([{ role: 'user', content: 'Fill in this PDF form' }]);

    expect(res.calls).toHaveLength(1);
    expect(res.calls[0]).toMatchObject({ name: 'activate_skill', args: { name: 'xlsx' } });
    expect(res.calls[0]!.id).toMatch(/^toolu_/);
    // input = uncached + cache reads + cache writes
    expect(res.usage).toEqual({ inputTokens: 1070, cachedInputTokens: 1000, cacheWriteTokens: 50, outputTokens: 12, thinkingTokens: 0 });
    expect(res.stopReason).toBe('tool_use');
  });

  it('sends the history with tool_use and tool_result blocks', async () => {
    server.setHandlers({ anthropic: script(anthropic.text('Here is the spreadsheet.')) });
    const before = server.requests.length;
    const p = createAnthropicProvider({ apiKey: KEY, baseUrl: server.url, model: 'claude-haiku-4-5', timeoutMs: 5000 });
    await p.chat(
      request('claude-haiku-4-5', {
        messages: [
          { role: 'user', content: 'Sum column B' },
          { role: 'assistant', text: '', calls: [{ id: 'toolu_1', name: 'activate_skill', args: { name: 'xlsx' } }] },
          { role: 'tool', results: [{ callId: 'toolu_1', name: 'activate_skill', content: 'no such file', isError: true }] },
        ],
      }),
    );
    const msgs = server.requests[before]!.body.messages;
    expect(msgs[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'activate_skill', input: { name: 'xlsx' } }] });
    expect(msgs[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'no such file', is_error: true }] });
  });

  it('structured output: no tools, a schema instruction block, fenced JSON unwrapped', async () => {
    server.setHandlers({ anthropic: script(anthropic.text('```json\n{"skill": "pdf"}\n```')) });
    const before = server.requests.length;
    const p = createAnthropicProvider({ apiKey: KEY, baseUrl: server.url, model: 'claude-haiku-4-5', timeoutMs: 5000 });
    const res = await p.chat(request('claude-haiku-4-5', { responseSchema: { type: 'object', properties: { skill: { type: 'string' } } } }));
    const body = server.requests[before]!.body;
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
    expect(body.system.at(-1).text).toContain('"skill"');
    expect(JSON.parse(res.text)).toEqual({ skill: 'pdf' });
  });

  it('turns thinking levels into budgets and counts tokens with /v1/messages/count_tokens', async () => {
    server.setHandlers({ anthropic: (req) => (req.method === 'count_tokens' ? anthropic.countTokens(2048) : anthropic.text('ok')) });
    const before = server.requests.length;
    const p = createAnthropicProvider({ apiKey: KEY, baseUrl: server.url, model: 'claude-opus-4-5', timeoutMs: 5000 });
    await p.chat(request('claude-opus-4-5', { thinking: { budget: 4096 }, maxOutputTokens: 100 }));
    const body = server.requests[before]!.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(body.max_tokens).toBeGreaterThan(4096);
    expect(await p.countTokens!(request('claude-opus-4-5'))).toBe(2048);
    const ct = server.requests.at(-1)!;
    expect(ct.path).toBe('/v1/messages/count_tokens');
    expect(ct.body.system[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(ct.body.tools[0].name).toBe('activate_skill');
  });
});

describe('openai-compatible provider through openai', () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer({});
  });
  afterAll(() => server.close());

  it('sends function tools with the enum and tool_choice auto; parses tool calls and usage (reasoning apart)', async () => {
    server.setHandlers({ openai: script(openai.toolCall('activate_skill', { name: 'docx' }, { input: 300, cachedInput: 256, output: 9, thinking: 4 })) });
    const before = server.requests.length;
    const p = createOpenAIProvider({ apiKey: 'skillbench-local-no-key', baseUrl: server.baseUrl('openai'), model: 'llama3.2:3b', timeoutMs: 5000 });
    const res = await p.chat(request('llama3.2:3b', { maxOutputTokens: 64 }));
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/v1/chat/completions');
    const body = sent[0]!.body;
    expect(body.messages[0]).toEqual({ role: 'system', content: '<available_skills>pdf, xlsx, docx</available_skills>\n\nLoad a skill only when it helps.' });
    expect(body.tools[0]).toEqual({ type: 'function', function: { name: 'activate_skill', description: 'Load a skill by name', parameters: activate.parameters } });
    expect(body.tool_choice).toBe('auto');
    expect(body.max_tokens).toBe(64); // a local server: max_tokens, not max_completion_tokens
    expect(res.calls).toHaveLength(1);
    expect(res.calls[0]).toMatchObject({ name: 'activate_skill', args: { name: 'docx' } });
    expect(res.usage).toEqual({ inputTokens: 300, cachedInputTokens: 256, cacheWriteTokens: 0, outputTokens: 9, thinkingTokens: 4 });
  });

  it('sends tool results as tool messages and asks for structured output with response_format json_schema', async () => {
    server.setHandlers({ openai: script(openai.text('{"skill":null}')) });
    const before = server.requests.length;
    const p = createOpenAIProvider({ apiKey: 'k', baseUrl: server.url, model: 'qwen3', timeoutMs: 5000 });
    await p.chat(
      request('qwen3', {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', text: '', calls: [{ id: 'call_9', name: 'activate_skill', args: { name: 'pdf' } }] },
          { role: 'tool', results: [{ callId: 'call_9', name: 'activate_skill', content: 'loaded' }] },
        ],
      }),
    );
    const msgs = server.requests[before]!.body.messages;
    expect(server.requests[before]!.path).toBe('/chat/completions'); // base URL without /v1 also works
    expect(msgs[2].tool_calls[0]).toEqual({ id: 'call_9', type: 'function', function: { name: 'activate_skill', arguments: '{"name":"pdf"}' } });
    expect(msgs[3]).toEqual({ role: 'tool', tool_call_id: 'call_9', content: 'loaded' });

    const res = await p.chat(request('qwen3', { responseSchema: { type: 'object' } }));
    const body = server.requests.at(-1)!.body;
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: false } });
    expect(body.tools).toBeUndefined();
    expect(res.text).toBe('{"skill":null}');
  });

  it('embeds through /v1/embeddings', async () => {
    server.setHandlers({ openai: (req) => openai.embeddings(req.body.input.map((t: string) => [t.length, 0])) });
    const e = createOpenAIEmbedder({ apiKey: 'k', baseUrl: server.baseUrl('openai'), model: 'nomic-embed-text', timeoutMs: 5000 });
    expect(await e.embed([{ text: 'abc' }, { text: 'hello' }], 'query')).toEqual([[3, 0], [5, 0]]);
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe('/v1/embeddings');
    expect(sent.body).toMatchObject({ model: 'nomic-embed-text', input: ['abc', 'hello'], encoding_format: 'float' });
  });
});

describe('thinking parameters on the wire', () => {
  it('gemini: a level is thinkingLevel, a budget is thinkingBudget, nothing is nothing', () => {
    expect(thinkingConfigFor({ level: 'low' })).toEqual({ thinkingLevel: 'LOW' });
    expect(thinkingConfigFor({ budget: 512 })).toEqual({ thinkingBudget: 512 });
    expect(thinkingConfigFor(undefined)).toBeUndefined();
  });

  it('openai: a level is reasoning_effort; a request without one sends none; temperature only when set', () => {
    const base = { system: [], messages: [{ role: 'user' as const, content: 'x' }], tools: [], maxOutputTokens: 50 };
    expect(openaiParams({ ...base, model: 'gpt-6-luna', thinking: { level: 'none' } }, true)).toMatchObject({ reasoning_effort: 'none', max_completion_tokens: 50 });
    expect(openaiParams({ ...base, model: 'gpt-4o-mini' }, true).reasoning_effort).toBeUndefined();
    expect(openaiParams({ ...base, model: 'local' }, false)).toMatchObject({ max_tokens: 50 });
    expect(openaiParams({ ...base, model: 'local' }, false).temperature).toBeUndefined();
  });

  it('anthropic: a budget is extended thinking, adaptive carries its effort, a bare level is an effort', () => {
    expect(anthropicThinking({ budget: 2048 })).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(anthropicThinking({ adaptive: 'low' })).toEqual({ thinking: { type: 'adaptive' }, effort: 'low' });
    expect(anthropicThinking({ level: 'medium' })).toEqual({ effort: 'medium' });
    expect(anthropicThinking({ budget: 0 })).toEqual({});
  });
});
