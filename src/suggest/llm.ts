// One structured-output call of the suggester: the request goes through the shared client (cache, retries,
// concurrency, cost), the answer is parsed as JSON, and the call is recorded for the cost bookkeeping.
import type { JsonSchema, Lane, Usage } from '../types.js';
import type { ChatCaller } from '../client.js';

/** What the suggester needs of the shared chat client (a type import: the SDKs are not loaded). */
export type SuggestChat = ChatCaller;

export type SuggesterStage = 'wide' | 'wide-chunk' | 'wide-final' | 'gate' | 'narrow';

/** One call the suggester made, for the cost columns and the results file (`improve`'s rewriter records its calls
 * the same way, with its own stage names). */
export interface SuggesterCall<S extends string = SuggesterStage> {
  stage: S;
  cached: boolean;
  costUsd: number;
  latencyMs: number;
  usage: Usage;
}

/** A reply that is not the JSON the schema asked for: the call counts, the suggestion fails. */
export class MalformedAnswer extends Error {
  constructor(stage: string, detail: string) {
    super(`${stage} step: the model's answer is not the JSON asked for (${detail})`);
    this.name = 'MalformedAnswer';
  }
}

export interface JsonCall<S extends string = SuggesterStage> {
  stage: S;
  system: string;
  user: string;
  schema: JsonSchema;
  maxOutputTokens: number;
}

/** Sends one structured-output request, records it in `calls`, and returns the parsed object. */
export async function askJson<S extends string = SuggesterStage>(
  chat: SuggestChat,
  call: JsonCall<S>,
  calls: SuggesterCall<S>[],
  lane?: Lane,
): Promise<Record<string, unknown>> {
  const result = await chat.chat(
    {
      system: [{ text: call.system, cache: true }],
      messages: [{ role: 'user', content: call.user }],
      tools: [],
      temperature: 0,
      maxOutputTokens: call.maxOutputTokens,
      responseSchema: call.schema,
    },
    { lane },
  );
  calls.push({
    stage: call.stage,
    cached: result.cached,
    costUsd: result.costUsd,
    latencyMs: result.latencyMs,
    usage: result.response.usage,
  });
  return parseJsonObject(result.response.text, call.stage);
}

/** Parses a JSON object, tolerating a Markdown code fence around it (some local servers add one). */
export function parseJsonObject(text: string, stage: string): Record<string, unknown> {
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw new MalformedAnswer(stage, trimmed === '' ? 'empty reply' : `not JSON: ${trimmed.slice(0, 80)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MalformedAnswer(stage, 'not a JSON object');
  }
  return value as Record<string, unknown>;
}

/** A 0..1 answer: numbers are clamped, anything else is a malformed answer. */
export function unitNumber(value: unknown, stage: SuggesterStage, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new MalformedAnswer(stage, `${field} is not a number`);
  }
  return Math.min(1, Math.max(0, value));
}

export function sumUsage(usages: Usage[]): Usage {
  const total: Usage = { inputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, thinkingTokens: 0 };
  for (const u of usages) {
    total.inputTokens += u.inputTokens;
    total.cachedInputTokens += u.cachedInputTokens;
    total.cacheWriteTokens += u.cacheWriteTokens;
    total.outputTokens += u.outputTokens;
    total.thinkingTokens += u.thinkingTokens;
  }
  return total;
}
