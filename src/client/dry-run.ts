// --dry-run: the calls a run would make, estimated offline, and the requests the cache answers; with --batch, the
// same calls at the batch price and how many are in jobs already submitted.
import type { BatchStore } from '../batch/store.js';
import { promptCacheNote, type ModelPlan } from '../providers/params.js';
import { costAt, type Price } from '../providers/pricing.js';
import { ESTIMATED_OUTPUT_TOKENS, type CallEstimate } from './estimate.js';
import type { ResolvedConfig } from './provider-config.js';
import { ZERO_USAGE } from './tally.js';
import type { DryRunReport } from './types.js';

/** --dry-run: the calls that would be made, estimated, and the requests the cache answers. */
export class DryRunTally {
  calls = 0;
  cached = 0;
  private input = 0;
  private output = 0;
  private costUsd = 0;
  private batchCostUsd = 0;
  private readonly keys: string[] = [];

  private prefix = 0;

  /** `batch`: --dry-run --batch, with the batch price and the jobs already submitted from this cache folder. */
  constructor(private readonly batch?: { price: Price | null; store: BatchStore; baseUrl: string | null }) {}

  wouldCall(e: CallEstimate, prefixTokens = 0, key?: string): void {
    this.prefix = Math.max(this.prefix, prefixTokens);
    this.calls++;
    this.input += e.input;
    this.output += e.output;
    this.costUsd += e.cost;
    if (this.batch) {
      if (this.batch.price) this.batchCostUsd += costAt(this.batch.price, { ...ZERO_USAGE, inputTokens: e.input, outputTokens: e.output });
      if (key) this.keys.push(key);
    }
  }

  private batchReport(cfg: ResolvedConfig): DryRunReport['batch'] {
    if (!this.batch) return undefined;
    const { price, store, baseUrl } = this.batch;
    const submitted = new Set(store.open(cfg.provider, cfg.model, baseUrl).flatMap((r) => r.items.map((it) => it.key)));
    return {
      multiplier: price ? (price.batchDiscount ?? 1) : null,
      estimatedCostUsd: price ? this.batchCostUsd : null,
      alreadySubmitted: this.keys.filter((k) => submitted.has(k)).length,
    };
  }

  report(cfg: ResolvedConfig, price: Price | null, plan?: ModelPlan): DryRunReport {
    return {
      ...(this.calls && plan ? { promptCache: promptCacheNote(cfg.provider, cfg.model, plan.row, this.prefix) } : {}),
      provider: cfg.provider,
      model: cfg.model,
      calls: this.calls,
      cached: this.cached,
      estimatedInputTokens: this.input,
      estimatedOutputTokens: this.output,
      estimatedCostUsd: price ? this.costUsd : null,
      method: `input counted offline with the o200k tokenizer (an estimate for non-OpenAI models); output assumed ${ESTIMATED_OUTPUT_TOKENS} tokens per call; list prices of ${cfg.model}`,
      ...(this.batch ? { batch: this.batchReport(cfg) } : {}),
    };
  }
}
