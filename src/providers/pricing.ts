// List prices of the models skillbench knows, in USD per million tokens, each with the date and source of the price.
// One table: change a price here and nowhere else. A model not in the table is "price unknown": its calls cost 0 in
// the totals and are counted apart (ClientStats.unpricedCalls), never given an invented price.
import type { ProviderId, Usage } from '../types.js';

export interface Price {
  /** Uncached input, USD per million tokens. */
  input: number;
  /** Input read from the provider's prompt cache. */
  cachedInput: number;
  /** Input written to the prompt cache (Anthropic's 5-minute cache write; others do not bill writes apart). */
  cacheWrite: number;
  /** Output, thinking tokens included (they are billed as output by every provider here). */
  output: number;
  /** When the price was read (YYYY-MM) and where. */
  asOf: string;
  source: string;
  note?: string;
}

const GEMINI_SRC = 'https://ai.google.dev/gemini-api/docs/pricing (paid tier, text, prompts <= 200k tokens)';
const ANTHROPIC_SRC = 'https://docs.claude.com/en/docs/about-claude/pricing (cache write = 5-minute ephemeral cache)';
const OPENAI_SRC = 'https://openai.com/api/pricing';

/**
 * provider -> model id (without a date suffix) -> price; `null` = the model is known but its price is not.
 * Prices as last checked by the maintainers on the date given; re-check before relying on a dollar figure.
 */
export const PRICES: Record<ProviderId, Record<string, Price | null>> = {
  gemini: {
    'gemini-2.5-flash': { input: 0.3, cachedInput: 0.03, cacheWrite: 0.3, output: 2.5, asOf: '2025-12', source: GEMINI_SRC },
    'gemini-2.5-flash-lite': { input: 0.1, cachedInput: 0.01, cacheWrite: 0.1, output: 0.4, asOf: '2025-12', source: GEMINI_SRC },
    'gemini-2.5-pro': { input: 1.25, cachedInput: 0.125, cacheWrite: 1.25, output: 10, asOf: '2025-12', source: GEMINI_SRC },
    'gemini-3-flash-preview': { input: 0.5, cachedInput: 0.05, cacheWrite: 0.5, output: 3, asOf: '2025-12', source: GEMINI_SRC },
    'gemini-3-pro-preview': { input: 2, cachedInput: 0.2, cacheWrite: 2, output: 12, asOf: '2025-12', source: GEMINI_SRC },
    'gemini-embedding-001': { input: 0.15, cachedInput: 0.15, cacheWrite: 0.15, output: 0, asOf: '2025-12', source: GEMINI_SRC },
    'gemini-embedding-2': null,
  },
  anthropic: {
    'claude-haiku-4-5': { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5, asOf: '2025-12', source: ANTHROPIC_SRC },
    'claude-sonnet-4-5': {
      input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, asOf: '2025-12', source: ANTHROPIC_SRC,
      note: 'prompts <= 200k tokens; model retires 2026-11-30',
    },
    'claude-opus-4-5': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25, asOf: '2025-12', source: ANTHROPIC_SRC },
    'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4, asOf: '2025-12', source: ANTHROPIC_SRC },
    // Newer than the maintainers' last price check: known ids, unknown prices.
    'claude-sonnet-4-6': null,
  },
  openai: {
    'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, cacheWrite: 0.15, output: 0.6, asOf: '2025-12', source: OPENAI_SRC },
    'gpt-4o': { input: 2.5, cachedInput: 1.25, cacheWrite: 2.5, output: 10, asOf: '2025-12', source: OPENAI_SRC },
    'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, cacheWrite: 0.4, output: 1.6, asOf: '2025-12', source: OPENAI_SRC },
    'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, cacheWrite: 0.1, output: 0.4, asOf: '2025-12', source: OPENAI_SRC },
    'gpt-5-mini': { input: 0.25, cachedInput: 0.025, cacheWrite: 0.25, output: 2, asOf: '2025-12', source: OPENAI_SRC },
    'text-embedding-3-small': { input: 0.02, cachedInput: 0.02, cacheWrite: 0.02, output: 0, asOf: '2025-12', source: OPENAI_SRC },
  },
};

/** A model served by the user's own machine (Ollama, vLLM, llama.cpp on a loopback base URL): free. */
export const LOCAL_PRICE: Price = {
  input: 0, cachedInput: 0, cacheWrite: 0, output: 0, asOf: 'n/a', source: 'local server (loopback base URL): no charge',
};

export interface PriceContext {
  /** The base URL the provider is called at: a loopback host means a local model, priced at 0. */
  baseUrl?: string;
}

/** Model id as the table spells it: no `models/` prefix, no date (`-20251001`) or `-latest` suffix. */
export function canonicalModel(model: string): string {
  return model
    .replace(/^models\//, '')
    .replace(/-(\d{8}|latest)$/, '')
    .replace(/@\d{8}$/, '');
}

export function isLocalBaseUrl(baseUrl: string | undefined): boolean {
  if (!baseUrl) return false;
  try {
    const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || host.startsWith('127.') || host === '0.0.0.0' || host.endsWith('.localhost');
  } catch {
    return false;
  }
}

/** The list price of a model, or null when it is unknown. */
export function priceOf(provider: ProviderId, model: string, ctx: PriceContext = {}): Price | null {
  if (provider === 'openai' && isLocalBaseUrl(ctx.baseUrl)) return LOCAL_PRICE;
  const table = PRICES[provider];
  if (!table) return null;
  const id = canonicalModel(model);
  if (id in table) return table[id] ?? null;
  return null;
}

/**
 * Dollars for one call's usage at list price; 0 when the price is unknown (see priceOf to tell the two apart).
 * Uncached input = inputTokens - cachedInputTokens - cacheWriteTokens; thinking tokens are billed as output.
 */
export function costOf(provider: ProviderId, model: string, usage: Usage, ctx: PriceContext = {}): number {
  const p = priceOf(provider, model, ctx);
  if (!p) return 0;
  return costAt(p, usage);
}

export function costAt(p: Price, usage: Usage): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteTokens);
  return (
    (uncached * p.input +
      usage.cachedInputTokens * p.cachedInput +
      usage.cacheWriteTokens * p.cacheWrite +
      (usage.outputTokens + usage.thinkingTokens) * p.output) /
    1e6
  );
}
