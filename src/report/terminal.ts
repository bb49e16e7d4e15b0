// The terminal report of a results file: one summary table per run, then for score selectors the separability and a
// compact threshold sweep, recall, confusion, flaky requests, failures (truncated, with a count) and the gate.
// Plain text unless `color` is set: readable in a CI log.
import { bestPoint, triggerRate } from '../metrics.js';
import { formatP } from '../gate.js';
import { incompleteText } from '../completeness.js';
import { effectiveNText, expectedText } from './format.js';
import { terminalTable } from './table.js';
import { setShape, targetSection, undefinedRateLines, type SetShape } from './targets.js';
import type { Rate, ResultsFile, SelectorMetrics, SelectorRun, SweepPoint } from '../types.js';

export interface TerminalReportOptions {
  /** Coloured table headers (a TTY). Default false. */
  color?: boolean;
  /** Failures listed per selector (default 10). */
  maxFailures?: number;
  /** Sweep rows shown around the best threshold (default 2 each side). */
  sweepContext?: number;
}

export function renderTerminalReport(results: ResultsFile, metrics: SelectorMetrics[], opts: TerminalReportOptions = {}): string {
  const out: string[] = [];
  const shape = setShape(results.requests);
  const counts = shape.allTargeted
    ? `${shape.covered} positives, ${shape.uncovered} negatives, scored against their target skill`
    : `${shape.covered} covered, ${shape.uncovered} uncovered${shape.targeted ? `; ${shape.targeted} of them skill-creator requests scored against their target` : ''}`;
  out.push(
    `${results.command}: ${results.catalogue.skills.length} skills (${results.catalogue.source}), ` +
      `${results.requests.length} requests (${counts})` +
      (shape.withCandidates ? `, ${shape.withCandidates} with their own candidate list` : '') +
      (results.catalogue.format ? `, catalogue format ${results.catalogue.format}` : ''),
  );
  const incomplete = incompleteText(results.completeness);
  if (incomplete) out.push(incomplete);
  out.push(summaryTable(results, metrics, shape, opts));
  out.push(...undefinedRateLines(shape, metrics));
  const targets = targetSection(metrics, opts);
  if (targets) out.push('', targets);
  const unnamed = results.runs.find((r) => r.selector === 'explicit' && r.decisions.every((d) => d.chosen === null && !d.rawChoice && !d.detail?.unresolved && !d.error));
  if (unnamed) {
    out.push('explicit: no request names a skill (/name or @name), so it loaded nothing: its wrong load is 100% by construction.');
  }
  const runOf = (m: SelectorMetrics) => results.runs.find((r) => r.selector === m.selector);
  for (const m of metrics) {
    const run = runOf(m);
    if (run?.threshold || m.separability) out.push('', scoreSection(m, run, opts));
  }
  const withRecall = metrics.filter((m) => m.recall);
  if (withRecall.length) out.push('', 'Recall of the gold skill in the ranking (covered requests)', recallTable(withRecall, opts));
  for (const m of metrics) {
    if (m.confusion.length) out.push('', confusionSection(m));
  }
  for (const m of metrics) {
    if (m.flaky) out.push('', flakySection(m, results));
  }
  for (const m of metrics) {
    if (m.failures.length) out.push('', failureSection(m, opts));
  }
  if (results.gate) out.push('', gateSection(results));
  return out.join('\n') + '\n';
}

function table(head: string[], opts: TerminalReportOptions, align?: ('left' | 'right')[]) {
  return terminalTable(head, { color: opts.color, align });
}

export function pct(x: number | null): string {
  return x === null ? '-' : `${(100 * x).toFixed(1)}%`;
}

/** "8.3% [2.3-25.8] 2/24"; "undefined 0/0" for a rate with nothing behind it (a line under the table says why). */
export function rateCell(r: Rate): string {
  if (r.rate === null) return `undefined 0/0`;
  return `${pct(r.rate)} [${(100 * r.low!).toFixed(1)}-${(100 * r.high!).toFixed(1)}] ${r.k}/${r.n}${effectiveNText(r)}`;
}

function money(x: number): string {
  return x === 0 ? '0' : x < 0.01 ? `$${x.toFixed(5)}` : `$${x.toFixed(3)}`;
}

function summaryTable(results: ResultsFile, metrics: SelectorMetrics[], shape: SetShape, opts: TerminalReportOptions): string {
  // A set of skill-creator requests only: its wrong load is the targets' missed triggers, its needless load their false triggers.
  const [wrong, needless] = shape.allTargeted ? ['missed trigger', 'false trigger'] : ['wrong load', 'needless load'];
  const t = table(['selector', 'n', 'accuracy', `${wrong} [95% CI] k/n`, `${needless} [95% CI] k/n`, 'errors', 'input tok/decision', 'cost'], opts, [
    'left', 'right', 'left', 'left', 'left', 'right', 'right', 'right',
  ]);
  for (const m of metrics) {
    const run = results.runs.find((r) => r.selector === m.selector);
    const label = run?.ceiling ? `${m.selector} (ceiling)` : m.selector;
    t.push([
      label,
      m.decisions,
      shape.oneSided ? 'undefined' : `${pct(m.accuracy.rate)} ${m.accuracy.k}/${m.accuracy.n}`,
      rateCell(m.wrongLoad),
      rateCell(m.needlessLoad),
      m.errors,
      m.meanInputTokens === null ? '-' : Math.round(m.meanInputTokens).toLocaleString('en-US'),
      money(m.costUsd),
    ]);
  }
  return t.toString();
}

function thresholdLine(run: SelectorRun | undefined): string {
  const th = run?.threshold;
  if (!th) return 'no threshold applied (no scores to choose it on)';
  const how =
    th.source === 'optimistic'
      ? 'optimistic: chosen on the same requests it is scored on; pass --threshold or --calibrate FILE for an honest figure'
      : th.source === 'calibrated'
        ? th.inSample
          ? `calibrated on ${th.calibrationFile ?? 'another request set'}, in-sample: ${th.inSample.shared} of its ${th.inSample.of} requests are also scored here, so the figure is optimistic on them`
          : `calibrated on ${th.calibrationFile ?? 'another request set'}`
        : th.source === 'fixed'
          ? th.calibrationFile ? `fixed by --threshold baseline: the threshold ${th.calibrationFile} applied` : 'fixed by --threshold'
          : 'default';
  return `threshold applied: ${th.value.toFixed(3)} (${how})`;
}

function scoreSection(m: SelectorMetrics, run: SelectorRun | undefined, opts: TerminalReportOptions): string {
  const lines = [`${m.selector}: ${thresholdLine(run)}`];
  const s = m.separability;
  if (s) {
    const lo = s.lowestCorrectPositive === null ? '-' : s.lowestCorrectPositive.toFixed(3);
    const hi = s.highestNegative === null ? '-' : s.highestNegative.toFixed(3);
    lines.push(
      `  lowest score of a correctly ranked positive ${lo}; highest score of a negative ${hi}: ` +
        (s.separable === null
          ? 'separability undefined (the set has only covered or only uncovered requests: see above)'
          : s.separable ? 'separable (a threshold between them refuses every negative and keeps every correct positive)' : 'NOT separable by any threshold'),
    );
    if (s.bestThreshold !== null && s.separable !== null) {
      lines.push(`  best threshold on these requests: ${s.bestThreshold.toFixed(3)} (mean of wrong and needless load ${pct(s.bestMean)}; optimistic)`);
      lines.push(sweepTable(s.sweep, s.bestThreshold, run?.threshold?.value, opts));
    }
  }
  return lines.join('\n');
}

/** A few sweep rows around the best threshold (and the applied one), plus both ends. */
function sweepTable(points: SweepPoint[], best: number, applied: number | undefined, opts: TerminalReportOptions): string {
  const ctx = opts.sweepContext ?? 2;
  const keep = new Set<number>([0, points.length - 1]);
  const around = (value: number | undefined) => {
    if (value === undefined) return;
    let idx = points.findIndex((p) => p.threshold === value);
    if (idx < 0) idx = nearest(points, value);
    for (let i = Math.max(0, idx - ctx); i <= Math.min(points.length - 1, idx + ctx); i++) keep.add(i);
  };
  around(best);
  around(applied);
  const bestP = bestPoint(points);
  const t = table(['threshold', 'wrong load', 'needless load', 'mean', ''], opts, ['right', 'right', 'right', 'right', 'left']);
  let last = -1;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (last >= 0 && i > last + 1) t.push(['...', '', '', '', '']);
    const p = points[i]!;
    const marks = [p === bestP ? 'best' : '', applied !== undefined && Math.abs(p.threshold - applied) < 1e-12 ? 'applied' : ''].filter(Boolean).join(', ');
    t.push([p.threshold.toFixed(4), pct(p.wrongLoad), pct(p.needlessLoad), pct(p.mean), marks]);
    last = i;
  }
  return `  sweep (${points.length} candidate thresholds: midpoints between distinct top scores, and both ends)\n` + t.toString();
}

function nearest(points: SweepPoint[], value: number): number {
  let best = 0;
  points.forEach((p, i) => {
    if (Math.abs(p.threshold - value) < Math.abs(points[best]!.threshold - value)) best = i;
  });
  return best;
}

function recallTable(metrics: SelectorMetrics[], opts: TerminalReportOptions): string {
  const t = table(['selector', 'top-1', 'top-3'], opts);
  for (const m of metrics) t.push([m.selector, rateCell(m.recall!.top1), rateCell(m.recall!.top3)]);
  return t.toString();
}

function confusionSection(m: SelectorMetrics, max = 10): string {
  const lines = [`${m.selector}: which skill took which skill's requests (gold -> got: count)`];
  for (const c of m.confusion.slice(0, max)) lines.push(`  ${c.gold} -> ${c.got ?? '(none)'}: ${c.count}`);
  if (m.confusion.length > max) lines.push(`  ... and ${m.confusion.length - max} more pairs`);
  return lines.join('\n');
}

function flakySection(m: SelectorMetrics, results: ResultsFile, max = 10): string {
  const flaky = m.flaky!;
  const requests = new Set(results.runs.find((r) => r.selector === m.selector)?.decisions.map((d) => d.requestId)).size;
  const lines = [`${m.selector}: ${flaky.length} of ${requests} requests changed their choice between runs`];
  const byId = new Map(results.requests.map((r) => [r.id, r]));
  for (const f of flaky.slice(0, max)) {
    const rate = triggerRate(f.choices, byId.get(f.requestId) ?? null);
    lines.push(`  ${f.requestId} (right in ${pct(rate)} of runs): ${f.choices.map((c) => c ?? '(none)').join(', ')}  "${truncate(f.text, 60)}"`);
  }
  if (flaky.length > max) lines.push(`  ... and ${flaky.length - max} more`);
  return lines.join('\n');
}

function failureSection(m: SelectorMetrics, opts: TerminalReportOptions): string {
  const max = opts.maxFailures ?? 10;
  const t = table(['request', 'text', 'expected', 'got', 'score'], opts);
  for (const f of m.failures.slice(0, max)) {
    t.push([
      truncate(f.run ? `${f.requestId} #${f.run}` : f.requestId, 40), // a long id must not widen the table past the terminal
      truncate(f.text, 50),
      expectedText({ gold: f.expected, target: f.target }),
      f.error !== undefined ? `error: ${truncate(f.error, 30)}` : (f.got ?? '(none)'),
      f.score === undefined ? '' : f.score.toFixed(3),
    ]);
  }
  const more = m.failures.length > max ? ` (first ${max} shown)` : '';
  return `${m.selector}: ${m.failures.length} failures${more}\n${t.toString()}`;
}

function gateSection(results: ResultsFile): string {
  const gate = results.gate!;
  const lines = [`gate: ${gate.passed ? 'passed' : 'FAILED'}`];
  for (const r of gate.reasons) lines.push(`  ${r}`);
  for (const n of gate.notes ?? []) lines.push(`  note: ${n}`);
  for (const m of gate.mcnemar ?? []) {
    lines.push(`  ${m.selector}: against the baseline, better on ${m.better}, worse on ${m.worse} requests (exact McNemar p = ${formatP(m.pValue)})`);
  }
  for (const l of (gate.skills ?? []).slice(0, 10)) {
    lines.push(`  ${l.failed ? 'FAILED' : 'lost  '} ${l.selector} ${l.skill}: right on ${l.before} -> ${l.after} of its ${l.paired} requests (lost ${l.lost}, regained ${l.gained})`);
  }
  const max = 20;
  for (const f of gate.flips.slice(0, max)) {
    lines.push(`  ${f.nowCorrect ? 'fixed ' : 'broken'} ${f.selector} ${f.requestId}: ${f.before ?? '(none)'} -> ${f.after ?? '(none)'}  "${truncate(f.text, 60)}"`);
  }
  if (gate.flips.length > max) lines.push(`  ... and ${gate.flips.length - max} more changed requests`);
  return lines.join('\n');
}

/** One line of at most n characters (whitespace collapsed, an ellipsis when cut). */
export function truncate(text: string, n: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}
