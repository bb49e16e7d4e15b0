// Offline estimates of a call, for --dry-run and --max-cost: input tokens counted with the o200k tokenizer (loaded
// on first use), output assumed. No network, no key.
import type { Price } from '../providers/pricing.js';
import type { ChatRequest } from '../types.js';
import { costOfUsage, ZERO_USAGE } from './tally.js';

/** Dry-run and --max-cost output estimate: selection answers are short; a budget check must not be too timid. */
export const ESTIMATED_OUTPUT_TOKENS = 200;

export interface CallEstimate {
  input: number;
  output: number;
  cost: number;
}

/** Offline estimate of a call: input counted, output assumed (see ESTIMATED_OUTPUT_TOKENS) plus any thinking budget. */
export async function estimateCall(req: ChatRequest, price: Price | null): Promise<CallEstimate> {
  const input = await estimateInputTokens(req);
  const budget = req.thinking && 'budget' in req.thinking ? req.thinking.budget : 0;
  const output = Math.min(req.maxOutputTokens ?? ESTIMATED_OUTPUT_TOKENS, ESTIMATED_OUTPUT_TOKENS) + budget;
  return { input, output, cost: costOfUsage(price, { ...ZERO_USAGE, inputTokens: input, outputTokens: output }) };
}

let countText: ((s: string) => number) | null = null;

/** Offline estimate of the stable prefix a provider may cache: the tools and the system blocks up to the last one
 * marked for caching (the catalogue). */
export async function estimatePrefixTokens(req: Pick<ChatRequest, 'system' | 'tools'>): Promise<number> {
  countText ??= (await import('../tokenizer.js')).countTokens;
  const last = req.system.map((b) => Boolean(b.cache)).lastIndexOf(true);
  if (last < 0) return 0;
  const parts = req.system.slice(0, last + 1).map((b) => b.text);
  if (req.tools.length) parts.push(JSON.stringify(req.tools));
  return parts.reduce((a, p) => a + countMemo(p), 0);
}

/** Offline estimate of a request's input tokens (o200k: exact for OpenAI, close for others). */
export async function estimateInputTokens(req: ChatRequest): Promise<number> {
  // The audit's counter: a skill file or a request may hold special-token look-alikes ("<|endoftext|>"), which
  // a tokenizer's default encoding refuses with an exception.
  countText ??= (await import('../tokenizer.js')).countTokens;
  const parts: string[] = req.system.map((b) => b.text);
  for (const m of req.messages) {
    if (m.role === 'user') parts.push(m.content);
    else if (m.role === 'assistant') parts.push(m.text, JSON.stringify(m.calls));
    else parts.push(...m.results.map((r) => r.content));
  }
  if (req.tools.length) parts.push(JSON.stringify(req.tools));
  return parts.reduce((a, p) => a + countMemo(p), 0) + 4 * req.messages.length;
}

/** The catalogue prompt is the same in every request of a run: count long texts once. */
const countedLong = new Map<string, number>();
function countMemo(text: string): number {
  if (text.length < 1024) return countText!(text);
  let n = countedLong.get(text);
  if (n === undefined) {
    if (countedLong.size >= 256) countedLong.clear();
    n = countText!(text);
    countedLong.set(text, n);
  }
  return n;
}
