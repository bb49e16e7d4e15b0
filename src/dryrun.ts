// Dry runs and replays say what they are. A --dry-run calls nothing: it prints the calls a run would make, the share
// the cache would answer and the estimated cost, and nothing that looks like a result. A --cache-only replay that
// finds requests missing from the cache says so before its tables, whose rows would otherwise look measured.
import type { DryRunReport } from './client.js';
import type { ProviderOptions } from './options.js';
import { PROVIDERS } from './providers/index.js';

const n = (x: number) => x.toLocaleString('en-US');
const count = (x: number, word: string) => `${n(x)} ${word}${x === 1 ? '' : 's'}`;

/**
 * What a dry run would call and cost: `dry run, nothing called (gemini/gemini-2.5-flash): 60 requests, 40 calls to
 * make and 20 (33%) answered from the cache; ~69,582 input + ~12,000 output tokens, ~$0.0509 at list price`, then
 * how the estimate was made and any `notes`.
 */
export function describeDryRun(r: DryRunReport, notes: string[] = []): string {
  const total = r.calls + r.cached;
  const share = total ? ` (${Math.round((100 * r.cached) / total)}%)` : '';
  const cost = r.estimatedCostUsd === null ? 'price unknown' : `~$${r.estimatedCostUsd.toFixed(4)} at list price`;
  return [
    `dry run, nothing called (${r.provider}/${r.model}): ${count(total, 'request')}, ${count(r.calls, 'call')} to make and ` +
      `${n(r.cached)}${share} answered from the cache; ~${n(r.estimatedInputTokens)} input + ~${n(r.estimatedOutputTokens)} output tokens, ${cost}`,
    `  (${r.method})`,
    ...(r.promptCache ? [`  ${r.promptCache}`] : []),
    ...notes.map((x) => `  ${x}`),
  ].join('\n');
}

/** eval-trigger --dry-run where no selector calls a model: the run would be offline and free; nothing is run. */
export function offlineDryRun(selectors: string[], requests: number, skipped: string[]): string {
  const lines = [`dry run, nothing called: ${selectors.join(', ')} call no model; the run would score ${n(requests)} requests offline, with no call and no cost.`];
  if (skipped.length) {
    lines.push(`  ${skipped.join(' and ')} would be skipped (no model API key found); to estimate them: --dry-run --provider ${PROVIDERS.join('|')} (no key needed for a dry run)`);
  }
  return lines.join('\n');
}

/**
 * A dry run needs no key: with no --provider, no key and no --base-url, it is estimated for the first provider of the
 * model table's list, and the note says so.
 */
export function dryRunProvider(opts: ProviderOptions, keyed: boolean): { opts: ProviderOptions; note?: string } {
  if (!opts.dryRun || opts.provider || opts.baseUrl || keyed) return { opts };
  const provider = PROVIDERS[0]!;
  return {
    opts: { ...opts, provider },
    note: `no --provider and no API key: estimated for ${provider}, the first provider; pass --provider ${PROVIDERS.join('|')} [--model ID] for another`,
  };
}

/**
 * Said before the tables of a --cache-only replay that missed: how many requests were not in the cache, and that
 * their rows hold errors, not decisions. Null when nothing was missing.
 */
export function cacheOnlyNotice(stats: { cacheHits: number; cacheMisses: number }, cacheDir: string | undefined, what = 'model requests'): string | null {
  if (!stats.cacheMisses) return null;
  const dir = cacheDir ?? '.skillbench/cache';
  const total = stats.cacheHits + stats.cacheMisses;
  if (!stats.cacheHits) {
    return `skillbench: --cache-only: the cache (${dir}) holds none of the ${n(total)} ${what}: every model row below is errors, not decisions; ` +
      'run once without --cache-only (with a key) to fill it, or point --cache-dir at the cache of the run to replay';
  }
  return `skillbench: --cache-only: ${n(stats.cacheMisses)} of ${n(total)} ${what} are not in the cache (${dir}): they count as errors below, not as decisions`;
}
