// Any OpenAI-compatible server (OpenAI, Ollama, vLLM, OpenRouter, llama.cpp) through the `openai` package: chat
// completions with function tools, structured output via response_format json_schema, and the embeddings endpoint.
import OpenAI from 'openai';
import type { ChatProvider, ChatRequest, ChatResponse, EmbeddingProvider, FunctionCall, Message } from '../types.js';
import { fromStainlessError, parseArgs, stopKindOf, type ProviderConfig } from './shared.js';

type Params = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

function client(cfg: ProviderConfig): OpenAI {
  // The SDK throws without a key; local servers ignore it, so the caller passes a placeholder for them.
  return new OpenAI({ apiKey: cfg.apiKey, baseURL: cfg.baseUrl ?? null, maxRetries: 0, timeout: cfg.timeoutMs });
}

/** api.openai.com (the default) takes max_completion_tokens; local servers know max_tokens. */
function isOpenAICloud(baseUrl: string | undefined): boolean {
  if (!baseUrl) return true;
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

export function createOpenAIProvider(cfg: ProviderConfig): ChatProvider {
  const api = client(cfg);
  const cloud = isOpenAICloud(cfg.baseUrl);
  return {
    id: 'openai',
    model: cfg.model,
    async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
      let resp: OpenAI.Chat.ChatCompletion;
      try {
        resp = await api.chat.completions.create(toParams(req, cloud), { signal });
      } catch (err) {
        throw fromStainlessError('openai', err);
      }
      if (!resp || !Array.isArray(resp.choices)) throw fromStainlessError('openai', new SyntaxError('response without choices (not JSON?)'));
      return fromCompletion(resp);
    },
  };
}

export function toParams(req: ChatRequest, cloud = true): Params {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  if (req.system.length) messages.push({ role: 'system', content: req.system.map((b) => b.text).join('\n\n') });
  messages.push(...toMessages(req.messages));
  const params: Params = { model: req.model, messages };
  if (req.responseSchema) {
    params.response_format = { type: 'json_schema', json_schema: { name: 'answer', schema: req.responseSchema, strict: false } };
  } else if (req.tools.length) {
    params.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    params.tool_choice = req.toolChoice ?? 'auto';
  }
  if (req.maxOutputTokens !== undefined) {
    if (cloud) params.max_completion_tokens = req.maxOutputTokens;
    else params.max_tokens = req.maxOutputTokens;
  }
  // Both reach the request only where the model table says the model takes them (providers/params.ts).
  if (req.temperature !== undefined) params.temperature = req.temperature;
  if (req.thinking && 'level' in req.thinking) params.reasoning_effort = req.thinking.level as OpenAI.ReasoningEffort;
  return params;
}

export function toMessages(messages: Message[]): OpenAI.Chat.ChatCompletionMessageParam[] {
  const out: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.role === 'assistant') {
      if (m.raw && typeof m.raw === 'object' && (m.raw as { role?: string }).role === 'assistant') {
        out.push(m.raw as OpenAI.Chat.ChatCompletionAssistantMessageParam);
        continue;
      }
      const msg: OpenAI.Chat.ChatCompletionAssistantMessageParam = { role: 'assistant', content: m.text || null };
      if (m.calls.length) {
        msg.tool_calls = m.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
      }
      out.push(msg);
    } else {
      for (const r of m.results) out.push({ role: 'tool', tool_call_id: r.callId, content: r.isError ? `Error: ${r.content}` : r.content });
    }
  }
  return out;
}

export function fromCompletion(resp: OpenAI.Chat.ChatCompletion): ChatResponse {
  const choice = resp.choices[0];
  const msg = choice?.message;
  const calls: FunctionCall[] = [];
  (msg?.tool_calls ?? []).forEach((tc, i) => {
    if (tc.type === 'function') calls.push({ id: tc.id || `openai-call-${i}`, name: tc.function.name, args: parseArgs(tc.function.arguments) });
  });
  const u = resp.usage;
  const reasoning = u?.completion_tokens_details?.reasoning_tokens ?? 0;
  const raw: Record<string, unknown> | undefined = msg
    ? { role: 'assistant', content: msg.content ?? null, ...(msg.tool_calls?.length ? { tool_calls: msg.tool_calls } : {}) }
    : undefined;
  return {
    calls,
    text: msg?.content ?? '',
    usage: {
      inputTokens: u?.prompt_tokens ?? 0,
      cachedInputTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
      cacheWriteTokens: 0,
      // completion_tokens includes reasoning tokens; Usage keeps them apart.
      outputTokens: Math.max(0, (u?.completion_tokens ?? 0) - reasoning),
      thinkingTokens: reasoning,
    },
    stopReason: msg?.refusal ? 'refusal' : (choice?.finish_reason ?? undefined),
    stopKind: msg?.refusal && !calls.length ? 'refusal' : stopKindOf('openai', choice?.finish_reason, calls.length > 0),
    raw: raw ? JSON.parse(JSON.stringify(raw)) : undefined,
  };
}

export function createOpenAIEmbedder(cfg: ProviderConfig): EmbeddingProvider {
  const api = client(cfg);
  return {
    id: 'openai',
    model: cfg.model,
    async embed(inputs) {
      const out: number[][] = [];
      for (let i = 0; i < inputs.length; i += 256) {
        const chunk = inputs.slice(i, i + 256);
        try {
          const r = await api.embeddings.create({ model: cfg.model, input: chunk.map((x) => x.text), encoding_format: 'float' });
          const sorted = [...r.data].sort((a, b) => a.index - b.index);
          if (sorted.length !== chunk.length) throw new SyntaxError(`asked for ${chunk.length} embeddings, got ${sorted.length}`);
          out.push(...sorted.map((d) => d.embedding));
        } catch (err) {
          throw fromStainlessError('openai', err);
        }
      }
      return out;
    },
  };
}
