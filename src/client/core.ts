// What every call of one client shares: its settings, cache, concurrency limit, figures, budget, breaker and calls
// in flight; built once per client from the options (every check that refuses a run happens here, before any call).
import pLimit, { type LimitFunction } from 'p-limit';
import type { BatchQueue } from '../batch/queue.js';
import { BatchStore } from '../batch/store.js';
import { ResponseCache } from '../cache.js';
import { UserError } from '../errors.js';
import type { ProviderOptions } from '../options.js';
import type { ModelPlan } from '../providers/params.js';
import { KEY_VARS, loadChatProvider } from '../providers/index.js';
import { batchPriceOf, priceOf, type Price } from '../providers/pricing.js';
import { knownSecrets, registerSecret, safeUrl } from '../secrets.js';
import type { ChatProvider } from '../types.js';
import { Breaker } from './breaker.js';
import { Budget } from './budget.js';
import { cacheModes } from './cache-modes.js';
import { DryRunTally } from './dry-run.js';
import { modelPlan, resolveConfig, type ResolvedConfig } from './provider-config.js';
import { Pacer, retryPolicy, type RetryPolicy } from './retry.js';
import { ChatTally } from './tally.js';
import type { ChatResult, ClientTuning } from './types.js';

/** What every call of one client shares: its settings, cache, concurrency limit, figures and calls in flight. */
export interface ClientCore {
  opts: ProviderOptions;
  cfg: ResolvedConfig;
  /** The model's table row, its thinking parameter and notes (see providers/params.ts). */
  plan: ModelPlan;
  policy: RetryPolicy;
  /** Every lane waits when the server asks one to, and fewer attempts fly after a 429. */
  pacer: Pacer;
  /** Stops the run after the first few calls fail the same way waiting cannot cure. */
  breaker: Breaker;
  cache: ResponseCache;
  /** Look answers up in the cache: unless --no-cache (always with --cache-only). */
  readsCache: boolean;
  /** Keep live answers in the cache: unless --no-cache or --no-cache-write. */
  writesCache: boolean;
  limit: LimitFunction;
  /** Null when the model's list price is unknown: dollar figures are then 0 and --max-cost cannot be enforced. */
  price: Price | null;
  tally: ChatTally;
  dryRun: DryRunTally;
  budget: Budget;
  provider: () => Promise<ChatProvider>;
  /** Live calls not yet answered, by cache key. */
  inFlight: Map<string, Promise<ChatResult>>;
  /** Batch mode (--batch): uncached calls go through the provider's batch API. */
  batch: BatchQueue | null;
}

export function clientCore(opts: ProviderOptions, tuning: ClientTuning): ClientCore {
  const env = tuning.env ?? process.env;
  if (opts.batch && opts.cacheOnly) {
    throw new UserError('--batch and --cache-only: --cache-only never calls, so there is nothing to batch', 'drop one of them');
  }
  const cfg = resolveConfig(opts, env);
  const plan = modelPlan(cfg, opts.thinking, env);
  const price = priceOf(cfg.provider, cfg.model, { baseUrl: cfg.baseUrl });
  const tally = new ChatTally();
  // Every key in the environment, as sent (trimmed) and as written there, must stay out of cache files.
  for (const v of Object.values(KEY_VARS).flat()) registerSecret(env[v]);
  const retryDeadlineMs = tuning.retryDeadlineMs ?? (opts.maxRetryTime !== undefined ? Math.round(opts.maxRetryTime * 1000) : undefined);
  const modes = cacheModes(opts);
  return {
    opts,
    cfg,
    plan,
    policy: retryPolicy({ ...tuning, retryDeadlineMs }, env),
    pacer: new Pacer(cfg.concurrency),
    breaker: new Breaker(cfg.provider, cfg.model),
    cache: new ResponseCache(opts.cacheDir ?? '.skillbench/cache', { secrets: knownSecrets() }),
    readsCache: modes.read,
    writesCache: modes.write,
    limit: pLimit(cfg.concurrency),
    price,
    tally,
    dryRun: new DryRunTally(opts.batch ? { price: batchPriceOf(price), store: new BatchStore(opts.cacheDir ?? '.skillbench/cache'), baseUrl: safeUrl(cfg.baseUrl) ?? null } : undefined),
    budget: new Budget(opts.maxCost, tally, price),
    provider: lazyChatProvider(cfg),
    inFlight: new Map(),
    batch: null,
  };
}

/** The provider, loaded on the first live call only: a --cache-only replay needs no key and never imports an SDK. */
function lazyChatProvider(cfg: ResolvedConfig): () => Promise<ChatProvider> {
  let loaded: Promise<ChatProvider> | null = null;
  return () =>
    (loaded ??= (async () => {
      if (!cfg.apiKey) {
        // Only reachable with --cache-only/--dry-run, which never call: a bug if it happens.
        throw new UserError(`no API key for ${cfg.provider}`, `export ${KEY_VARS[cfg.provider][0]}=...`);
      }
      return loadChatProvider(cfg.provider, { apiKey: cfg.apiKey, baseUrl: cfg.baseUrl, model: cfg.model, timeoutMs: cfg.timeoutMs });
    })());
}

/** The retry loop's view of the client: its pacer, breaker, per-attempt timeout and retry counter. */
export function retryHooks(core: ClientCore) {
  return {
    pacer: core.pacer,
    timeoutMs: core.cfg.timeoutMs,
    stopped: () => core.breaker.stopped(),
    onRetry: () => void core.tally.retries++,
  };
}
