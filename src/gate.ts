// CI gates. Rate gates: a selector's wrong or needless load above a maximum (with skill-creator sets, each target's
// missed and false triggers). Baseline gate: a paired comparison of per-request outcomes against an earlier results
// file, failing only on a real regression: the exact two-sided McNemar test (binomial on the discordant pairs) below
// alpha AND a minimum effect size (net worse requests, and net worse as a share of the paired requests). And per
// skill, whatever the global test says: a skill that lost most of the requests it loaded correctly in the baseline
// (a dead skill hides in a global test: 4 requests of 30 cannot reach p < 0.05). Its false-alarm rate under A/A
// runs of a noisy selector is measured by src/gate-simulation.ts (docs/eval-trigger.md, "Per-skill gate").
import { UserError } from './errors.js';
import { POOLED, isCorrect, loaded } from './metrics.js';
import type { EvalRequest, GateVerdict, ResultsFile, SelectorMetrics, SelectorRun, SkillLoss, TargetMetrics } from './types.js';

export interface BaselineGateOptions {
  /** Significance level of the exact McNemar test (default 0.05). */
  alpha: number;
  /** Net worse requests (worse - better) needed to fail (default 2). */
  minRequests: number;
  /** Net worse as a share of the paired requests needed to fail (default 0.05 = 5 percentage points). */
  minRate: number;
  /**
   * Per-skill gate: a skill fails when its correct loads fell by more than this share of those it had in the baseline
   * (net: lost minus regained), and by at least `minRequests` (default 0.5: it lost most of them).
   */
  maxSkillLoss?: number;
  /** Shown in messages. */
  baselineFile?: string;
}

export const DEFAULT_GATE: BaselineGateOptions = { alpha: 0.05, minRequests: 2, minRate: 0.05, maxSkillLoss: 0.5 };
export const DEFAULT_SKILL_LOSS = 0.5;

/** Exact two-sided McNemar p-value: binomial(n = better + worse, 1/2), doubled tail at min(better, worse), capped at 1. */
export function mcnemarExact(better: number, worse: number): number {
  const n = better + worse;
  if (n === 0) return 1;
  const m = Math.min(better, worse);
  // log pmf, built iteratively so large n neither overflows nor underflows.
  let logPmf = -n * Math.LN2;
  let tail = 0;
  for (let i = 0; i <= m; i++) {
    tail += Math.exp(logPmf);
    logPmf += Math.log(n - i) - Math.log(i + 1);
  }
  return Math.min(1, 2 * tail);
}

interface Outcome {
  text: string;
  correct: boolean;
  got: string | null;
}

/** Per request (keyed by id and text): correct when most of its error-free runs were correct; null when all failed. */
function outcomes(run: SelectorRun, results: ResultsFile): Map<string, Outcome> {
  const byId = new Map(results.requests.map((r) => [r.id, r]));
  const tally = new Map<string, { text: string; ok: number; n: number; got: string | null; firstRun: number }>();
  for (const d of run.decisions) {
    const r = byId.get(d.requestId);
    if (!r || d.error !== undefined) continue;
    const key = requestKey(r.id, r.text);
    const t = tally.get(key) ?? { text: r.text, ok: 0, n: 0, got: loaded(d), firstRun: d.run };
    t.n++;
    if (isCorrect(d, r)) t.ok++;
    if (d.run < t.firstRun) {
      t.firstRun = d.run;
      t.got = loaded(d);
    }
    tally.set(key, t);
  }
  const out = new Map<string, Outcome>();
  for (const [key, t] of tally) out.set(key, { text: t.text, correct: t.ok * 2 > t.n, got: t.got });
  return out;
}

function requestKey(id: string, text: string): string {
  return `${id}\u0000${text}`;
}

/** Compares every selector present in both files on the requests present in both (same id and text). */
export function compareToBaseline(current: ResultsFile, baseline: ResultsFile, opts: BaselineGateOptions = DEFAULT_GATE): GateVerdict {
  const name = opts.baselineFile ?? 'the baseline';
  const common = current.runs.filter((r) => !r.ceiling && baseline.runs.some((b) => b.selector === r.selector));
  if (!common.length) {
    throw new UserError(
      `${name}: no selector in common with this run (baseline has ${baseline.runs.map((r) => r.selector).join(', ') || 'none'}; this run has ${current.runs.map((r) => r.selector).join(', ') || 'none'})`,
      'pass --selectors with the selectors the baseline was run with, or write a new baseline',
    );
  }
  const shared = sharedRequests(current, baseline);
  if (!shared.size) {
    throw new UserError(`${name}: no request in common with this run (requests are matched by id and text)`,
      'run on the same request file as the baseline, or write a new baseline');
  }
  const verdict: GateVerdict = { passed: true, reasons: [], flips: [], mcnemar: [], skills: [], notes: setNotes(current, baseline, shared, name) };
  for (const run of common) {
    const before = outcomes(baseline.runs.find((b) => b.selector === run.selector)!, baseline);
    const after = outcomes(run, current);
    let better = 0;
    let worse = 0;
    let n = 0;
    let failed = 0;
    for (const key of shared) {
      const then = before.get(key);
      const now = after.get(key);
      // A request whose every call failed (in either run) has no outcome: it is neither better nor worse.
      if (!then || !now) {
        failed++;
        continue;
      }
      n++;
      if (then.correct === now.correct) continue;
      if (now.correct) better++;
      else worse++;
      const requestId = key.slice(0, key.indexOf('\u0000'));
      verdict.flips.push({ selector: run.selector, requestId, text: now.text, before: then.got, after: now.got, nowCorrect: now.correct });
    }
    const pValue = mcnemarExact(better, worse);
    verdict.mcnemar!.push({ selector: run.selector, better, worse, pValue });
    if (failed) verdict.notes!.push(`${run.selector}: ${failed} of ${shared.size} common requests not compared: every call failed (errors) in this run or in ${name}`);
    const losses = skillLosses(run.selector, shared, before, after, current.requests, opts);
    verdict.skills!.push(...losses.filter((l) => l.lost > 0 || l.failed));
    const net = worse - better;
    if (n === 0) {
      verdict.passed = false;
      verdict.reasons.push(`${run.selector}: no request could be compared with ${name}: every call failed (errors), so a regression cannot be ruled out`);
    } else if (pValue < opts.alpha && net >= opts.minRequests && net / n >= opts.minRate) {
      verdict.passed = false;
      verdict.reasons.push(
        `${run.selector}: worse than ${name} on ${worse} of ${n} paired requests, better on ${better} ` +
          `(net ${net}, ${((100 * net) / n).toFixed(1)} points; exact McNemar p = ${formatP(pValue)} < ${opts.alpha})`,
      );
    }
    for (const l of losses.filter((x) => x.failed)) {
      verdict.passed = false;
      verdict.reasons.push(
        `${run.selector}: skill ${l.skill} lost ${l.before - l.after} of the ${l.before} requests it loaded correctly in ${name} ` +
          `(now right on ${l.after} of its ${l.paired}; lost ${l.lost}, regained ${l.gained}): more than ${pct(opts.maxSkillLoss ?? DEFAULT_SKILL_LOSS)} of its correct loads, ` +
          `and more than noise explains (other skills lost ${pct(l.noise)} of theirs; p = ${formatP(l.pValue)}), whatever the global test says`,
      );
    }
  }
  verdict.skills!.sort((a, b) => Number(b.failed) - Number(a.failed) || (b.before - b.after) - (a.before - a.after) || a.skill.localeCompare(b.skill));
  return verdict;
}

/**
 * Per skill (covered requests grouped by gold; a skill-creator positive's gold is its target), the requests it loaded
 * correctly in the baseline and now, on the paired requests with an outcome in both runs. A skill fails when
 * 1. it lost most of its correct loads: they fell (net of regained ones) by at least `minRequests` and by more than
 *    `maxSkillLoss` of what it had; and
 * 2. noise does not explain it: with `noise` the loss rate of the other skills' correct requests (a request that was
 *    right and is now wrong, add-half estimate (lost + 1/2) / (right + 1)), P(Binomial(before, noise) >= lost) is below
 *    alpha / m, m the skills that could fail (Bonferroni: the family of skills keeps its false-alarm rate near alpha).
 * A deterministic selector (noise ~0) fails a dead skill of 2 requests; a noisy model on a catalogue of 200 small
 * skills needs a larger loss. src/gate-simulation.ts measures the false-alarm rate under A/A runs.
 */
export function skillLosses(
  selector: string,
  shared: Set<string>,
  before: Map<string, { correct: boolean }>,
  after: Map<string, { correct: boolean }>,
  requests: EvalRequest[],
  opts: Pick<BaselineGateOptions, 'minRequests' | 'maxSkillLoss' | 'alpha'>,
): SkillLoss[] {
  const share = opts.maxSkillLoss ?? DEFAULT_SKILL_LOSS;
  const bySkill = new Map<string, SkillLoss>();
  for (const r of requests) {
    const key = requestKey(r.id, r.text);
    if (r.gold === null || !shared.has(key)) continue;
    const then = before.get(key);
    const now = after.get(key);
    if (!then || !now) continue;
    const l = bySkill.get(r.gold) ?? { selector, skill: r.gold, paired: 0, before: 0, after: 0, lost: 0, gained: 0, noise: 0, pValue: 1, failed: false };
    l.paired++;
    if (then.correct) l.before++;
    if (now.correct) l.after++;
    if (then.correct && !now.correct) l.lost++;
    if (!then.correct && now.correct) l.gained++;
    bySkill.set(r.gold, l);
  }
  const rows = [...bySkill.values()];
  const minLoss = Math.max(1, opts.minRequests);
  const lostMost = (l: SkillLoss) => l.before > 0 && l.before - l.after >= minLoss && l.before - l.after > share * l.before;
  const atRisk = rows.filter((l) => l.before >= minLoss).length;
  const totalBefore = rows.reduce((sum, l) => sum + l.before, 0);
  const totalLost = rows.reduce((sum, l) => sum + l.lost, 0);
  for (const l of rows) {
    l.noise = (totalLost - l.lost + 0.5) / (totalBefore - l.before + 1);
    l.pValue = binomialTail(l.before, l.noise, l.lost);
    l.failed = lostMost(l) && l.pValue < opts.alpha / Math.max(1, atRisk);
  }
  return rows;
}

/** P(X >= k) for X ~ Binomial(n, p), summed in log space so large n neither overflows nor underflows. */
export function binomialTail(n: number, p: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  let logPmf = k * Math.log(p) + (n - k) * Math.log(1 - p) + logChoose(n, k);
  let tail = 0;
  for (let i = k; i <= n; i++) {
    tail += Math.exp(logPmf);
    logPmf += Math.log(n - i) - Math.log(i + 1) + Math.log(p) - Math.log(1 - p);
  }
  return Math.min(1, tail);
}

function logChoose(n: number, k: number): number {
  let out = 0;
  for (let i = 1; i <= k; i++) out += Math.log(n - k + i) - Math.log(i);
  return out;
}

/** Keys (id and text) of the requests both files have. */
function sharedRequests(current: ResultsFile, baseline: ResultsFile): Set<string> {
  const before = new Set(baseline.requests.map((r) => requestKey(r.id, r.text)));
  return new Set(current.requests.map((r) => requestKey(r.id, r.text)).filter((k) => before.has(k)));
}

/** Says what the comparison leaves out: requests or selectors present in one file only. */
function setNotes(current: ResultsFile, baseline: ResultsFile, shared: Set<string>, name: string): string[] {
  const notes: string[] = [];
  const outside = (file: ResultsFile) => file.requests.filter((r) => !shared.has(requestKey(r.id, r.text))).map((r) => r.id);
  const onlyNow = outside(current);
  const onlyThen = outside(baseline);
  if (onlyNow.length || onlyThen.length) {
    notes.push(
      `the request sets differ: compared on the ${shared.size} requests with the same id and text in both; ` +
        `not compared: ${onlyNow.length} only in this run${list(onlyNow)}, ${onlyThen.length} only in ${name}${list(onlyThen)}`,
    );
  }
  const selectors = (file: ResultsFile) => file.runs.filter((r) => !r.ceiling).map((r) => r.selector);
  const notRunNow = selectors(baseline).filter((s) => !selectors(current).includes(s));
  const notInBaseline = selectors(current).filter((s) => !selectors(baseline).includes(s));
  if (notRunNow.length) notes.push(`not compared: ${notRunNow.join(', ')} (in ${name}, not run here)`);
  if (notInBaseline.length) notes.push(`not compared: ${notInBaseline.join(', ')} (not in ${name})`);
  return notes;
}

function list(ids: string[], max = 5): string {
  if (!ids.length) return '';
  return ` (${ids.slice(0, max).join(', ')}${ids.length > max ? `, ... ${ids.length - max} more` : ''})`;
}

/** The score selectors, whose decisions depend on a threshold. */
const SCORE_SELECTORS = ['similarity', 'keyword'] as const;

/**
 * --threshold baseline: for each score selector of this run, the threshold its run in the baseline file applied, so
 * this run is measured at the baseline's threshold and a description change is not confounded with a threshold that
 * moved. A score selector the baseline did not run, or ran without a threshold, is a UserError naming the file and the
 * selector; so is a similarity baseline scored by another embedding provider or model (its cosines are not comparable).
 */
export function baselineThresholds(
  baseline: ResultsFile,
  file: string,
  selectors: readonly string[],
  embeddings: { provider: string; model?: string },
): Partial<Record<(typeof SCORE_SELECTORS)[number], number>> {
  const out: Partial<Record<(typeof SCORE_SELECTORS)[number], number>> = {};
  const scoreSelectors = SCORE_SELECTORS.filter((s) => selectors.includes(s));
  if (!scoreSelectors.length) {
    throw new UserError('--threshold baseline: no score selector (similarity, keyword) runs, so there is no threshold to take from the baseline',
      'add similarity or keyword to --selectors, or leave out --threshold');
  }
  for (const selector of scoreSelectors) {
    const run = baseline.runs.find((r) => r.selector === selector && !r.ceiling);
    const other = `pass --threshold ${selector}=X, or rerun the baseline with ${selector} among --selectors`;
    if (!run) {
      const has = baseline.runs.map((r) => r.selector).join(', ') || 'none';
      throw new UserError(`${file}: --threshold baseline: the baseline has no ${selector} run to take a threshold from (it has ${has})`, other);
    }
    if (!run.threshold) {
      throw new UserError(`${file}: --threshold baseline: the baseline's ${selector} run has no threshold (runs[].threshold is missing: its calls failed)`, other);
    }
    if (selector === 'similarity') {
      const mismatch = (run.provider !== undefined && run.provider !== embeddings.provider) ||
        (embeddings.model !== undefined && run.model !== undefined && run.model !== embeddings.model);
      if (mismatch) {
        throw new UserError(
          `${file}: --threshold baseline: the baseline's similarity scores come from ${run.provider}/${run.model ?? 'default'} embeddings, ` +
            `this run uses ${embeddings.provider}/${embeddings.model ?? 'default'}: a threshold does not carry across embedding models`,
          `pass --embeddings ${run.provider}${run.model ? ` --embedding-model ${run.model}` : ''} as the baseline did, or --threshold similarity=X`,
        );
      }
    }
    out[selector] = run.threshold.value;
  }
  return out;
}

export interface RateGateOptions {
  maxWrongLoad?: number;
  maxNeedlessLoad?: number;
}

/**
 * Reasons a selector breaks a rate gate (empty when all pass). Ceiling arms are not gated. Requests with a target
 * (skill-creator sets) are gated per target: --max-wrong-load bounds its missed triggers (positives where it did not
 * load), --max-needless-load its false triggers (negatives where it loaded); a load of another skill on a negative is
 * no needless load. Other requests are gated by the selector's wrong and needless load.
 */
export function rateGateReasons(metrics: SelectorMetrics[], runs: SelectorRun[], opts: RateGateOptions): string[] {
  const reasons: string[] = [];
  for (const m of metrics) {
    if (runs.find((r) => r.selector === m.selector)?.ceiling) continue;
    const targets = (m.targets ?? []).filter((t) => t.skill !== POOLED);
    const targeted = targets.reduce((sum, t) => sum + t.trigger.n + t.falseTrigger.n + t.errorsOnPositives + t.errorsOnNegatives, 0);
    // Every decision on a target request: the target rows say it all (the selector's rates are their pool).
    if (targeted < m.decisions) reasons.push(...loadRateReasons(m, opts));
    for (const t of targets) reasons.push(...targetRateReasons(m.selector, t, opts));
  }
  return reasons;
}

function loadRateReasons(m: SelectorMetrics, opts: RateGateOptions): string[] {
  const reasons: string[] = [];
  // A rate with no error-free decision behind it (every call failed) cannot pass a gate: errors are not "none".
  const failed = (covered: boolean) => m.failures.filter((f) => f.error !== undefined && (f.expected !== null) === covered).length;
  if (opts.maxWrongLoad !== undefined && m.wrongLoad.n === 0 && failed(true) > 0) {
    reasons.push(`${m.selector}: wrong load cannot be checked against --max-wrong-load: every call on a covered request failed (${failed(true)} errors)`);
  }
  if (opts.maxNeedlessLoad !== undefined && m.needlessLoad.n === 0 && failed(false) > 0) {
    reasons.push(`${m.selector}: needless load cannot be checked against --max-needless-load: every call on an uncovered request failed (${failed(false)} errors)`);
  }
  if (opts.maxWrongLoad !== undefined && m.wrongLoad.rate !== null && m.wrongLoad.rate > opts.maxWrongLoad) {
    reasons.push(`${m.selector}: wrong load ${pct(m.wrongLoad.rate)} (${m.wrongLoad.k}/${m.wrongLoad.n}) is above --max-wrong-load ${opts.maxWrongLoad}`);
  }
  if (opts.maxNeedlessLoad !== undefined && m.needlessLoad.rate !== null && m.needlessLoad.rate > opts.maxNeedlessLoad) {
    reasons.push(`${m.selector}: needless load ${pct(m.needlessLoad.rate)} (${m.needlessLoad.k}/${m.needlessLoad.n}) is above --max-needless-load ${opts.maxNeedlessLoad}`);
  }
  return reasons;
}

function targetRateReasons(selector: string, t: TargetMetrics, opts: RateGateOptions): string[] {
  const reasons: string[] = [];
  const { trigger, falseTrigger } = t;
  if (opts.maxWrongLoad !== undefined) {
    if (trigger.n === 0 && t.errorsOnPositives > 0) {
      reasons.push(`${selector}: missed triggers of ${t.skill} cannot be checked against --max-wrong-load: every call on its positives failed (${t.errorsOnPositives} errors)`);
    } else if (trigger.rate !== null && 1 - trigger.rate > opts.maxWrongLoad) {
      reasons.push(`${selector}: missed triggers of ${t.skill} ${pct(1 - trigger.rate)} (${trigger.n - trigger.k}/${trigger.n} positives) is above --max-wrong-load ${opts.maxWrongLoad}`);
    }
  }
  if (opts.maxNeedlessLoad !== undefined) {
    if (falseTrigger.n === 0 && t.errorsOnNegatives > 0) {
      reasons.push(`${selector}: false triggers of ${t.skill} cannot be checked against --max-needless-load: every call on its negatives failed (${t.errorsOnNegatives} errors)`);
    } else if (falseTrigger.rate !== null && falseTrigger.rate > opts.maxNeedlessLoad) {
      reasons.push(`${selector}: false triggers of ${t.skill} ${pct(falseTrigger.rate)} (${falseTrigger.k}/${falseTrigger.n} negatives) is above --max-needless-load ${opts.maxNeedlessLoad}`);
    }
  }
  return reasons;
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

export function formatP(p: number): string {
  return p < 0.001 ? p.toExponential(1) : p.toFixed(3);
}
