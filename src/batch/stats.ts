// The batch mode's figures for a run: jobs submitted and picked up, what expired, failed or is still running.

export interface BatchStats {
  /** Jobs this run submitted, and the requests in them. */
  batches: number;
  submitted: number;
  /** Jobs of an earlier run this run picked up, and this run's requests found in them. */
  resumed: number;
  picked: number;
  expired: number;
  canceled: number;
  errored: number;
  /** Requests whose job was still running when --batch-wait ran out. */
  stillRunning: number;
  /** Requests sent again by --batch-retry. */
  retried: number;
  /** Answers written to the cache for requests of an earlier run's job that this run did not ask for. */
  extra: number;
  /** The batch price multiplier (null: the batch price is unknown). */
  multiplier: number | null;
  /** The provider ids of every job this run submitted or waited for. */
  ids: string[];
}
