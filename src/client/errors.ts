// What the client throws when a run must not or cannot call: --cache-only misses, --dry-run skips, --max-cost
// refusals; and the end-of-run error a --cache-only miss makes.
import { ProviderError, UserError } from '../errors.js';
import type { ClientStats } from './types.js';

/** `--cache-only` and the response is not in the cache. A ProviderError, so callers record it as an error result;
 * the command reads `stats().cacheMisses` to say how many requests are missing. */
export class CacheMissError extends ProviderError {
  constructor(what: string) {
    super(`not in the cache (--cache-only): ${what}`, undefined, false);
    this.name = 'CacheMissError';
  }
}

/** `--dry-run` and the response is not cached: the call was recorded in dryRunReport(), not made. */
export class DryRunError extends ProviderError {
  constructor() {
    super('dry run: call not made', undefined, false);
    this.name = 'DryRunError';
  }
}

/** `--max-cost`: the next call could take spending past the limit. Not a ProviderError: commands catch it, keep what
 * was done, and say so. Once thrown, every later live call throws it too (cached answers are still served). */
export class BudgetExceededError extends Error {
  constructor(
    readonly maxCostUsd: number,
    readonly spentUsd: number,
  ) {
    super(`--max-cost $${maxCostUsd} reached: spent $${spentUsd.toFixed(4)}, the next call could exceed it; stopped calling`);
    this.name = 'BudgetExceededError';
  }
}

/**
 * With --cache-only, a miss leaves the figures incomplete: the run ends as bad input (exit 2), after its tables and
 * files are written, so what was replayed is kept. Null when every request was in the cache.
 */
export function cacheMissFailure(stats: Pick<ClientStats, 'cacheMisses'>[]): UserError | null {
  const missing = stats.reduce((sum, st) => sum + st.cacheMisses, 0);
  if (!missing) return null;
  return new UserError(
    `${missing.toLocaleString('en-US')} requests were not in the cache (--cache-only): the figures above are incomplete`,
    'run once without --cache-only (with a key) to fill the cache, or check that the catalogue, requests, model and options match the cached run',
  );
}
