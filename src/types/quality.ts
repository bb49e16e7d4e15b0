// eval-quality: answer quality and cost per agent mode.
import type { Rate } from './metrics.js';

/** eval-quality, one agent mode (progressive or load-all) over the quality set. */
export interface QualityModeSummary {
  mode: string;
  cases: number;
  /** Cases whose answer passed every check (and the judge, with --judge). */
  pass: Rate;
  /** Runs that ended in a provider error or without an answer (counted as failed). */
  errors: number;
  /** Mean over the cases that ran (errors included): cumulative input tokens, model calls, output tokens. */
  inputTokensPerRequest: number | null;
  callsPerRequest: number | null;
  outputTokensPerRequest: number | null;
  costUsd: number;
  /** --judge: mean score (0-1) over the judged cases. */
  judge?: { n: number; mean: number | null };
}

export interface QualitySummary {
  modes: QualityModeSummary[];
  /** progressive / load-all input tokens per request (null unless both modes ran). */
  tokenRatio: number | null;
  judged: boolean;
}
