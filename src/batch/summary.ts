// The batch mode's lines of a client's end-of-run summary (formatStats in src/client/stats.ts).
import type { BatchStats } from './queue.js';

/** The batch mode's lines of the end-of-run summary. */
export function formatBatchStats(b: BatchStats): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const price = b.multiplier === null ? 'batch price unknown (the model table gives no batchDiscount for this model)' : `at the batch price (${b.multiplier}x the list price)`;
  const jobs = [
    b.batches ? `${n(b.submitted)} requests submitted in ${n(b.batches)} batch${b.batches === 1 ? '' : 'es'}` : '',
    b.resumed ? `${n(b.picked)} picked up from ${n(b.resumed)} batch${b.resumed === 1 ? '' : 'es'} an earlier run submitted` : '',
  ].filter(Boolean);
  const lines = [`batch: ${jobs.length ? jobs.join(', ') : 'nothing to submit (every request was cached)'}; answers ${price}${b.ids.length ? `; ids: ${b.ids.join(', ')}` : ''}`];
  const lost = b.expired + b.canceled + b.errored;
  if (lost) {
    const parts = [b.expired ? `${n(b.expired)} expired` : '', b.canceled ? `${n(b.canceled)} canceled` : '', b.errored ? `${n(b.errored)} failed` : ''].filter(Boolean).join(', ');
    lines.push(
      `batch: ${parts}${b.retried ? `; ${n(b.retried)} sent again (--batch-retry)` : ''}: error rows, not cached; rerun with --batch to submit them in a new batch, or without --batch to call them live (--batch-retry batch|live does it in the same run)`,
    );
  }
  if (b.stillRunning) lines.push(`batch: ${n(b.stillRunning)} requests still running after --batch-wait: error rows for now; rerun the same command to collect them (nothing is submitted again)`);
  if (b.extra) lines.push(`batch: ${n(b.extra)} answers to requests this run did not ask for (an earlier run's batch) were cached too`);
  return lines;
}
