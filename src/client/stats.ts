// A client's figures for the end of a run: its stats, and the one or two lines a command prints of them.
import { formatBatchStats } from '../batch/summary.js';
import type { ClientCore } from './core.js';
import type { ClientStats } from './types.js';

export function clientStats({ cfg, tally, cache, price, budget, breaker, plan, batch }: ClientCore): ClientStats {
  return {
    provider: cfg.provider,
    model: cfg.model,
    calls: tally.calls,
    cacheHits: tally.cacheHits,
    cacheMisses: tally.cacheMisses,
    errors: tally.errors,
    stopped: { ...tally.stopped },
    runStopped: breaker.reason(),
    notes: [...plan.notes],
    retries: tally.retries,
    tokens: { ...tally.tokens },
    spentUsd: tally.spentUsd,
    costUsd: tally.costUsd,
    // In batch mode the answers paid now are priced at the batch price, which the table may not give.
    priceKnown: batch ? batch.stats.multiplier !== null && price !== null : price !== null,
    corruptCacheEntries: cache.stats.corrupt,
    cacheWarnings: [...cache.stats.warnings],
    budgetExceeded: budget.exceeded,
    ...(batch ? { batch: { ...batch.stats, ids: [...batch.stats.ids] } } : {}),
  };
}

export function clientSummary(core: ClientCore): string {
  const text = formatStats(clientStats(core));
  return core.opts.maxCost !== undefined && !core.price ? `${text}\n--max-cost was not enforced: no list price for ${core.cfg.model}` : text;
}

/** Human summary of a run's provider use. */
export function formatStats(st: ClientStats): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const t = st.tokens;
  const dollars = st.priceKnown ? `$${st.spentUsd.toFixed(4)} spent ($${st.costUsd.toFixed(4)} at list price without the cache)` : 'price unknown';
  const lines: string[] = [];
  if (st.runStopped) lines.push(`run stopped: ${st.runStopped}`);
  lines.push(
    `${st.provider}/${st.model}: ${n(st.calls)} calls, ${n(st.cacheHits)} cached, ${n(st.errors)} errors` +
      `${st.retries ? `, ${n(st.retries)} retries` : ''}; tokens: ${n(t.inputTokens)} input (${n(t.cachedInputTokens)} cache reads` +
      `${t.cacheWriteTokens ? `, ${n(t.cacheWriteTokens)} cache writes` : ''}), ${n(t.outputTokens)} output` +
      `${t.thinkingTokens ? `, ${n(t.thinkingTokens)} thinking` : ''}; ${dollars}`,
  );
  const stops = Object.entries(st.stopped ?? {});
  if (stops.length) lines.push(`${n(stops.reduce((a, [, k]) => a + k, 0))} responses ended without an answer (${stops.map(([k, v]) => `${k} ${n(v)}`).join(', ')}): error rows, not cached`);
  for (const note of st.notes ?? []) lines.push(`note: ${note}`);
  if (st.cacheMisses) lines.push(`${n(st.cacheMisses)} requests missing from the cache (--cache-only): run without --cache-only to fill it`);
  if (st.corruptCacheEntries) {
    const first = st.cacheWarnings.find((w) => w.includes('corrupt')) ?? '';
    lines.push(`${n(st.corruptCacheEntries)} corrupt cache entries ignored (first: ${first})`);
  }
  const other = st.cacheWarnings.filter((w) => !w.includes('corrupt'));
  if (other.length) lines.push(`${n(other.length)} cache warnings (first: ${other[0]})`);
  if (st.budgetExceeded) lines.push('stopped calling: --max-cost reached; results cover what was done before');
  if (st.batch) lines.push(...formatBatchStats(st.batch));
  return lines.join('\n');
}
