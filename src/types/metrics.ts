// The figures computed from a run's decisions: rates with intervals, sweeps, failures, per-target figures.

export interface Rate {
  k: number;
  n: number;
  /** k/n, or null when n is 0. */
  rate: number | null;
  /** Wilson 95% interval (with repeats, on the effective sample size below). */
  low: number | null;
  high: number | null;
  /**
   * Only when some request has more than one decision in n (`--runs N`): n / designEffect, the sample size the
   * interval was computed on (repeats of one request are correlated, not independent decisions).
   */
  effectiveN?: number;
  /** Kish design effect 1 + (m - 1) * rho of the repeats (m: mean decisions per request; rho: intraclass correlation). */
  designEffect?: number;
}

export interface SweepPoint {
  threshold: number;
  wrongLoad: number | null;
  needlessLoad: number | null;
  mean: number | null;
}

export interface Failure {
  requestId: string;
  text: string;
  expected: string | null;
  /** A skill-creator request's target (expected null then means "not the target"). */
  target?: string;
  got: string | null;
  score?: number;
  error?: string;
  run: number;
}

export interface SelectorMetrics {
  selector: string;
  decisions: number;
  accuracy: Rate;
  wrongLoad: Rate;
  needlessLoad: Rate;
  errors: number;
  meanInputTokens: number | null;
  costUsd: number;
  /** Score-based selectors only. */
  separability?: {
    lowestCorrectPositive: number | null;
    highestNegative: number | null;
    /** null: undefined, the set has no uncovered requests (nothing to separate) or no correctly ranked positive. */
    separable: boolean | null;
    bestThreshold: number | null;
    bestMean: number | null;
    sweep: SweepPoint[];
  };
  /** Recall@k of the gold skill in the ranking (covered requests; ties rank against the gold). */
  recall?: { top1: Rate; top3: Rate; top5: Rate; top10: Rate };
  /** gold -> got -> count, for covered requests not chosen correctly. */
  confusion: { gold: string; got: string | null; count: number }[];
  failures: Failure[];
  /** --runs > 1: per request trigger rate and flips. */
  flaky?: { requestId: string; text: string; choices: (string | null)[] }[];
  /** Requests with a target (skill-creator sets): each target skill's figures, then every target pooled. */
  targets?: TargetMetrics[];
}

/** One target skill's figures on its skill-creator requests (errors left out of every rate). */
export interface TargetMetrics {
  /** The target skill, or '(pooled)' for every target request together. */
  skill: string;
  /** Positives where the target loaded. */
  trigger: Rate;
  /** Negatives where the target loaded. */
  falseTrigger: Rate;
  /** Decisions that loaded a skill other than the target (or a name outside the catalogue), on positives and on negatives. */
  otherOnPositives: number;
  otherOnNegatives: number;
  /** Failed calls, counted apart (left out of the rates). */
  errorsOnPositives: number;
  errorsOnNegatives: number;
}
