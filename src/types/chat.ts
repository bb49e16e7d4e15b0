// What flows to and from a chat provider: requests, messages, tool declarations and calls, responses, usage.

export type JsonSchema = Record<string, unknown>;

export interface ToolDeclaration {
  name: string;
  description: string;
  /** Plain JSON Schema of the arguments object. */
  parameters: JsonSchema;
}

export interface FunctionCall {
  /** Provider's call id when it has one (Anthropic, OpenAI); synthesised otherwise. */
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface ToolResult {
  callId: string;
  name: string;
  content: string;
  isError?: boolean;
}

export type Message =
  | { role: 'user'; content: string }
  /** `raw` keeps the provider's own content verbatim (e.g. Gemini thought signatures) for replay in the history. */
  | { role: 'assistant'; text: string; calls: FunctionCall[]; raw?: unknown }
  | { role: 'tool'; results: ToolResult[] };

export interface SystemBlock {
  text: string;
  /** True for the stable prefix (catalogue): marked for prompt caching where the provider supports it. */
  cache?: boolean;
}

export interface ChatRequest {
  model: string;
  system: SystemBlock[];
  messages: Message[];
  tools: ToolDeclaration[];
  toolChoice?: 'auto' | 'none' | 'required';
  maxOutputTokens?: number;
  /** A preference: sent only where the model table says the model takes it (see providers/params.ts). */
  temperature?: number;
  /** The thinking parameter as resolved from the model table (never set by callers: the client sets it). */
  thinking?: ThinkingParam;
  /** Ask for a JSON answer matching this schema (structured output), no tools. */
  responseSchema?: JsonSchema;
}

/** A thinking setting the model takes: a token budget (Gemini 2.5 thinkingBudget, Claude extended thinking), a level
 * (Gemini 3 thinkingLevel, OpenAI reasoning_effort, Claude effort), or Claude's adaptive thinking with an effort. */
export type ThinkingParam = { budget: number } | { level: string } | { adaptive: string };

/** How a response ended, normalised across providers: `stop` (an answer), `tool` (a tool call), or a reason the
 * answer is missing or cut: `length` (output cap), `safety` (blocked), `refusal`, `malformed` (a broken tool call),
 * `other`. */
export type StopKind = 'stop' | 'tool' | 'length' | 'safety' | 'refusal' | 'malformed' | 'other';

export interface Usage {
  /** All input tokens of the call, cached ones included. */
  inputTokens: number;
  /** Input tokens read from the provider's prompt cache (part of inputTokens). */
  cachedInputTokens: number;
  /** Input tokens written to the provider's prompt cache (Anthropic), part of inputTokens. */
  cacheWriteTokens: number;
  outputTokens: number;
  /** Thinking tokens (billed as output), not part of outputTokens. */
  thinkingTokens: number;
}

export interface ChatResponse {
  calls: FunctionCall[];
  text: string;
  usage: Usage;
  /** The provider's own stop reason (finishReason, stop_reason, finish_reason). */
  stopReason?: string;
  /** The stop reason normalised (see StopKind); absent in cache entries written before it existed. */
  stopKind?: StopKind;
  /** Provider-native assistant content, kept for the history. */
  raw?: unknown;
}

export type ProviderId = 'gemini' | 'anthropic' | 'openai';

export interface ChatProvider {
  id: ProviderId;
  model: string;
  chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
  /** Exact input token count of a request, where the provider has an API for it. */
  countTokens?(req: ChatRequest, signal?: AbortSignal): Promise<number>;
}
