// The answer first: per selector its wrong and needless load and the few things worth looking at, most telling first
// (failed calls, the skill that takes another's requests, the requests that load nothing, the skill loaded needlessly,
// a threshold chosen on the very requests it is scored on, flaky requests, requests broken against the baseline).
// The terminal report and the HTML report both lead with it, in the same words.
import type { Rate, ResultsFile, SelectorMetrics, SelectorRun } from '../types.js';
import { selectorLabel } from './format.js';

export interface SelectorSummary {
  selector: string;
  /** The selector's name, with "(ceiling)" for a reference arm. */
  label: string;
  wrongLoad: Rate;
  needlessLoad: Rate;
  errors: number;
  decisions: number;
  /** What to look at, most telling first (at most `max`, default 3). Empty when every decision was right. */
  lookAt: string[];
  /** Set when the rates say nothing about the catalogue (explicit without a single /name or @name). */
  note?: string;
}

const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/** One summary per run, in the file's order. */
export function summarize(results: ResultsFile, metrics: SelectorMetrics[], max = 3): SelectorSummary[] {
  return results.runs.map((run, i) => summarizeRun(results, run, metrics[i]!, max));
}

function summarizeRun(results: ResultsFile, run: SelectorRun, m: SelectorMetrics, max: number): SelectorSummary {
  const base = { selector: run.selector, label: selectorLabel(run), wrongLoad: m.wrongLoad, needlessLoad: m.needlessLoad, errors: m.errors, decisions: m.decisions };
  if (explicitWithoutMentions(run)) {
    return { ...base, lookAt: [], note: 'no request names a skill (/name or @name), so it loaded nothing: its wrong load is 100% by construction' };
  }
  const items: { weight: number; text: string }[] = [];
  if (m.errors) {
    const first = run.decisions.find((d) => d.error !== undefined)?.error ?? '';
    items.push({ weight: Infinity, text: `${m.errors} of ${plural(m.decisions, 'call')} failed, left out of the rates (first: ${first.length > 80 ? `${first.slice(0, 79)}…` : first})` });
  }
  for (const c of m.confusion) {
    if (c.got === null) {
      const why = run.threshold ? ` (${underThreshold(run)})` : '';
      items.push({ weight: c.count, text: `${plural(c.count, `${c.gold} request`)} loaded nothing${why}` });
    } else {
      items.push({ weight: c.count, text: `${c.got} took ${plural(c.count, `${c.gold} request`)}` });
    }
  }
  const needless = new Map<string, number>();
  for (const f of m.failures) if (f.expected === null && f.error === undefined && f.got !== null) needless.set(f.got, (needless.get(f.got) ?? 0) + 1);
  for (const [skill, n] of needless) items.push({ weight: n, text: `${skill} loaded on ${plural(n, 'request')} that need${n === 1 ? 's' : ''} no skill` });
  if (m.flaky?.length) items.push({ weight: m.flaky.length, text: `${plural(m.flaky.length, 'request')} changed choice between runs` });
  const broken = results.gate?.flips.filter((f) => f.selector === run.selector && !f.nowCorrect).length ?? 0;
  if (broken) items.push({ weight: Infinity, text: `${plural(broken, 'request')} broke against the baseline` });
  // The problems by size, then the caveat about the figures themselves.
  const lookAt = items.sort((a, b) => b.weight - a.weight).slice(0, Math.max(0, max - (run.threshold?.source === 'optimistic' ? 1 : 0))).map((x) => x.text);
  if (run.threshold?.source === 'optimistic') {
    // fused decides with a fitted model: a --threshold number does not apply to it (cross-validation does).
    const fix = run.selector === 'fused' ? 'pass --cv K or --calibrate FILE' : 'pass --cv K, --calibrate FILE or --threshold';
    const what = run.selector === 'fused' ? 'decision (probability' : 'threshold';
    lookAt.push(`${what} ${run.threshold.value.toFixed(3)}${run.selector === 'fused' ? ')' : ''} was fitted on these same requests (optimistic): ${fix}`);
  }
  return { ...base, lookAt };
}

/** Why a score selector loaded nothing: its best score (fused: the top skill's probability) was under the threshold,
 *  which is one number, or one per fold when cross-validated. */
function underThreshold(run: SelectorRun): string {
  const t = run.threshold!;
  const what = run.selector === 'fused' ? "the top skill's probability" : 'best score';
  return t.source === 'cross-validated' ? `${what} under its fold's threshold` : `${what} under the threshold ${t.value.toFixed(3)}`;
}

/** explicit loaded nothing and was asked for nothing: no request names a skill. */
export function explicitWithoutMentions(run: SelectorRun): boolean {
  return run.selector === 'explicit' && run.decisions.every((d) => d.chosen === null && !d.rawChoice && !d.detail?.unresolved && !d.error);
}

/** `83.3% (20/24)`, or `n/a` when no request of the kind was decided. */
/** `1 error`, `3 errors`. */
export function errorsText(n: number): string {
  return plural(n, 'error');
}

export function shortRate(r: Rate): string {
  return r.rate === null ? 'n/a' : `${(100 * r.rate).toFixed(1)}% (${r.k}/${r.n})`;
}
