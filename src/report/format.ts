// Formatting shared by the report formats, so that every format prints a figure the same way, and the per-decision
// outcome that the row formats (CSV, JUnit) show. Outcomes use metrics.ts's own definitions (isCorrect, loaded).
import { computeMetrics, isCorrect, loaded, wilson, type Expected } from '../metrics.js';
import type { Decision, EvalRequest, QualityModeSummary, Rate, ResultsFile, SelectorMetrics, SelectorRun } from '../types.js';

export type Outcome = 'correct' | 'wrong-load' | 'needless-load' | 'error';

/**
 * What one decision counts as: an error apart, else right, else a wrong load (covered) or a needless load. Pass the
 * request: a skill-creator negative is right unless its target loads.
 */
export function outcomeOf(d: Decision, expected: Expected): Outcome {
  if (d.error !== undefined) return 'error';
  if (isCorrect(d, expected)) return 'correct';
  const gold = expected !== null && typeof expected === 'object' ? expected.gold : expected;
  return gold === null ? 'needless-load' : 'wrong-load';
}

export { loaded };

/** Each decision of a run paired with its request, in the run's order (decisions of unknown requests skipped). */
export function decisionRows(results: ResultsFile, run: SelectorRun): { d: Decision; r: EvalRequest }[] {
  const byId = new Map(results.requests.map((r) => [r.id, r]));
  const rows: { d: Decision; r: EvalRequest }[] = [];
  for (const d of run.decisions) {
    const r = byId.get(d.requestId);
    if (r) rows.push({ d, r });
  }
  return rows;
}

/** True when some request of some run was repeated (--runs N): row names then carry the run number. */
export function hasRepeats(results: ResultsFile): boolean {
  return results.runs.some((run) => run.decisions.some((d) => d.run > 0));
}

/** 12.5% (one decimal), or n/a for an empty rate. */
export function pct(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? 'n/a' : `${(100 * x).toFixed(digits)}%`;
}

/** `12.5% (3/24)`. */
export function rateText(r: Rate): string {
  return r.rate === null ? `n/a (0/0)` : `${pct(r.rate)} (${r.k}/${r.n})`;
}

/** `[4.3–31.0]` percent bounds of the Wilson interval (with the effective n under --runs), or '' for an empty rate. */
export function intervalText(r: Rate): string {
  if (r.low === null || r.high === null) return '';
  return `[${(100 * r.low).toFixed(1)}–${(100 * r.high).toFixed(1)}]${effectiveNText(r)}`;
}

/**
 * ` (eff. n 6.4)` when repeats of the same request (--runs N) made the interval as wide as that many independent
 * decisions would; '' otherwise (one run per request, or repeats that behave as independent).
 */
export function effectiveNText(r: Rate): string {
  return r.effectiveN !== undefined && r.designEffect !== undefined && r.designEffect > 1 ? ` (eff. n ${r.effectiveN.toFixed(1)})` : '';
}

export function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function usd(n: number): string {
  return n === 0 ? '$0' : n < 0.01 ? `$${n.toFixed(6)}` : `$${n.toFixed(4)}`;
}

export function score(n: number | undefined): string {
  return n === undefined ? '' : n.toFixed(3);
}

/** `0.550 (optimistic)` for a score selector's threshold, '' otherwise. */
export function thresholdText(run: SelectorRun): string {
  const th = run.threshold;
  if (!th) return '';
  const from = th.source === 'fixed' && th.calibrationFile ? ` from ${th.calibrationFile}` : '';
  return `${th.value.toFixed(3)} (${th.source}${from})`;
}

/** Selector label with the ceiling marked in words, never by colour alone. */
export function selectorLabel(run: SelectorRun): string {
  return run.ceiling ? `${run.selector} (ceiling)` : run.selector;
}

/** `2026-11-29 12:00 UTC` from an ISO date; the text as it is when it is not one. */
export function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function skillText(name: string | null): string {
  return name ?? '(none)';
}

/** What a request expects, in words: its gold skill, "(none)", or for a skill-creator negative "not <target>". */
export function expectedText(r: { gold: string | null; target?: string }): string {
  return r.gold === null && r.target !== undefined ? `not ${r.target}` : skillText(r.gold);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** What every format is rendered from: the results file, its metrics recomputed, and an optional baseline. */
export interface ReportInput {
  results: ResultsFile;
  /** One per run, in the order of results.runs. */
  metrics: SelectorMetrics[];
  baseline?: { file: string; results: ResultsFile; metrics: SelectorMetrics[] };
}

export function reportInput(results: ResultsFile, baseline?: { file: string; results: ResultsFile }): ReportInput {
  const metricsOf = (r: ResultsFile) => r.runs.map((run) => computeMetrics(run, r.requests));
  return {
    results,
    metrics: metricsOf(results),
    ...(baseline ? { baseline: { ...baseline, metrics: metricsOf(baseline.results) } } : {}),
  };
}

// ---------------------------------------------------------------- eval-quality results

/** A quality case's verdict as recorded in its decision (`detail.passed`), or undefined for other results. */
export function passedOf(d: Decision): boolean | undefined {
  const passed = d.detail?.passed;
  return typeof passed === 'boolean' ? passed : undefined;
}

/** True for a quality case that failed: its answer failed a check (or the judge), or the run ended in an error. */
export function failedCase(d: Decision): boolean {
  return passedOf(d) === false || d.error !== undefined;
}

/**
 * Why a quality case failed, as one line ('' for a case that passed): the checks it failed (`detail.failures`; for a
 * run without an answer, `no answer: ...`), else the run's error, then the judge's score and reason (`detail.judge`).
 */
export function whyFailed(d: Decision): string {
  if (!failedCase(d)) return '';
  const recorded = d.detail?.failures;
  const failures = Array.isArray(recorded) ? recorded.map(String) : [];
  const checks = failures.length ? failures.join('; ') : (d.error ?? 'checks passed');
  return checks + judgeText(d.detail?.judge);
}

function judgeText(judge: unknown): string {
  if (typeof judge !== 'object' || judge === null) return '';
  const j = judge as { score?: unknown; reason?: unknown; error?: unknown };
  if (typeof j.score === 'number') return `; judge ${j.score.toFixed(2)}${typeof j.reason === 'string' && j.reason ? `: ${j.reason}` : ''}`;
  return typeof j.error === 'string' ? `; judge error: ${j.error}` : '';
}

/** The failed quality cases of every mode, in the file's order (what the terminal and Markdown list). */
export function failingCases(results: ResultsFile): { mode: string; d: Decision; r: EvalRequest | undefined; why: string }[] {
  const byId = new Map(results.requests.map((r) => [r.id, r]));
  return results.runs.flatMap((run) => run.decisions.filter(failedCase).map((d) => ({ mode: run.selector, d, r: byId.get(d.requestId), why: whyFailed(d) })));
}

/** One row per agent mode: the pass rate recomputed from the verdicts, and the mode's figures from the file's summary. */
export function qualityRows(results: ResultsFile): { mode: string; pass: Rate; summary: QualityModeSummary | undefined }[] {
  return results.runs.map((run) => ({ mode: run.selector, pass: passRate(run), summary: results.quality?.modes.find((m) => m.mode === run.selector) }));
}

/** A per-request mean (tokens, calls) with thousands separators and `digits` decimals; `missing` when there is none. */
export function figure(x: number | null | undefined, digits = 0, missing = '–'): string {
  return x === null || x === undefined ? missing : x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `0.90 (2)`: the judge's mean score and how many answers it judged. */
export function judgeMeanText(judge: QualityModeSummary['judge'], missing = '–'): string {
  return judge ? `${figure(judge.mean, 2, missing)} (${judge.n})` : missing;
}

/** True for eval-quality results: answers checked per case, rendered as pass rates rather than load rates. */
export function isQuality(results: ResultsFile): boolean {
  return results.command === 'eval-quality' || results.quality !== undefined;
}

/** Pass rate of one mode, recomputed from its decisions (the figure every format shows). */
export function passRate(run: SelectorRun): Rate {
  const verdicts = run.decisions.map(passedOf).filter((p): p is boolean => p !== undefined);
  return wilson(verdicts.filter(Boolean).length, verdicts.length);
}

// ---------------------------------------------------------------- suggest --eval arms

export interface ArmFlipRow {
  arm: string;
  requestId: string;
  text: string;
  gold: string | null;
  /** What the baseline arm loaded on the same request and run (undefined when it has no such decision). */
  before: string | null | undefined;
  after: string | null;
  change: 'fixed' | 'broken';
}

/** Requests an arm fixed or broke against the baseline arm, as marked in its decisions (`detail.versusBaseline`). */
export function armFlips(results: ResultsFile): ArmFlipRow[] {
  const byId = new Map(results.requests.map((r) => [r.id, r]));
  const baseline = results.runs.find((r) => r.selector === 'baseline');
  const rows: ArmFlipRow[] = [];
  for (const run of results.runs) {
    for (const d of run.decisions) {
      const change = d.detail?.versusBaseline;
      if (change !== 'fixed' && change !== 'broken') continue;
      const r = byId.get(d.requestId);
      const b = baseline?.decisions.find((x) => x.requestId === d.requestId && x.run === d.run);
      rows.push({ arm: run.selector, requestId: d.requestId, text: r?.text ?? '', gold: r?.gold ?? null, before: b ? loaded(b) : undefined, after: loaded(d), change });
    }
  }
  // Broken first: what a reviewer needs to see.
  return rows.sort((a, b) => Number(a.change === 'fixed') - Number(b.change === 'fixed'));
}
