// The outcomes of an ended job's requests: one it did not report, and the counts of those without an answer.
import type { BatchStatus, ItemOutcome } from '../providers/batch/index.js';
import type { ProviderId } from '../types.js';
import type { BatchOutcomeCounts } from './store.js';

/** The outcome of a request an ended job did not report. */
export function missingOutcome(provider: ProviderId, id: string, status: BatchStatus): ItemOutcome {
  if (status.failure) return { key: '', ok: false, ...status.failure };
  return { key: '', ok: false, reason: 'errored', message: `${provider}: batch ${id} ended (${status.state}) without a result for this request`, retryable: true };
}

export function describeCounts(c: BatchOutcomeCounts): string {
  return (['stopped', 'errored', 'expired', 'canceled'] as const).filter((k) => c[k]).map((k) => `${k} ${c[k]}`).join(', ');
}
