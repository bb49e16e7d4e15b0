// Metrics of one selector run: pure functions of the decisions and the requests, so every figure can be recomputed
// from a results file. Definitions (docs/eval-trigger.md):
// - a decision with `error` is a failed call: counted apart, left out of every denominator;
// - covered request (gold set): correct when the first skill loaded is the gold one; anything else (another skill,
//   a name outside the catalogue, nothing) is a wrong load;
// - uncovered request (gold null): correct when nothing is loaded; any load (also of an unknown name) is needless;
// - a request with a target (skill-creator sets): a positive (gold = target) is the same as a covered request (a load
//   of another skill is a missed trigger); a negative (gold null) is a near miss for the target only: correct unless
//   the target loads (another skill loading is right, counted apart as "went to another skill"), needless when it does.
// - with repeats (--runs N) a rate is k/n over every decision, its interval on the effective sample size (`clusteredWilson`).
import type {
  Decision,
  TargetMetrics,
  EvalRequest,
  Failure,
  Rate,
  ScoredSkill,
  SelectorMetrics,
  SelectorRun,
  SweepPoint,
} from './types.js';

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/** Wilson score interval (95%) of k successes out of n. */
export function wilson(k: number, n: number): Rate {
  if (n === 0) return { k, n, rate: null, low: null, high: null };
  const p = k / n;
  const z2 = Z95 * Z95;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // The interval reaches 0 (k = 0) and 1 (k = n) exactly; rounding would leave 1e-17 off.
  return { k, n, rate: p, low: k === 0 ? 0 : Math.max(0, centre - half), high: k === n ? 1 : Math.min(1, centre + half) };
}

/** What a decision loaded: the catalogue skill, else the unknown name asked for, else null. */
export function loaded(d: Decision): string | null {
  return d.chosen ?? d.rawChoice ?? null;
}

/** What a request expects: its gold, and for a skill-creator request its target. */
export type Expected = string | null | Pick<EvalRequest, 'gold' | 'target'>;

/**
 * True when the decision is right for its request (errors are neither right nor wrong: check `error` first). Pass the
 * request (not only its gold) so that a target request's negative is scored against its target.
 */
export function isCorrect(d: Decision, expected: Expected): boolean {
  const { gold, target } = expected !== null && typeof expected === 'object' ? expected : { gold: expected, target: undefined };
  if (gold === null) return target !== undefined ? loaded(d) !== target : d.chosen === null && !d.rawChoice;
  return d.chosen === gold;
}

function requestIndex(requests: EvalRequest[]): Map<string, EvalRequest> {
  return new Map(requests.map((r) => [r.id, r]));
}

/** Pairs each decision with its request; decisions of unknown requests are ignored (a results file is validated). */
function paired(run: SelectorRun, requests: EvalRequest[]): { d: Decision; r: EvalRequest }[] {
  const byId = requestIndex(requests);
  const out: { d: Decision; r: EvalRequest }[] = [];
  for (const d of run.decisions) {
    const r = byId.get(d.requestId);
    if (r) out.push({ d, r });
  }
  return out;
}

// ---------------------------------------------------------------- repeats (--runs N)

/** One request's part of a rate: its successes and its decisions (errors left out). */
export interface Cluster {
  k: number;
  n: number;
}

/**
 * Intraclass correlation of the 0/1 outcome across repeats of the same request: the one-way ANOVA estimator
 * rho = (MSB - MSW) / (MSB + (n0 - 1) * MSW), n0 = (N - sum n_i^2 / N) / (a - 1), clipped to [0, 1].
 * When it cannot be estimated it is 1, the cautious value (a request counts once):
 * - no variation within any request (MSW = 0): identical repeats add nothing to the first decision; this also
 *   covers every outcome identical, so repeating a run that answers the same never narrows the interval;
 * - a single request: its between-request variance is unknowable.
 * Callers need it only when some request has more than one decision (with none, the design effect is 1 anyway).
 */
export function intraclassCorrelation(clusters: Cluster[]): number {
  const a = clusters.length;
  const N = clusters.reduce((sum, c) => sum + c.n, 0);
  const K = clusters.reduce((sum, c) => sum + c.k, 0);
  if (a < 2 || N <= a) return 1;
  // For 0/1 outcomes: within SS of a request = k - k^2/n; between SS = sum k_i^2/n_i - K^2/N.
  const sumSq = clusters.reduce((sum, c) => sum + (c.k * c.k) / c.n, 0);
  const ssw = K - sumSq;
  const ssb = sumSq - (K * K) / N;
  // Within SS is 0 exactly when every k_i is 0 or n_i, and at least 1/2 otherwise: the margin only absorbs rounding.
  if (ssw <= 1e-12) return 1;
  const msw = ssw / (N - a);
  const msb = Math.max(0, ssb) / (a - 1);
  const n0 = (N - clusters.reduce((sum, c) => sum + c.n * c.n, 0) / N) / (a - 1);
  const rho = (msb - msw) / (msb + (n0 - 1) * msw);
  return Number.isFinite(rho) ? Math.min(1, Math.max(0, rho)) : 1;
}

/**
 * A rate over requests decided one or more times. The point estimate is k/n over every decision; the Wilson 95%
 * interval is computed on the effective sample size n / deff (Kish design effect deff = 1 + (m - 1) * rho, m the
 * mean number of decisions per request), with k / deff successes. With one decision per request this is `wilson`
 * itself, byte for byte, with no extra field.
 */
export function clusteredWilson(clusters: Cluster[]): Rate {
  const k = clusters.reduce((sum, c) => sum + c.k, 0);
  const n = clusters.reduce((sum, c) => sum + c.n, 0);
  if (n === clusters.length) return wilson(k, n);
  const m = n / clusters.length;
  const deff = 1 + (m - 1) * intraclassCorrelation(clusters);
  if (deff === 1) return { ...wilson(k, n), effectiveN: n, designEffect: 1 };
  // k / deff rather than (k / n) * (n / deff): the same value, and exact when deff divides k (identical repeats).
  const { low, high } = wilson(k / deff, n / deff);
  return { k, n, rate: k / n, low, high, effectiveN: n / deff, designEffect: deff };
}

/** Adds one decision's outcome to its request's cluster. */
function tally(clusters: Map<string, Cluster>, requestId: string, success: boolean): void {
  const c = clusters.get(requestId) ?? { k: 0, n: 0 };
  c.n++;
  if (success) c.k++;
  clusters.set(requestId, c);
}

/**
 * Accuracy, wrong load and needless load of a list of (decision, request) pairs, errors left out. Decisions are
 * grouped by request so that repeats (`--runs N`) widen the intervals by their design effect (`clusteredWilson`).
 */
export function rates(pairs: { d: Decision; r: EvalRequest }[]): { accuracy: Rate; wrongLoad: Rate; needlessLoad: Rate; errors: number } {
  const correct = new Map<string, Cluster>();
  const wrong = new Map<string, Cluster>();
  const needless = new Map<string, Cluster>();
  let errors = 0;
  for (const { d, r } of pairs) {
    if (d.error !== undefined) {
      errors++;
      continue;
    }
    const ok = isCorrect(d, r);
    tally(correct, r.id, ok);
    tally(r.gold !== null ? wrong : needless, r.id, !ok);
  }
  const rate = (clusters: Map<string, Cluster>) => clusteredWilson([...clusters.values()]);
  return { accuracy: rate(correct), wrongLoad: rate(wrong), needlessLoad: rate(needless), errors };
}

// ---------------------------------------------------------------- thresholds

/** One scored request: its gold (and target, for a skill-creator request) and the best candidate (null when none). */
export interface ScoredItem {
  gold: string | null;
  top: ScoredSkill | null;
  target?: string;
}

/** A negative's load is needless when anything loads, or for a target request only when its target loads. */
function isNeedless(it: ScoredItem, load: string | null): boolean {
  return it.target !== undefined ? load === it.target : load !== null;
}

/**
 * The single best candidate of a ranking, or null when there is none or the first place is tied (e.g. every BM25
 * score 0): a tie is no evidence for either skill, and breaking it by name would count luck as a correct ranking.
 */
export function topOf(scores: ScoredSkill[] | undefined): ScoredSkill | null {
  const first = scores?.[0];
  if (!first) return null;
  const second = scores![1];
  return second && second.score >= first.score ? null : first;
}

/** The decision a score selector makes at a threshold: the single top skill when its score reaches it, else none. */
export function chooseAt(scores: ScoredSkill[] | undefined, threshold: number): string | null {
  const top = topOf(scores);
  return top && top.score >= threshold ? top.name : null;
}

/** Wrong and needless load when the top skill is loaded at `score >= threshold`. */
export function pointAt(items: ScoredItem[], threshold: number): SweepPoint {
  let covered = 0;
  let wrong = 0;
  let uncovered = 0;
  let needless = 0;
  for (const it of items) {
    const load = it.top && it.top.score >= threshold ? it.top.name : null;
    if (it.gold !== null) {
      covered++;
      if (load !== it.gold) wrong++;
    } else {
      uncovered++;
      if (isNeedless(it, load)) needless++;
    }
  }
  const wrongLoad = covered ? wrong / covered : null;
  const needlessLoad = uncovered ? needless / uncovered : null;
  const parts = [wrongLoad, needlessLoad].filter((x): x is number => x !== null);
  const mean = parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : null;
  return { threshold, wrongLoad, needlessLoad, mean };
}

/** Margin of the candidate thresholds below the lowest and above the highest score. */
const EDGE = 1e-3;

/**
 * Candidate thresholds: the midpoint between every two consecutive distinct top scores, plus one just below the
 * lowest (load everything) and one just above the highest (load nothing). Between two consecutive scores every
 * threshold gives the same decisions, so this set covers every distinct outcome.
 */
export function candidateThresholds(items: ScoredItem[]): number[] {
  const scores = [...new Set(items.flatMap((it) => (it.top ? [it.top.score] : [])))].sort((a, b) => a - b);
  if (!scores.length) return [];
  const out = [scores[0]! - EDGE];
  for (let i = 1; i < scores.length; i++) out.push((scores[i - 1]! + scores[i]!) / 2);
  out.push(scores[scores.length - 1]! + EDGE);
  return out;
}

/** The threshold sweep: wrong load, needless load and their mean at every candidate threshold, ascending. */
export function sweep(items: ScoredItem[], thresholds: number[] = candidateThresholds(items)): SweepPoint[] {
  return thresholds.map((t) => pointAt(items, t));
}

/** The point with the lowest mean of wrong and needless load; ties go to the lowest threshold. */
export function bestPoint(points: SweepPoint[]): SweepPoint | null {
  let best: SweepPoint | null = null;
  for (const p of points) {
    if (p.mean === null) continue;
    if (!best || p.mean < best.mean! - 1e-12) best = p;
  }
  return best;
}

/** Scored items of a run (first run only for repeated score selectors; errors left out). */
export function scoredItems(run: SelectorRun, requests: EvalRequest[]): ScoredItem[] {
  return paired(run, requests)
    .filter(({ d }) => d.error === undefined && d.scores !== undefined)
    .map(({ d, r }) => scoredItem(r, topOf(d.scores)));
}

export function scoredItem(r: EvalRequest, top: ScoredSkill | null): ScoredItem {
  return r.target !== undefined ? { gold: r.gold, top, target: r.target } : { gold: r.gold, top };
}

/** The threshold that minimises mean(wrong, needless) on these scores, or null when there is nothing to choose on. */
export function chooseThreshold(items: ScoredItem[]): number | null {
  return bestPoint(sweep(items))?.threshold ?? null;
}

/**
 * Separability of positives and negatives by the top score (a target request's negative counts only when its top
 * candidate is its target: any other top is right at every threshold). Undefined (null) when the set has no covered
 * or no uncovered request: with one side missing, "load everything" or "load nothing" is trivially perfect.
 */
export function separability(items: ScoredItem[]): NonNullable<SelectorMetrics['separability']> {
  let lowestCorrectPositive: number | null = null;
  let highestNegative: number | null = null;
  for (const it of items) {
    if (!it.top) continue;
    if (it.gold !== null && it.top.name === it.gold) {
      lowestCorrectPositive = lowestCorrectPositive === null ? it.top.score : Math.min(lowestCorrectPositive, it.top.score);
    }
    if (it.gold === null && isNeedless(it, it.top.name)) {
      highestNegative = highestNegative === null ? it.top.score : Math.max(highestNegative, it.top.score);
    }
  }
  const points = sweep(items);
  const best = bestPoint(points);
  const oneSided = !items.some((it) => it.gold !== null) || !items.some((it) => it.gold === null);
  return {
    lowestCorrectPositive,
    highestNegative,
    separable: oneSided ? null : lowestCorrectPositive !== null && (highestNegative === null || lowestCorrectPositive > highestNegative),
    bestThreshold: best?.threshold ?? null,
    bestMean: best?.mean ?? null,
    sweep: points,
  };
}

// ---------------------------------------------------------------- recall, confusion, failures, flakiness

/** Top-1 and top-3 recall of the gold skill in the ranked candidates (covered requests, first run, no errors). */
export function recall(run: SelectorRun, requests: EvalRequest[]): { top1: Rate; top3: Rate } {
  let n = 0;
  let top1 = 0;
  let top3 = 0;
  for (const { d, r } of paired(run, requests)) {
    if (r.gold === null || d.error !== undefined || d.scores === undefined || d.run !== 0) continue;
    n++;
    const rank = pessimisticRank(d.scores, r.gold);
    if (rank === 0) top1++;
    if (rank !== null && rank < 3) top3++;
  }
  return { top1: wilson(top1, n), top3: wilson(top3, n) };
}

/** 0-based rank of `name` counting every other candidate scored as high or higher (ties rank against it); null when absent. */
export function pessimisticRank(scores: ScoredSkill[], name: string): number | null {
  const own = scores.find((s) => s.name === name);
  if (!own) return null;
  return scores.filter((s) => s.name !== name && s.score >= own.score).length;
}

export function confusion(pairs: { d: Decision; r: EvalRequest }[]): SelectorMetrics['confusion'] {
  const counts = new Map<string, { gold: string; got: string | null; count: number }>();
  for (const { d, r } of pairs) {
    if (d.error !== undefined || r.gold === null || isCorrect(d, r)) continue;
    const got = loaded(d);
    const key = JSON.stringify([r.gold, got]);
    const entry = counts.get(key) ?? { gold: r.gold, got, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || a.gold.localeCompare(b.gold) || String(a.got).localeCompare(String(b.got)));
}

export function failures(pairs: { d: Decision; r: EvalRequest }[]): Failure[] {
  const out: Failure[] = [];
  for (const { d, r } of pairs) {
    if (d.error === undefined && isCorrect(d, r)) continue;
    const f: Failure = { requestId: r.id, text: r.text, expected: r.gold, got: loaded(d), run: d.run };
    if (r.target !== undefined) f.target = r.target;
    if (d.scores?.[0]) f.score = d.scores[0].score;
    if (d.error !== undefined) f.error = d.error;
    out.push(f);
  }
  return out;
}

/** Requests whose choice differs between runs (errors left out), in request order. */
export function flaky(pairs: { d: Decision; r: EvalRequest }[]): NonNullable<SelectorMetrics['flaky']> {
  const byRequest = new Map<string, { r: EvalRequest; choices: (string | null)[] }>();
  for (const { d, r } of pairs) {
    if (d.error !== undefined) continue;
    const entry = byRequest.get(r.id) ?? { r, choices: [] };
    entry.choices[d.run] = loaded(d);
    byRequest.set(r.id, entry);
  }
  const out: NonNullable<SelectorMetrics['flaky']> = [];
  for (const { r, choices } of byRequest.values()) {
    const present = choices.filter((c) => c !== undefined);
    if (new Set(present).size > 1) out.push({ requestId: r.id, text: r.text, choices: present });
  }
  return out;
}

/** Share of a request's runs that were right: its gold loaded (nothing for an uncovered request; not its target for a target negative). */
export function triggerRate(choices: (string | null)[], expected: Expected): number {
  const { gold, target } = expected !== null && typeof expected === 'object' ? expected : { gold: expected, target: undefined };
  const right = (c: string | null) => (gold === null && target !== undefined ? c !== target : c === gold);
  return choices.length ? choices.filter(right).length / choices.length : 0;
}

// ---------------------------------------------------------------- target skills (skill-creator sets)

export const POOLED = '(pooled)';

/**
 * Each target skill's trigger rate on its positives and false-trigger rate on its negatives (with intervals, repeats
 * clustered by request), and the loads that went to another skill, counted apart; then every target request pooled
 * when there is more than one target. Undefined (no target request) for other request sets.
 */
export function targetMetrics(pairs: { d: Decision; r: EvalRequest }[]): TargetMetrics[] | undefined {
  const targeted = pairs.filter(({ r }) => r.target !== undefined);
  if (!targeted.length) return undefined;
  const skills = [...new Set(targeted.map(({ r }) => r.target!))].sort();
  const rows = skills.map((skill) => targetRow(skill, targeted.filter(({ r }) => r.target === skill)));
  if (skills.length > 1) rows.push(targetRow(POOLED, targeted));
  return rows;
}

function targetRow(skill: string, pairs: { d: Decision; r: EvalRequest }[]): TargetMetrics {
  const trigger = new Map<string, Cluster>();
  const falseTrigger = new Map<string, Cluster>();
  let otherOnPositives = 0;
  let otherOnNegatives = 0;
  let errorsOnPositives = 0;
  let errorsOnNegatives = 0;
  for (const { d, r } of pairs) {
    if (d.error !== undefined) {
      if (r.gold !== null) errorsOnPositives++;
      else errorsOnNegatives++;
      continue;
    }
    const got = loaded(d);
    const hit = got === r.target;
    tally(r.gold !== null ? trigger : falseTrigger, r.id, hit);
    if (got !== null && !hit) {
      if (r.gold !== null) otherOnPositives++;
      else otherOnNegatives++;
    }
  }
  const rate = (clusters: Map<string, Cluster>) => clusteredWilson([...clusters.values()]);
  return { skill, trigger: rate(trigger), falseTrigger: rate(falseTrigger), otherOnPositives, otherOnNegatives, errorsOnPositives, errorsOnNegatives };
}

// ---------------------------------------------------------------- everything for one run

export function computeMetrics(run: SelectorRun, requests: EvalRequest[]): SelectorMetrics {
  const pairs = paired(run, requests);
  const { accuracy, wrongLoad, needlessLoad, errors } = rates(pairs);
  const withUsage = run.decisions.filter((d) => d.usage);
  const meanInputTokens = withUsage.length
    ? withUsage.reduce((sum, d) => sum + d.usage!.inputTokens, 0) / withUsage.length
    : null;
  const costUsd = run.decisions.reduce((sum, d) => sum + (d.costUsd ?? 0), 0) + (run.extraCostUsd ?? 0);
  const metrics: SelectorMetrics = {
    selector: run.selector,
    decisions: run.decisions.length,
    accuracy,
    wrongLoad,
    needlessLoad,
    errors,
    meanInputTokens,
    costUsd,
    confusion: confusion(pairs),
    failures: failures(pairs),
  };
  const hasScores = run.decisions.some((d) => d.scores !== undefined);
  if (run.kind === 'score') {
    metrics.separability = separability(scoredItems({ ...run, decisions: run.decisions.filter((d) => d.run === 0) }, requests));
  }
  if (hasScores) metrics.recall = recall(run, requests);
  const runs = new Set(run.decisions.map((d) => d.run));
  if (runs.size > 1) metrics.flaky = flaky(pairs);
  const targets = targetMetrics(pairs);
  if (targets) metrics.targets = targets;
  return metrics;
}
