// One selector's run: its decisions (what was loaded, with scores, usage and errors), its threshold, fused's fit.
import type { Usage } from './chat.js';

export interface ScoredSkill {
  name: string;
  score: number;
}

export interface Decision {
  requestId: string;
  /** 0-based repeat index (`--runs N`). */
  run: number;
  /** First skill loaded; null when none was. */
  chosen: string | null;
  /** The name the model asked for when it is not in the catalogue (counts as a wrong load). */
  rawChoice?: string;
  /** A failed call: counted apart, never as "none". */
  error?: string;
  /** Why the call failed: `stop` (the model stopped without deciding: length, safety, refusal, ...; see stopReason),
   * `call` (an HTTP or connection failure after retries), `budget` (--max-cost), `cache` (--cache-only miss). */
  errorKind?: 'stop' | 'call' | 'budget' | 'cache';
  /** Score-based selectors: candidates, best first (at least the top 5). */
  scores?: ScoredSkill[];
  /** Model selectors (results version 2): the tool calls of the answer, as the model made them. */
  calls?: { name: string; args: Record<string, unknown> }[];
  /** Model selectors (results version 2): the text of the answer (what the model said instead of, or beside, a call). */
  answer?: string;
  /** Model selectors: why the answer ended: as the provider said (end_turn, tool_use, STOP, ...) for an answer; for
   * an error row of kind `stop`, the normalised reason (length, safety, refusal, malformed, other). */
  stopReason?: string;
  /**
   * The number the threshold applies to when it is not the top score (fused: the probability, from its fitted
   * decision, that loading the top skill is right).
   */
  confidence?: number;
  usage?: Usage;
  costUsd?: number;
  cached?: boolean;
  latencyMs?: number;
  /** Free-form extras (e.g. suggest's gate answers). */
  detail?: Record<string, unknown>;
}

export interface ThresholdInfo {
  value: number;
  /**
   * fixed: --threshold (a value, or `baseline`: the value the --baseline file's run applied); optimistic: chosen on the
   * same requests; calibrated: chosen on --calibrate requests.
   */
  source: 'fixed' | 'optimistic' | 'calibrated' | 'cross-validated' | 'default';
  /** Where the value was chosen: the --calibrate request file (calibrated), or the --baseline results file (fixed by --threshold baseline). */
  calibrationFile?: string;
  /** calibrated: the calibration set shares `shared` of its `of` requests (same text) with the requests scored: in-sample. */
  inSample?: { shared: number; of: number };
  /**
   * cross-validated: the number of folds. Each request was decided at the threshold (and, for fused, the decision)
   * fitted on the other folds; `value` is the one fitted on every request, which --threshold baseline reuses.
   */
  folds?: number;
}

/**
 * The fused selector's "none" decision, fitted on labelled requests: a logistic model of "loading the top skill is
 * right" on standardised features of the ranking, and the probability at which it loads.
 */
export interface FittedDecision {
  model: 'logistic';
  /** Feature names, in the order of `mean`, `sd` and `weights`. */
  features: string[];
  mean: number[];
  sd: number[];
  weights: number[];
  intercept: number;
  /** Load the top skill when the probability reaches this (the same value as the run's threshold). */
  threshold: number;
  /** Requests it was fitted on: loaded right when their top skill was the gold one, or needless when uncovered. */
  fittedOn: { covered: number; uncovered: number };
}

export interface SelectorRun {
  /** Selector or arm name: model, similarity, hybrid, keyword, explicit, baseline, suggest, oracle. */
  selector: string;
  /** decision: a yes/no choice; score: ranks then thresholds (sweep applies). */
  kind: 'decision' | 'score';
  provider?: string;
  model?: string;
  threshold?: ThresholdInfo;
  /** fused: the decision it applied (fitted here, on --calibrate requests, or taken from the --baseline file). */
  fit?: FittedDecision;
  /** A reference arm (oracle): drawn as a ceiling, not a competitor. */
  ceiling?: boolean;
  /** Extra cost of the selector not in the decisions (e.g. suggester calls), USD. */
  extraCostUsd?: number;
  decisions: Decision[];
}
