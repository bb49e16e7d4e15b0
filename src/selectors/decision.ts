// Deciding "none" from evidence, fitted on labelled requests: a logistic model of "loading the top-ranked skill is
// right" on features of the ranking (see fused.ts), and the probability at which to load, chosen like a score
// selector's threshold (the lowest mean of wrong and needless load on the requests it is fitted on).
// What it is fitted on: covered requests whose top skill is the gold one (loading is right: 1) and uncovered requests
// (loading is needless: 0), each class weighted by 1 / its size so the fit balances wrong and needless load as the
// metric does. Covered requests whose top skill is wrong are left out: loading or not, they are a wrong load.
// Fitting: Newton's method on the L2-penalised (lambda = 1, intercept free), class-weighted log-likelihood of
// standardised features; 50 iterations at most, stopping when no weight moves by 1e-7.
// Cross-validation: requests are split into K folds, covered and uncovered separately in file order (request i of a
// class goes to fold i mod K), so every fold has both classes when there are K of each and a rerun splits the same.
import { chooseThreshold } from '../metrics.js';
import type { FittedDecision } from '../types.js';

/** One labelled example: the features of its ranking, and whether loading its top skill is right (null: indifferent). */
export interface DecisionExample {
  features: number[];
  /** true: loading is right; false: loading is needless; null: a covered request whose top skill is wrong. */
  loadIsRight: boolean | null;
  /** Covered (gold set), for the threshold's wrong-load rate. */
  covered: boolean;
  /** Whether the ranking's top skill is the gold one (covered requests). */
  topIsGold: boolean;
  /** Requests with no candidate at all (nothing to load) never load. */
  hasTop: boolean;
}

const LAMBDA = 1;
const MAX_ITERATIONS = 50;

export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

/** The probability the fitted decision gives to loading, for one feature vector. */
export function probability(fit: Pick<FittedDecision, 'mean' | 'sd' | 'weights' | 'intercept'>, features: number[]): number {
  let z = fit.intercept;
  features.forEach((x, k) => {
    z += fit.weights[k]! * ((x - fit.mean[k]!) / fit.sd[k]!);
  });
  return sigmoid(z);
}

/** Solves A x = b (A symmetric positive definite, small) by Gaussian elimination with partial pivoting. */
export function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    const p = m[col]![col]!;
    if (Math.abs(p) < 1e-300) continue;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / p;
      if (f === 0) continue;
      for (let c = col; c <= n; c++) m[r]![c]! -= f * m[col]![c]!;
    }
  }
  return m.map((row, i) => (Math.abs(row[i]!) < 1e-300 ? 0 : row[n]! / row[i]!));
}

/** Mean and standard deviation (1 where a feature does not vary) of each feature. */
function standardisation(rows: number[][], width: number): { mean: number[]; sd: number[] } {
  const mean = Array.from({ length: width }, (_, k) => rows.reduce((s, r) => s + r[k]!, 0) / (rows.length || 1));
  const sd = mean.map((mu, k) => Math.sqrt(rows.reduce((s, r) => s + (r[k]! - mu) ** 2, 0) / (rows.length || 1)) || 1);
  return { mean, sd };
}

/**
 * Fits the weights (standardised features, class-balanced, L2). With one class only the intercept moves (towards
 * loading always or never) and the weights stay 0.
 */
export function fitLogistic(examples: DecisionExample[], featureNames: string[]): Omit<FittedDecision, 'threshold'> {
  const used = examples.filter((e) => e.loadIsRight !== null && e.hasTop);
  const width = featureNames.length;
  const { mean, sd } = standardisation(used.map((e) => e.features), width);
  const positives = used.filter((e) => e.loadIsRight).length;
  const negatives = used.length - positives;
  const fittedOn = { covered: positives, uncovered: negatives };
  const weights = new Array<number>(width).fill(0);
  if (!positives || !negatives) {
    return { model: 'logistic', features: featureNames, mean, sd, weights, intercept: positives ? 4 : negatives ? -4 : 0, fittedOn };
  }
  const x = used.map((e) => [1, ...e.features.map((v, k) => (v - mean[k]!) / sd[k]!)]);
  const y = used.map((e) => (e.loadIsRight ? 1 : 0));
  // Each class sums to half of the examples' weight, so lambda means the same whatever the class sizes.
  const w = used.map((e) => (e.loadIsRight ? used.length / (2 * positives) : used.length / (2 * negatives)));
  let beta = new Array<number>(width + 1).fill(0);
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    const grad = new Array<number>(width + 1).fill(0);
    const hess = Array.from({ length: width + 1 }, () => new Array<number>(width + 1).fill(0));
    x.forEach((row, i) => {
      const p = sigmoid(row.reduce((s, v, k) => s + v * beta[k]!, 0));
      const err = w[i]! * (p - y[i]!);
      const curv = w[i]! * p * (1 - p);
      for (let a = 0; a <= width; a++) {
        grad[a]! += err * row[a]!;
        for (let b = a; b <= width; b++) hess[a]![b]! += curv * row[a]! * row[b]!;
      }
    });
    for (let a = 1; a <= width; a++) {
      grad[a]! += LAMBDA * beta[a]!;
      hess[a]![a]! += LAMBDA;
    }
    for (let a = 0; a <= width; a++) for (let b = 0; b < a; b++) hess[a]![b] = hess[b]![a]!;
    hess[0]![0]! += 1e-9; // keeps the system solvable when every example has the same prediction
    const step = solve(hess, grad);
    beta = beta.map((v, k) => v - step[k]!);
    if (Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  return { model: 'logistic', features: featureNames, mean, sd, weights: beta.slice(1), intercept: beta[0]!, fittedOn };
}

/** The probability at which to load: the lowest mean of wrong and needless load on these examples. */
export function chooseProbability(examples: DecisionExample[], fit: Omit<FittedDecision, 'threshold'>): number {
  const items = examples.map((e) => ({
    gold: e.covered ? 'gold' : null,
    top: e.hasTop ? { name: e.covered && e.topIsGold ? 'gold' : 'other', score: probability(fit, e.features) } : null,
  }));
  return chooseThreshold(items) ?? 0.5;
}

/** Fits the weights and the probability at which to load. */
export function fitDecision(examples: DecisionExample[], featureNames: string[]): FittedDecision {
  const fit = fitLogistic(examples, featureNames);
  return { ...fit, threshold: chooseProbability(examples, fit) };
}

/** Fold of each request (0..k-1): covered and uncovered apart, in order, round-robin. */
export function assignFolds(covered: boolean[], k: number): number[] {
  let c = 0;
  let u = 0;
  return covered.map((isCovered) => (isCovered ? c++ : u++) % k);
}

/** Whether k folds can each hold a covered and an uncovered request. */
export function canCrossValidate(covered: boolean[], k: number): boolean {
  const n = covered.filter(Boolean).length;
  return k >= 2 && n >= k && covered.length - n >= k;
}

/** For each fold, `fit` on the other folds applied to this one: one result per index, in order. */
export function crossValidate<T>(folds: number[], k: number, fitOn: (train: number[]) => (i: number) => T): T[] {
  const out = new Array<T>(folds.length);
  for (let f = 0; f < k; f++) {
    const train = folds.flatMap((fold, i) => (fold === f ? [] : [i]));
    const apply = fitOn(train);
    folds.forEach((fold, i) => {
      if (fold === f) out[i] = apply(i);
    });
  }
  return out;
}
