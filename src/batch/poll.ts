// Polling one batch job with backoff until it ends, or until --batch-wait runs out (the job keeps running then, and
// the rerun collects it). Every state change is saved in the job's record, and said once.
import type { BatchApi, BatchStatus } from '../providers/batch/index.js';
import type { BatchHost } from './host.js';
import type { BatchRecord, BatchStore } from './store.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls one job with backoff until it ends; null when --batch-wait ran out first (counted from `startedAt`, when
 * the first round started). */
export async function waitForJob(api: BatchApi, record: BatchRecord, host: BatchHost, store: BatchStore, startedAt: number): Promise<BatchStatus | null> {
  const { settings } = host;
  const deadline = settings.waitMs === undefined ? Infinity : startedAt + settings.waitMs;
  let delay = settings.pollBaseMs;
  let said = '';
  for (;;) {
    const st = await host.withRetries((signal) => api.status(record.id!, signal));
    if (st.state !== record.lastStatus) {
      record.lastStatus = st.state;
      await store.save(record).catch(() => undefined);
    }
    const line = `${st.state}${st.total ? `, ${st.done ?? 0} of ${st.total} done` : ''}`;
    if (line !== said && !st.ended) host.notice(`batch ${record.id}: ${line}`);
    said = line;
    if (st.ended) return st;
    const left = deadline - Date.now();
    if (left <= 0) return null;
    await sleep(Math.min(delay, left));
    delay = Math.min(settings.pollMaxMs, delay * 1.5);
  }
}
