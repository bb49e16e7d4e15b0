// Live progress: the lanes of a run, whose counters callers move and the progress view reads.

/** One lane of a run (a selector or an arm). Callers mutate the counters; the progress view reads them. */
export interface Lane {
  name: string;
  total: number;
  done: number;
  inFlight: number;
  cacheHits: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  errors: number;
  /** A lane that calls no model (offline selectors): no tokens, dollars, cache hits or calls in flight to show. */
  offline?: boolean;
  /** What the lane is doing before it counts anything (e.g. "loading the offline model (first run only)"). */
  status?: string;
}

export interface Progress {
  lane(name: string, total: number, opts?: { offline?: boolean }): Lane;
  /** Ends the live view; the final tables are printed after. */
  stop(): void;
}
