// How the score selectors (fused, similarity, keyword) turn rankings into decisions, and where their thresholds come
// from: a fixed --threshold, the --baseline file's (--threshold baseline), fitted on --calibrate requests, fitted on
// the other folds of these requests (--cv K: each request decided by what was fitted without it, the honest figure),
// or fitted on these same requests (optimistic, said so).
// similarity and keyword have one number to fit: the threshold on the top score. fused has a small decision model
// (decision.ts) and its probability threshold; the model is written to the results file (runs[].fit) so a later run
// can reuse it with --threshold baseline.
import { UserError } from '../errors.js';
import { chooseAt, chooseThreshold, scoredItem, topOf } from '../metrics.js';
import type { Decision, EvalRequest, FittedDecision, ResultsFile, ScoredSkill, SelectorRun, ThresholdInfo } from '../types.js';
import { assignFolds, canCrossValidate, crossValidate, fitDecision, probability, type DecisionExample } from './decision.js';
import { FUSED_FEATURES, type FusedItem } from './fused.js';

export type ScoreSelector = 'fused' | 'similarity' | 'keyword';

/** Folds of the default cross-validation (when every fold can hold a covered and an uncovered request). */
export const DEFAULT_FOLDS = 5;

/** Where a score selector's decision comes from in this run. */
export type ThresholdPlan =
  | { kind: 'fixed'; value: number; from?: string }
  | { kind: 'baseline-fit'; fit: FittedDecision; from: string }
  | { kind: 'calibrated'; file: string; inSample?: { shared: number; of: number } }
  | { kind: 'cross-validated'; folds: number }
  | { kind: 'optimistic'; why?: string };

/** --cv: a number of folds (>= 2), `off`, or unset (5 folds when the requests allow it, else optimistic). */
export type CvSetting = number | 'off' | undefined;

export function parseCv(value: string): number | 'off' {
  if (value.trim() === 'off') return 'off';
  const k = Number(value);
  if (!Number.isInteger(k) || k < 2) throw new UserError(`--cv: cannot read "${value}"`, 'give a number of folds of at least 2 (e.g. --cv 5), or --cv off');
  return k;
}

/** The plan when nothing fixes or calibrates the threshold: cross-validated when possible, else optimistic. */
export function foldPlan(cv: CvSetting, requests: EvalRequest[], requestsFile: string): ThresholdPlan {
  const covered = requests.map((r) => r.gold !== null);
  const counts = `${covered.filter(Boolean).length} covered, ${covered.filter((c) => !c).length} uncovered`;
  if (cv === 'off') return { kind: 'optimistic', why: '--cv off' };
  if (cv !== undefined) {
    if (!canCrossValidate(covered, cv)) {
      throw new UserError(`--cv ${cv}: ${requestsFile} has ${counts} requests; each of ${cv} folds needs a covered and an uncovered one`,
        `use fewer folds (--cv 2 needs 2 of each), add requests, or pass --calibrate FILE`);
    }
    return { kind: 'cross-validated', folds: cv };
  }
  if (canCrossValidate(covered, DEFAULT_FOLDS)) return { kind: 'cross-validated', folds: DEFAULT_FOLDS };
  return { kind: 'optimistic', why: `too few requests to cross-validate in ${DEFAULT_FOLDS} folds (${counts})` };
}

/** Fold of every request (covered and uncovered apart, round-robin in file order). */
export function foldsOf(requests: EvalRequest[], k: number): number[] {
  return assignFolds(requests.map((r) => r.gold !== null), k);
}

function info(plan: ThresholdPlan, value: number): ThresholdInfo {
  switch (plan.kind) {
    case 'fixed':
      return plan.from ? { value, source: 'fixed', calibrationFile: plan.from } : { value, source: 'fixed' };
    case 'baseline-fit':
      return { value, source: 'fixed', calibrationFile: plan.from };
    case 'calibrated':
      return { value, source: 'calibrated', calibrationFile: plan.file, ...(plan.inSample ? { inSample: plan.inSample } : {}) };
    case 'cross-validated':
      return { value, source: 'cross-validated', folds: plan.folds };
    case 'optimistic':
      return { value, source: 'optimistic' };
  }
}

// ---------------------------------------------------------------- similarity and keyword

/** A ranking, or the error text of a request the selector could not read. */
export type RankingOrError = ScoredSkill[] | { error: string };

function items(requests: EvalRequest[], rankings: RankingOrError[]) {
  return requests.flatMap((r, i) => {
    const ranking = rankings[i]!;
    return Array.isArray(ranking) ? [scoredItem(r, topOf(ranking))] : [];
  });
}

/** A similarity or keyword run: decisions at the planned threshold (per fold when cross-validated). */
export function thresholdRun(
  selector: 'similarity' | 'keyword',
  requests: EvalRequest[],
  rankings: RankingOrError[],
  plan: ThresholdPlan,
  calibration?: { requests: EvalRequest[]; rankings: RankingOrError[] },
  extra: Partial<SelectorRun> = {},
): SelectorRun {
  if (plan.kind === 'baseline-fit') throw new Error('thresholdRun: a fitted decision is for fused');
  let value: number;
  let perRequest: (i: number) => number = () => value;
  const fold = plan.kind === 'cross-validated' ? foldsOf(requests, plan.folds) : undefined;
  if (plan.kind === 'fixed') value = plan.value;
  else if (plan.kind === 'calibrated') {
    const chosen = chooseThreshold(items(calibration!.requests, calibration!.rankings));
    if (chosen === null) throw new UserError(`${plan.file}: no request to choose a threshold on`, 'give a request file with covered and uncovered requests');
    value = chosen;
  } else {
    value = chooseThreshold(items(requests, rankings)) ?? 0;
    if (plan.kind === 'cross-validated') {
      const byFold = crossValidate(fold!, plan.folds, (train) => {
        const t = chooseThreshold(items(train.map((i) => requests[i]!), train.map((i) => rankings[i]!))) ?? 0;
        return () => t;
      });
      perRequest = (i) => byFold[i]!;
    }
  }
  const decisions: Decision[] = requests.map((r, i) => {
    const ranking = rankings[i]!;
    if (!Array.isArray(ranking)) return { requestId: r.id, run: 0, chosen: null, error: ranking.error };
    const d: Decision = { requestId: r.id, run: 0, chosen: chooseAt(ranking, perRequest(i)), scores: ranking };
    if (fold) d.detail = { fold: fold[i], threshold: perRequest(i) };
    return d;
  });
  return { selector, kind: 'score', threshold: info(plan, value!), ...extra, decisions };
}

// ---------------------------------------------------------------- fused

/** A fused item as an example for the decision: is loading its top skill right, needless, or beside the point? */
export function decisionExample(request: EvalRequest, item: FusedItem): DecisionExample {
  const top = topOf(item.ranking)?.name ?? null;
  const covered = request.gold !== null;
  const topIsGold = covered && top === request.gold;
  return {
    features: item.features,
    loadIsRight: !covered ? false : topIsGold ? true : null,
    covered,
    topIsGold,
    hasTop: top !== null,
  };
}

function examplesOf(requests: EvalRequest[], fused: FusedItem[], only?: number[]): DecisionExample[] {
  const idx = only ?? requests.map((_, i) => i);
  return idx.filter((i) => !fused[i]!.unreadable).map((i) => decisionExample(requests[i]!, fused[i]!));
}

/** Checks that a fit from a results file has the features this skillbench computes, in the same order. */
export function checkFit(fit: FittedDecision, file: string): FittedDecision {
  const same = fit.features.length === FUSED_FEATURES.length && fit.features.every((f, i) => f === FUSED_FEATURES[i]);
  const sized = [fit.mean, fit.sd, fit.weights].every((a) => Array.isArray(a) && a.length === fit.features.length);
  if (!same || !sized) {
    throw new UserError(`${file}: --threshold baseline: the baseline's fused decision uses the features ${fit.features.join(', ')}; this skillbench computes ${FUSED_FEATURES.join(', ')}`,
      'rerun the baseline with this skillbench');
  }
  return fit;
}

/**
 * --threshold baseline for fused: the decision the baseline's fused run applied (runs[].fit). A baseline without a
 * fused run or without its fit, one whose features differ, or one scored with other embeddings is a UserError naming
 * the file, before any call.
 */
export function fusedFitFromBaseline(baseline: ResultsFile, file: string, embeddings: { provider: string; model?: string }): FittedDecision {
  const run = baseline.runs.find((r) => r.selector === 'fused' && !r.ceiling);
  const other = 'rerun the baseline with fused among --selectors (a results file written by this skillbench), or leave fused out of --selectors';
  if (!run) {
    const has = baseline.runs.map((r) => r.selector).join(', ') || 'none';
    throw new UserError(`${file}: --threshold baseline: the baseline has no fused run to take its decision from (it has ${has})`, other);
  }
  if (!run.fit) throw new UserError(`${file}: --threshold baseline: the baseline's fused run has no fitted decision (runs[].fit is missing: its calls failed)`, other);
  const mismatch = (run.provider !== undefined && run.provider !== embeddings.provider) ||
    (embeddings.model !== undefined && run.model !== undefined && run.model !== embeddings.model);
  if (mismatch) {
    throw new UserError(
      `${file}: --threshold baseline: the baseline's fused scores come from ${run.provider}/${run.model ?? 'default'} embeddings, ` +
        `this run uses ${embeddings.provider}/${embeddings.model ?? 'default'}: a fitted decision does not carry across embedding models`,
      `pass --embeddings ${run.provider}${run.model ? ` --embedding-model ${run.model}` : ''} as the baseline did`,
    );
  }
  return checkFit(run.fit, file);
}

/** The fused run: the ranking's top skill loaded when the decision's probability reaches its threshold. */
export function fusedRun(
  requests: EvalRequest[],
  fused: FusedItem[],
  plan: ThresholdPlan,
  calibration?: { requests: EvalRequest[]; fused: FusedItem[] },
  extra: Partial<SelectorRun> = {},
): SelectorRun {
  if (plan.kind === 'fixed') throw new UserError('--threshold: a number does not apply to fused (it decides with a fitted model)', 'use --threshold baseline to reuse a baseline\'s fused decision, or --calibrate / --cv to fit it');
  const names = [...FUSED_FEATURES];
  let fit: FittedDecision;
  let perRequest: (i: number) => FittedDecision = () => fit;
  const fold = plan.kind === 'cross-validated' ? foldsOf(requests, plan.folds) : undefined;
  if (plan.kind === 'baseline-fit') fit = plan.fit;
  else if (plan.kind === 'calibrated') fit = fitDecision(examplesOf(calibration!.requests, calibration!.fused), names);
  else {
    fit = fitDecision(examplesOf(requests, fused), names);
    if (fold) {
      const byFold = crossValidate(fold, (plan as { folds: number }).folds, (train) => {
        const f = fitDecision(examplesOf(requests, fused, train), names);
        return () => f;
      });
      perRequest = (i) => byFold[i]!;
    }
  }
  const decisions: Decision[] = requests.map((r, i) => {
    const item = fused[i]!;
    if (item.unreadable) return { requestId: r.id, run: 0, chosen: null, error: item.unreadable };
    const top = topOf(item.ranking);
    const applied = perRequest(i);
    const d: Decision = { requestId: r.id, run: 0, chosen: null, scores: item.ranking };
    // The top candidate's features are kept: `report --merge` refits the decision on every shard's requests from them.
    d.detail = { features: item.features };
    if (top) {
      d.confidence = probability(applied, item.features);
      if (d.confidence >= applied.threshold) d.chosen = top.name;
    }
    if (fold) d.detail = { ...d.detail, fold: fold[i], threshold: applied.threshold };
    return d;
  });
  return { selector: 'fused', kind: 'score', threshold: info(plan, fit!.threshold), fit: fit!, ...extra, decisions };
}
