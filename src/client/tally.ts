// A client's running figures: calls, cache hits and misses, errors, retries, tokens and dollars, kept in step with
// the caller's progress lane.
import { costAt, type Price } from '../providers/pricing.js';
import type { Lane, Usage } from '../types.js';

export const ZERO_USAGE: Usage = { inputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, thinkingTokens: 0 };

/** Dollars of a usage at a price; 0 when the price is unknown (dollar figures are then not estimates). */
export const costOfUsage = (price: Price | null, u: Usage): number => (price ? costAt(price, u) : 0);

function addUsage(total: Usage, u: Usage): void {
  total.inputTokens += u.inputTokens;
  total.cachedInputTokens += u.cachedInputTokens;
  total.cacheWriteTokens += u.cacheWriteTokens;
  total.outputTokens += u.outputTokens;
  total.thinkingTokens += u.thinkingTokens;
}

/** A client's running figures, and the caller's progress lane kept in step with them: every request ends in one
 * of these methods (or in a dry-run skip or a budget refusal, which are neither answers nor errors). */
export class ChatTally {
  calls = 0;
  cacheHits = 0;
  cacheMisses = 0;
  errors = 0;
  retries = 0;
  spentUsd = 0;
  costUsd = 0;
  readonly tokens: Usage = { ...ZERO_USAGE };

  /** An answer not paid for now: replayed from the cache, or shared with the identical call in flight. */
  served(usage: Usage, costUsd: number, lane: Lane | undefined): void {
    this.cacheHits++;
    addUsage(this.tokens, usage);
    this.costUsd += costUsd;
    if (lane) lane.cacheHits++;
  }

  /** A live call that succeeded. */
  paid(usage: Usage, costUsd: number, lane: Lane | undefined): void {
    this.calls++;
    this.spentUsd += costUsd;
    this.costUsd += costUsd;
    addUsage(this.tokens, usage);
    if (lane) {
      lane.inputTokens += usage.inputTokens;
      lane.outputTokens += usage.outputTokens + usage.thinkingTokens;
      lane.costUsd += costUsd;
    }
  }

  /** Of the failures: a response that ended without an answer, by its stop reason. */
  readonly stopped: Record<string, number> = {};

  stoppedWithout(kind: string): void {
    this.stopped[kind] = (this.stopped[kind] ?? 0) + 1;
  }

  /** A live call that failed after its retries. */
  failed(lane: Lane | undefined): void {
    this.errors++;
    if (lane) lane.errors++;
  }

  /** The identical call this request waited for failed: counted in the totals once already, by failed(). */
  sharedCallFailed(lane: Lane | undefined): void {
    if (lane) lane.errors++;
  }

  /** --cache-only and not in the cache: an error for the lane, a miss (not an error) in the totals. */
  missed(lane: Lane | undefined): void {
    this.cacheMisses++;
    if (lane) lane.errors++;
  }
}
