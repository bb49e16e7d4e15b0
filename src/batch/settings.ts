// The batch mode's settings: --batch-wait, --batch-retry, the poll delays and the idle time before a round.

export type BatchRetry = 'none' | 'batch' | 'live';

export interface BatchSettings {
  /** --batch-wait in ms: stop waiting after this long (undefined: until every job ends). */
  waitMs?: number;
  /** --batch-retry: what becomes of requests that expired, were canceled or failed in a way worth retrying. */
  retry: BatchRetry;
  /** First poll delay, and the longest one (the delay grows 1.5x per poll). */
  pollBaseMs: number;
  pollMaxMs: number;
  /** A round starts once no call has joined the queue for this long (and no hold is open). */
  idleMs: number;
}

/** Defaults: poll after 5 s, then up to every 60 s. SKILLBENCH_BATCH_POLL_MS sets the first delay (the longest is
 * 12 times it): tests poll a local server every few ms. */
export function batchSettings(opts: { batchWait?: number; batchRetry?: string }, env: NodeJS.ProcessEnv = process.env): BatchSettings {
  const fromEnv = Number(env.SKILLBENCH_BATCH_POLL_MS);
  const base = env.SKILLBENCH_BATCH_POLL_MS && Number.isFinite(fromEnv) && fromEnv >= 0 ? fromEnv : 5000;
  return {
    waitMs: opts.batchWait === undefined ? undefined : Math.round(opts.batchWait * 1000),
    retry: (opts.batchRetry ?? 'none') as BatchRetry,
    pollBaseMs: base,
    pollMaxMs: base * 12,
    idleMs: 50,
  };
}
