// What the batch mode (src/batch/queue.ts) needs of its client, built from the client's core: the batch API is
// loaded on its first use, like the chat provider.
import { batchSettings, type BatchHost } from '../batch/queue.js';
import { UserError } from '../errors.js';
import { loadBatchApi, type BatchApi } from '../providers/batch/index.js';
import { KEY_VARS } from '../providers/index.js';
import { batchPriceOf } from '../providers/pricing.js';
import { callOnce, unansweredError } from './chat.js';
import { retryHooks, type ClientCore } from './core.js';
import { withRetries } from './retry.js';
import type { ClientTuning } from './types.js';

/** What the batch mode (src/batch/queue.ts) uses of its client: the cache, the figures, the budget at the batch
 * price, the retry loop for the batch API's own calls, and one live call for --batch-retry live. */
export function batchHost(core: ClientCore, tuning: ClientTuning): BatchHost {
  const { cfg } = core;
  const batchPrice = batchPriceOf(core.price);
  // Submissions and result files can be large: a batch API call gets at least 5 minutes.
  const timeoutMs = Math.max(cfg.timeoutMs, 300_000);
  let api: Promise<BatchApi> | null = null;
  return {
    provider: cfg.provider,
    model: cfg.model,
    baseUrl: cfg.baseUrl,
    cacheDir: core.opts.cacheDir ?? '.skillbench/cache',
    cache: core.cache,
    batchPrice,
    budgetPrice: batchPrice ?? core.price,
    tally: core.tally,
    reserve: (req, price) => core.budget.reserve(req, price),
    release: (usd) => core.budget.release(usd),
    withRetries: (fn) => withRetries(cfg.provider, core.policy, fn, { ...retryHooks(core), timeoutMs }),
    api: () =>
      (api ??= (async () => {
        // Only reachable with a key (resolveConfig refuses a live run without one): a bug otherwise.
        if (!cfg.apiKey) throw new UserError(`no API key for ${cfg.provider}`, `export ${KEY_VARS[cfg.provider][0]}=...`);
        return loadBatchApi(cfg.provider, { apiKey: cfg.apiKey, baseUrl: cfg.baseUrl, model: cfg.model, timeoutMs });
      })()),
    unanswered: (response) => unansweredError(cfg.provider, response),
    live: (req, key, sample, lane) => callOnce(core, req, key, sample, lane, performance.now()),
    notice: tuning.notice ?? ((line) => console.error(`skillbench: ${line}`)),
    settings: batchSettings(core.opts, tuning.env ?? process.env),
  };
}
