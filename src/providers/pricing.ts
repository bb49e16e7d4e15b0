// List prices, in USD per million tokens, from the model table (data/models.json, with the date and source of each
// row): change a price there and nowhere else. A model not in the table, or without a public price, is "price
// unknown": its calls cost 0 in the totals and the summary says so, never an invented price.
import type { ProviderId, Usage } from '../types.js';
import { findModel, modelTable, type PriceTier } from './models.js';

export { canonicalModel } from './models.js';

export interface Price {
  /** Uncached input, USD per million tokens. */
  input: number;
  /** Input read from the provider's prompt cache. */
  cachedInput: number;
  /** Input written to the prompt cache (Anthropic's 5-minute cache write; others do not bill writes apart). */
  cacheWrite: number;
  /** Output, thinking tokens included (they are billed as output by every provider here). */
  output: number;
  /** When the price was read (YYYY-MM-DD) and where. */
  asOf: string;
  source: string;
  note?: string;
  /** Higher prices for long prompts (e.g. above 200k tokens), by the prompt length they start above. */
  tiers?: PriceTier[];
  /** Batch API price multiplier (0.5: half price). */
  batchDiscount?: number;
}

/** A model served by the user's own machine (Ollama, vLLM, llama.cpp on a loopback base URL): free. */
export const LOCAL_PRICE: Price = {
  input: 0, cachedInput: 0, cacheWrite: 0, output: 0, asOf: 'n/a', source: 'local server (loopback base URL): no charge',
};

export interface PriceContext {
  /** The base URL the provider is called at: a loopback host means a local model, priced at 0. */
  baseUrl?: string;
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
  const row = findModel(provider, model, modelTable());
  if (!row?.prices) return null;
  const src = row.sources.find((x) => /pric/i.test(x.facts ?? '')) ?? row.sources[0];
  const { tiers, batchDiscount, ...base } = row.prices;
  return {
    ...base,
    asOf: src?.read ?? modelTable().reviewed,
    source: src?.url ?? 'data/models.json',
    ...(row.note ? { note: row.note } : {}),
    ...(tiers?.length ? { tiers } : {}),
    ...(batchDiscount !== undefined ? { batchDiscount } : {}),
  };
}

/** The prices that apply to one call: the highest tier its prompt length reaches, else the base prices. */
function pricesFor(p: Price, inputTokens: number): Pick<Price, 'input' | 'cachedInput' | 'cacheWrite' | 'output'> {
  const tier = [...(p.tiers ?? [])].reverse().find((t) => inputTokens > t.aboveInputTokens);
  return tier ?? p;
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

export function costAt(price: Price, usage: Usage): number {
  const p = pricesFor(price, usage.inputTokens);
  const uncached = Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteTokens);
  return (
    (uncached * p.input +
      usage.cachedInputTokens * p.cachedInput +
      usage.cacheWriteTokens * p.cacheWrite +
      (usage.outputTokens + usage.thinkingTokens) * p.output) /
    1e6
  );
}
