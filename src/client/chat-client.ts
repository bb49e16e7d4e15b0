// The chat client every command calls models through: provider + response cache + retries + concurrency + cost
// accounting + --dry-run / --max-cost. Providers are loaded lazily on the first live call, so a --cache-only replay
// needs no key and never imports an SDK. The pieces live beside this file; this one puts them together.
import { BatchQueue } from '../batch/queue.js';
import type { ProviderOptions } from '../options.js';
import { batchHost } from './batch-host.js';
import { chatCacheKey } from './cache-modes.js';
import { chat } from './chat.js';
import { clientCore } from './core.js';
import { withDefaults } from './provider-config.js';
import { clientStats, clientSummary } from './stats.js';
import { countTokens } from './token-count.js';
import type { ChatClient, ClientTuning } from './types.js';

export async function createChatClient(opts: ProviderOptions, tuning: ClientTuning = {}): Promise<ChatClient> {
  const core = clientCore(opts, tuning);
  if (opts.batch && !opts.dryRun) core.batch = new BatchQueue(batchHost(core, tuning));
  const batch = core.batch;
  return {
    ...(batch ? { batch: { hold: () => batch.hold() } } : {}),
    provider: core.cfg.provider,
    model: core.cfg.model,
    chat: (req, o) => chat(core, req, o),
    countTokens: (req) => countTokens(core, req),
    stats: () => clientStats(core),
    dryRunReport: () => core.dryRun.report(core.cfg, core.price, core.plan),
    summary: () => clientSummary(core),
    keyOf: (req, sample = 0) => chatCacheKey(core.cfg.provider, core.cfg.model, withDefaults(req, core.cfg.model, core.plan), sample),
  };
}
