// --batch-status and --batch-cancel: the batch jobs recorded in a cache folder, their state at the provider (when
// a key for it is set), and cancelling the unfinished ones. A cancelled job is collected by the next run of the same
// command: what it answered before the cancellation is cached, the rest are error rows (or --batch-retry).
import { resolveConfig } from '../client.js';
import { retryPolicy, withRetries } from '../client/retry.js';
import { UserError } from '../errors.js';
import type { ProviderOptions } from '../options.js';
import { loadBatchApi, type BatchApi } from '../providers/batch/index.js';
import { safeUrl } from '../secrets.js';
import { BatchStore, type BatchRecord } from './store.js';

export type BatchAction = 'status' | 'cancel';

/** The lines --batch-status or --batch-cancel prints. Records of other providers or models than --provider and
 * --model (when given) are left out. */
export async function manageBatches(opts: ProviderOptions, action: BatchAction, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const store = new BatchStore(opts.cacheDir ?? '.skillbench/cache');
  const records = store.all().filter((r) => (!opts.provider || r.provider === opts.provider) && (!opts.model || r.model === opts.model));
  const lines: string[] = [...store.warnings];
  if (!records.length) {
    lines.push(`no batch recorded in ${store.dir}${opts.provider || opts.model ? ' for this provider and model' : ''}`);
    return lines;
  }
  const apis = new Map<string, Promise<{ api: BatchApi } | { why: string }>>();
  for (const r of records) {
    lines.push(describe(r, store));
    const open = r.id && (r.state === 'submitted' || r.state === 'cancelling');
    if (!open) continue;
    const at = await (apis.get(`${r.provider} ${r.model} ${r.baseUrl}`) ?? memo(apis, r, opts, env));
    if ('why' in at) {
      lines.push(`  not ${action === 'cancel' ? 'cancelled' : 'checked'}: ${at.why}`);
      continue;
    }
    try {
      lines.push(action === 'cancel' ? await cancel(at.api, r, store) : await check(at.api, r));
    } catch (err) {
      lines.push(`  ${action === 'cancel' ? 'cancel failed' : 'status unknown'}: ${(err as Error).message}`);
    }
  }
  return lines;
}

function memo(apis: Map<string, Promise<{ api: BatchApi } | { why: string }>>, r: BatchRecord, opts: ProviderOptions, env: NodeJS.ProcessEnv) {
  const p = apiFor(r, opts, env);
  apis.set(`${r.provider} ${r.model} ${r.baseUrl}`, p);
  return p;
}

/** The batch API of the record's provider at the base URL the job was sent to, or why there is none. */
async function apiFor(r: BatchRecord, opts: ProviderOptions, env: NodeJS.ProcessEnv): Promise<{ api: BatchApi } | { why: string }> {
  let cfg;
  try {
    cfg = resolveConfig({ ...opts, provider: r.provider, model: r.model, baseUrl: opts.provider === r.provider ? opts.baseUrl : undefined, cacheOnly: false, dryRun: false }, env);
  } catch (err) {
    if (err instanceof UserError) return { why: err.message };
    throw err;
  }
  const now = safeUrl(cfg.baseUrl) ?? null;
  if (now !== r.baseUrl) {
    return { why: `the batch was sent to ${r.baseUrl ?? `${r.provider}'s default URL`}, this run would ask ${now ?? `${r.provider}'s default URL`}: pass --provider ${r.provider} --base-url ${r.baseUrl ?? '(none)'}` };
  }
  const api = await loadBatchApi(r.provider, { apiKey: cfg.apiKey!, baseUrl: cfg.baseUrl, model: r.model, timeoutMs: Math.max(cfg.timeoutMs, 300_000) });
  return { api };
}

function describe(r: BatchRecord, store: BatchStore): string {
  const outcome = r.outcome
    ? `: ${r.outcome.succeeded} answered${(['stopped', 'errored', 'expired', 'canceled'] as const).map((k) => (r.outcome![k] ? `, ${r.outcome![k]} ${k}` : '')).join('')}`
    : '';
  const state = r.state === 'submitting' ? 'submission interrupted before the provider returned an id' : r.state;
  return `${r.id ?? r.local}  ${r.provider}/${r.model}  ${r.items.length} requests  ${state}${outcome}  (created ${r.createdAt}${r.note ? `; ${r.note}` : ''}; ${store.fileOf(r.local)})`;
}

async function check(api: BatchApi, r: BatchRecord): Promise<string> {
  const st = await withRetries(r.provider, retryPolicy(), (signal) => api.status(r.id!, signal));
  const counts = st.total ? `, ${st.done ?? 0} of ${st.total} done` : '';
  const next = st.ended ? ': ended; rerun the same command to collect its answers' : ': still running; the same command with --batch waits for it';
  return `  at the provider: ${st.state}${counts}${next}`;
}

async function cancel(api: BatchApi, r: BatchRecord, store: BatchStore): Promise<string> {
  await withRetries(r.provider, retryPolicy(), (signal) => api.cancel(r.id!, signal));
  r.state = 'cancelling';
  await store.save(r);
  return `  cancel requested: the same command with --batch collects what it answered before stopping (the rest are error rows, or --batch-retry)`;
}
