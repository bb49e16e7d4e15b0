// Claude through @anthropic-ai/sdk: system as blocks (the stable catalogue block marked for prompt caching), tools with
// input_schema, tool_choice auto by default, usage with cache reads and writes, exact counts via messages.countTokens.
//
// Structured output (`responseSchema`): Claude gets no tools and a last, uncached system block asking for one JSON value
// matching the schema; the text answer is returned with any code fence stripped. No forced tool_choice and no
// assistant prefill (newer Claude models reject both in some versions), so it works on every model.
import Anthropic from '@anthropic-ai/sdk';
import type { ChatProvider, ChatRequest, ChatResponse, FunctionCall, Message } from '../types.js';
import { fromStainlessError, schemaInstruction, stopKindOf, type ProviderConfig } from './shared.js';

export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

type Params = Anthropic.MessageCreateParamsNonStreaming;

export function createAnthropicProvider(cfg: ProviderConfig): ChatProvider {
  // maxRetries 0: src/client.ts retries (with the server's delays and the run's budget); an explicit timeout also
  // keeps the SDK from demanding streaming for large max_tokens.
  const client = new Anthropic({ apiKey: cfg.apiKey, baseURL: cfg.baseUrl ?? null, maxRetries: 0, timeout: cfg.timeoutMs });
  return {
    id: 'anthropic',
    model: cfg.model,
    async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
      let msg: Anthropic.Message;
      try {
        msg = await client.messages.create(toParams(req), { signal });
      } catch (err) {
        throw fromStainlessError('anthropic', err);
      }
      return fromMessage(msg, Boolean(req.responseSchema));
    },
    async countTokens(req: ChatRequest, signal?: AbortSignal): Promise<number> {
      const p = toParams(req);
      try {
        const r = await client.messages.countTokens({
          model: p.model,
          system: p.system,
          messages: p.messages,
          ...(p.tools ? { tools: p.tools, tool_choice: p.tool_choice } : {}),
          ...(p.thinking ? { thinking: p.thinking } : {}),
        }, { signal });
        return r.input_tokens;
      } catch (err) {
        throw fromStainlessError('anthropic', err);
      }
    },
  };
}

export function toParams(req: ChatRequest): Params {
  const system: Anthropic.TextBlockParam[] = req.system.map((b) =>
    b.cache ? { type: 'text', text: b.text, cache_control: { type: 'ephemeral' } } : { type: 'text', text: b.text },
  );
  if (req.responseSchema) system.push({ type: 'text', text: schemaInstruction(req.responseSchema) });
  const { thinking, effort } = thinkingFor(req.thinking);
  // Extended thinking counts against max_tokens and must leave room for the answer (the client's cap already does).
  const maxTokens = Math.max(req.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS, thinking?.type === 'enabled' ? thinking.budget_tokens + 256 : 1);
  const params: Params = {
    model: req.model,
    max_tokens: maxTokens,
    messages: toMessages(req.messages),
  };
  if (system.length) params.system = system;
  if (req.tools.length && !req.responseSchema) {
    params.tools = req.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters as Anthropic.Tool.InputSchema,
    }));
    params.tool_choice = req.toolChoice === 'none' ? { type: 'none' } : req.toolChoice === 'required' ? { type: 'any' } : { type: 'auto' };
  }
  // A temperature reaches the request only where the model table says the model takes it (providers/params.ts).
  if (req.temperature !== undefined) (params as { temperature?: number }).temperature = req.temperature;
  if (thinking) params.thinking = thinking as Params['thinking'];
  if (effort) params.output_config = { effort: effort as NonNullable<Params['output_config']>['effort'] } as Params['output_config'];
  return params;
}

type ThinkingWire = { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };

/** The resolved thinking parameter as Claude's `thinking` and `output_config.effort`: a budget is extended thinking,
 * `adaptive` is adaptive thinking at an effort, a bare level is the effort of a model that always thinks. */
export function thinkingFor(t: ChatRequest['thinking']): { thinking?: ThinkingWire; effort?: string } {
  if (!t) return {};
  if ('budget' in t) return t.budget > 0 ? { thinking: { type: 'enabled', budget_tokens: t.budget } } : {};
  if ('adaptive' in t) return { thinking: { type: 'adaptive' }, effort: t.adaptive };
  return { effort: t.level };
}

export function toMessages(messages: Message[]): Anthropic.MessageParam[] {
  return messages.map((m): Anthropic.MessageParam => {
    if (m.role === 'user') return { role: 'user', content: m.content };
    if (m.role === 'assistant') {
      if (Array.isArray(m.raw)) return { role: 'assistant', content: m.raw as Anthropic.ContentBlockParam[] };
      const content: Anthropic.ContentBlockParam[] = [];
      if (m.text) content.push({ type: 'text', text: m.text });
      for (const c of m.calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args });
      return { role: 'assistant', content };
    }
    return {
      role: 'user',
      content: m.results.map((r) => ({ type: 'tool_result', tool_use_id: r.callId, content: r.content, ...(r.isError ? { is_error: true } : {}) })),
    };
  });
}

export function fromMessage(msg: Anthropic.Message, structured = false): ChatResponse {
  const calls: FunctionCall[] = [];
  const texts: string[] = [];
  for (const b of msg.content) {
    if (b.type === 'text') texts.push(b.text);
    else if (b.type === 'tool_use') calls.push({ id: b.id, name: b.name, args: (b.input ?? {}) as Record<string, unknown> });
  }
  const u = msg.usage;
  const cacheRead = u.cache_read_input_tokens ?? 0;
  const cacheWrite = u.cache_creation_input_tokens ?? 0;
  const text = texts.join('');
  const thinking = u.output_tokens_details?.thinking_tokens ?? 0;
  return {
    calls,
    text: structured ? stripFence(text) : text,
    usage: {
      // input_tokens counts uncached input only.
      inputTokens: u.input_tokens + cacheRead + cacheWrite,
      cachedInputTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      // output_tokens includes thinking; Usage keeps them apart (both billed as output).
      outputTokens: Math.max(0, u.output_tokens - thinking),
      thinkingTokens: thinking,
    },
    stopReason: msg.stop_reason ?? undefined,
    stopKind: stopKindOf('anthropic', msg.stop_reason, calls.length > 0),
    raw: JSON.parse(JSON.stringify(msg.content)),
  };
}

export function stripFence(text: string): string {
  const t = text.trim();
  const m = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/.exec(t);
  return m ? m[1]!.trim() : t;
}
