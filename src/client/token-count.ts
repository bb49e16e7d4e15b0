// Exact input tokens of a request from the provider's counting API (gemini, anthropic), cached like answers.
import { cacheKey, makeEntry } from '../cache.js';
import { retryHooks, type ClientCore } from './core.js';
import { withDefaults } from './provider-config.js';
import { withRetries } from './retry.js';
import type { ClientRequest } from './types.js';

/** Exact input tokens from the provider's counting API, cached like answers; null without such an API, and with
 * --cache-only or --dry-run when not cached. */
export async function countTokens(core: ClientCore, req0: ClientRequest): Promise<number | null> {
  const { cfg, opts } = core;
  const req = withDefaults(req0, cfg.model, core.plan);
  const key = cacheKey({ op: 'countTokens', provider: cfg.provider, model: cfg.model, request: req, sample: 0 });
  if (core.readsCache) {
    const hit = await core.cache.get(key);
    if (hit && typeof hit.tokens === 'number') return hit.tokens;
  }
  if (opts.cacheOnly || opts.dryRun) return null;
  const p = await core.provider();
  if (!p.countTokens) return null;
  const n = await core.limit(() => withRetries(cfg.provider, core.policy, (signal) => p.countTokens!(req, signal), retryHooks(core)));
  if (core.writesCache) await core.cache.put(makeEntry(key, 'countTokens', cfg.provider, req, 0, { tokens: n }));
  return n;
}
