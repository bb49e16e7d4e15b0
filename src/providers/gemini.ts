// Gemini through @google/genai: chat with function declarations (automatic function calling disabled), exact token
// counts, and gemini-embedding-2 embeddings. Loaded only through dynamic import (the SDK is heavy).
import {
  FunctionCallingConfigMode,
  GoogleGenAI,
  type ThinkingLevel,
  type Content,
  type GenerateContentConfig,
  type GenerateContentResponse,
  type Part,
  type ThinkingConfig,
} from '@google/genai';
import type { ChatProvider, ChatRequest, ChatResponse, EmbeddingInput, EmbeddingProvider, EmbeddingRole, FunctionCall, Message } from '../types.js';
import {
  CallError,
  classify,
  connectionError,
  errorChain,
  isQuotaExhausted,
  isRetryableStatus,
  oneLine,
  retryDelayFromGoogleBody,
  stopKindOf,
  type ProviderConfig,
} from './shared.js';

/** Pinned: the SDK's default moved from v1beta to v1 in 3.x; tools and thinking config live in v1beta. */
export const GEMINI_API_VERSION = 'v1beta';
export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

function client(cfg: ProviderConfig): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: cfg.apiKey,
    apiVersion: GEMINI_API_VERSION,
    httpOptions: { baseUrl: cfg.baseUrl, apiVersion: GEMINI_API_VERSION, timeout: cfg.timeoutMs },
  });
}

export function createGeminiProvider(cfg: ProviderConfig): ChatProvider {
  const ai = client(cfg);
  return {
    id: 'gemini',
    model: cfg.model,
    async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
      let resp: GenerateContentResponse;
      try {
        resp = await ai.models.generateContent({
          model: req.model,
          contents: toContents(req.messages),
          config: { ...toConfig(req), abortSignal: signal },
        });
      } catch (err) {
        throw fromGenaiError(err, cfg.timeoutMs);
      }
      return fromResponse(resp);
    },
    async countTokens(req: ChatRequest, signal?: AbortSignal): Promise<number> {
      // The SDK refuses systemInstruction/tools in countTokens on the Developer API (client-side check), but the REST
      // method accepts a whole generateContentRequest: post it directly for an exact count of the full request.
      const base = (cfg.baseUrl ?? GEMINI_DEFAULT_BASE_URL).replace(/\/+$/, '');
      const model = req.model.startsWith('models/') ? req.model : `models/${req.model}`;
      const config = toConfig(req);
      const body = {
        generateContentRequest: {
          model,
          contents: toContents(req.messages),
          systemInstruction: config.systemInstruction,
          tools: config.tools,
          toolConfig: config.toolConfig,
        },
      };
      let res: Response;
      try {
        res = await fetch(`${base}/${GEMINI_API_VERSION}/${model}:countTokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-goog-api-key': cfg.apiKey },
          body: JSON.stringify(body),
          signal: signal ?? AbortSignal.timeout(cfg.timeoutMs),
        });
      } catch (err) {
        throw fromGenaiError(err, cfg.timeoutMs);
      }
      const text = await res.text();
      if (!res.ok) {
        throw new CallError(`gemini: HTTP ${res.status}: ${oneLine(text)}`, res.status, isRetryableStatus(res.status), retryDelayFromGoogleBody(text));
      }
      try {
        return Number((JSON.parse(text) as { totalTokens?: number }).totalTokens ?? 0);
      } catch {
        throw new CallError(`gemini: malformed countTokens response: ${oneLine(text, 120)}`, undefined, true, undefined, 'parse');
      }
    },
  };
}

export function toContents(messages: Message[]): Content[] {
  const out: Content[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', parts: [{ text: m.content }] });
    else if (m.role === 'assistant') {
      // The model's own content, verbatim: it can carry thought signatures that must be sent back unchanged.
      if (m.raw && typeof m.raw === 'object' && 'parts' in (m.raw as object)) out.push(m.raw as Content);
      else {
        const parts: Part[] = [];
        if (m.text) parts.push({ text: m.text });
        for (const c of m.calls) parts.push({ functionCall: { name: c.name, args: c.args } });
        out.push({ role: 'model', parts });
      }
    } else {
      out.push({
        role: 'user',
        parts: m.results.map((r) => ({
          functionResponse: { name: r.name, response: r.isError ? { error: r.content } : { result: r.content } },
        })),
      });
    }
  }
  return out;
}

/** The resolved thinking parameter (see providers/params.ts) as Gemini's thinkingConfig. */
export function thinkingConfigFor(thinking: ChatRequest['thinking']): ThinkingConfig | undefined {
  if (!thinking) return undefined;
  if ('budget' in thinking) return { thinkingBudget: thinking.budget };
  if ('level' in thinking) return { thinkingLevel: thinking.level.toUpperCase() as ThinkingLevel };
  return undefined; // adaptive thinking is Claude's; the model table never plans it for Gemini
}

export function toConfig(req: ChatRequest): GenerateContentConfig {
  const config: GenerateContentConfig = {
    automaticFunctionCalling: { disable: true },
  };
  if (req.system.length) config.systemInstruction = { parts: req.system.map((b) => ({ text: b.text })) };
  if (req.responseSchema) {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = req.responseSchema;
  } else if (req.tools.length) {
    config.tools = [
      {
        functionDeclarations: req.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })),
      },
    ];
    const mode = { auto: FunctionCallingConfigMode.AUTO, none: FunctionCallingConfigMode.NONE, required: FunctionCallingConfigMode.ANY }[
      req.toolChoice ?? 'auto'
    ];
    config.toolConfig = { functionCallingConfig: { mode } };
  }
  if (req.maxOutputTokens !== undefined) config.maxOutputTokens = req.maxOutputTokens;
  if (req.temperature !== undefined) config.temperature = req.temperature;
  const thinking = thinkingConfigFor(req.thinking);
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

export function fromResponse(resp: GenerateContentResponse): ChatResponse {
  const cand = resp.candidates?.[0];
  const content = cand?.content;
  const parts = content?.parts ?? [];
  const calls: FunctionCall[] = [];
  const texts: string[] = [];
  parts.forEach((p, i) => {
    if (p.functionCall) {
      calls.push({ id: p.functionCall.id ?? `gemini-call-${i}`, name: p.functionCall.name ?? '', args: (p.functionCall.args ?? {}) as Record<string, unknown> });
    } else if (typeof p.text === 'string' && !p.thought) texts.push(p.text);
  });
  const u = resp.usageMetadata ?? {};
  return {
    calls,
    text: texts.join(''),
    usage: {
      inputTokens: u.promptTokenCount ?? 0,
      cachedInputTokens: u.cachedContentTokenCount ?? 0,
      cacheWriteTokens: 0,
      outputTokens: u.candidatesTokenCount ?? 0,
      thinkingTokens: u.thoughtsTokenCount ?? 0,
    },
    stopReason: cand?.finishReason ?? resp.promptFeedback?.blockReason ?? undefined,
    // No candidate at all: the prompt itself was blocked (promptFeedback.blockReason).
    stopKind: !cand && resp.promptFeedback?.blockReason ? 'safety' : stopKindOf('gemini', cand?.finishReason, calls.length > 0),
    raw: content ? JSON.parse(JSON.stringify(content)) : undefined,
  };
}

/** genai's ApiError has `.status` and the JSON error body as its message (with RetryInfo for 429s). */
export function fromGenaiError(err: unknown, timeoutMs: number): CallError {
  if (err instanceof CallError) return err;
  const e = err as { status?: unknown; message?: string; name?: string; cause?: { code?: string; message?: string } };
  const message = e?.message ?? String(err);
  if (typeof e?.status === 'number') {
    // A daily quota (QuotaFailure ...PerDay) is not cured by waiting: not retried, whatever its RetryInfo says.
    const retryable = isRetryableStatus(e.status) && !isQuotaExhausted(message);
    return new CallError(`gemini: HTTP ${e.status}: ${oneLine(message)}`, e.status, retryable, retryDelayFromGoogleBody(message), 'http', classify(e.status, 'http', retryable, message));
  }
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError' || /abort|timed? ?out/i.test(message)) {
    return new CallError(`gemini: request timed out after ${timeoutMs} ms`, undefined, true, undefined, 'timeout');
  }
  const chain = errorChain(err);
  if (/fetch failed|ECONNRESET|ECONNREFUSED|ENOTFOUND|socket|terminated|other side closed|network/i.test(chain)) {
    return connectionError('gemini', chain);
  }
  if (err instanceof SyntaxError || /JSON/i.test(message)) {
    return new CallError(`gemini: malformed response: ${oneLine(message)}`, undefined, true, undefined, 'parse');
  }
  return new CallError(`gemini: ${oneLine(message)}`, undefined, false);
}

/** gemini-embedding-2 task prefixes (the model takes its task in the text, not a taskType). */
export function geminiEmbeddingText(input: EmbeddingInput, role: EmbeddingRole): string {
  return role === 'document' ? `title: ${input.title ?? 'none'} | text: ${input.text}` : `task: search result | query: ${input.text}`;
}

export const GEMINI_EMBED_BATCH = 100;

export function createGeminiEmbedder(cfg: ProviderConfig): EmbeddingProvider {
  const ai = client(cfg);
  return {
    id: 'gemini',
    model: cfg.model,
    async embed(inputs, role) {
      const out: number[][] = [];
      for (let i = 0; i < inputs.length; i += GEMINI_EMBED_BATCH) {
        const chunk = inputs.slice(i, i + GEMINI_EMBED_BATCH);
        try {
          // One Content per text: a string[] would be merged into one Content and give one vector.
          const resp = await ai.models.embedContent({
            model: cfg.model,
            contents: chunk.map((x) => ({ role: 'user', parts: [{ text: geminiEmbeddingText(x, role) }] })),
          });
          const vectors = (resp.embeddings ?? []).map((e) => e.values ?? []);
          if (vectors.length !== chunk.length) {
            throw new CallError(`gemini: asked for ${chunk.length} embeddings, got ${vectors.length}`, undefined, false, undefined, 'parse');
          }
          out.push(...vectors);
        } catch (err) {
          throw fromGenaiError(err, cfg.timeoutMs);
        }
      }
      return out;
    },
  };
}
