// The terminal report of a results file. The answer first: per selector its wrong and needless load and what to look
// at (src/report/summary.ts); then the details: the table of rates with their intervals, for score selectors the
// threshold, separability and a compact sweep, recall, confusion, flaky requests, failures (truncated, with a count)
// and the gate. Everything fits the width it is given (80 columns and up): tables shrink their text columns, wrap
// skill names and put an interval on its own line; prose wraps with a hanging indent. Plain text unless `color`.
import { bestPoint, triggerRate } from '../metrics.js';
import { formatP } from '../gate.js';
import { colors, type Colors } from '../colors.js';
import { incompleteText } from '../completeness.js';
import { effectiveNText, expectedText } from './format.js';
import { setShape, targetSection, undefinedRateLines, type SetShape } from './targets.js';
import { errorsText, explicitWithoutMentions, shortRate, summarize } from './summary.js';
import { terminalTable, type Fit } from './table.js';
import { displayWidth, truncate as fitText, wrap } from '../text-width.js';
import { languageFigures } from './languages.js';
import type { Rate, ResultsFile, SelectorMetrics, SelectorRun, SweepPoint } from '../types.js';

export interface TerminalReportOptions {
  /** Colour (headers, selector names, the verdict). Default false. */
  color?: boolean;
  /** Columns to fit (default 120: a CI log or a pipe has no width of its own). */
  width?: number;
  /** Failures listed per selector (default 10). */
  maxFailures?: number;
  /** Sweep rows shown around the best threshold (default 2 each side). */
  sweepContext?: number;
}

interface Ctx {
  opts: TerminalReportOptions;
  width: number;
  c: Colors;
}

export function renderTerminalReport(results: ResultsFile, metrics: SelectorMetrics[], opts: TerminalReportOptions = {}): string {
  const ctx: Ctx = { opts, width: Math.max(40, opts.width ?? 120), c: colors(Boolean(opts.color)) };
  const out: string[] = [];
  const shape = setShape(results.requests);
  const counts = shape.allTargeted
    ? `${shape.covered} positives, ${shape.uncovered} negatives, scored against their target skill`
    : `${shape.covered} covered, ${shape.uncovered} uncovered${shape.targeted ? `; ${shape.targeted} of them skill-creator requests scored against their target` : ''}`;
  out.push(
    para(
      `${results.command}: ${results.catalogue.skills.length} skills (${results.catalogue.source}), ` +
        `${results.requests.length} requests (${counts})` +
        (shape.withCandidates ? `, ${shape.withCandidates} with their own candidate list` : '') +
        (results.catalogue.format ? `, catalogue format ${results.catalogue.format}` : ''),
      ctx.width,
    ),
  );
  // An incomplete run says so before any figure: the figures below have holes in them.
  const incomplete = incompleteText(results.completeness);
  if (incomplete) out.push(ctx.c.red(para(incomplete, ctx.width, 2)));
  out.push(
    '',
    summarySection(results, metrics, ctx),
    '',
    ctx.c.bold('Details'),
    summaryTable(results, metrics, shape, ctx),
    ...undefinedRateLines(shape, metrics).map((l) => para(l, ctx.width, 2)),
  );
  const targets = targetSection(metrics, { color: ctx.opts.color });
  if (targets) out.push('', targets);
  const runOf = (m: SelectorMetrics) => results.runs.find((r) => r.selector === m.selector);
  const shown = metrics.filter((m) => {
    const run = runOf(m);
    return !(run && explicitWithoutMentions(run));
  });
  for (const m of metrics) {
    const run = runOf(m);
    if (run?.threshold || m.separability) out.push('', scoreSection(m, run, ctx));
  }
  const withRecall = metrics.filter((m) => m.recall);
  if (withRecall.length) out.push('', para('Recall@k of the gold skill in the ranking (covered requests; hybrid: its prefilter\'s)', ctx.width, 2), recallTable(withRecall, ctx));
  const languages = languageSection(results, ctx);
  if (languages) out.push('', languages);
  for (const m of shown) {
    if (m.confusion.length) out.push('', confusionSection(m, ctx));
  }
  for (const m of shown) {
    if (m.flaky) out.push('', flakySection(m, results, ctx));
  }
  for (const m of shown) {
    if (m.failures.length) out.push('', failureSection(m, runOf(m), ctx));
  }
  for (const m of metrics.filter((x) => !shown.includes(x))) {
    out.push('', para(`${m.selector}: ${m.failures.length} failures, every one by construction (no request names a skill); not listed`, ctx.width, 2));
  }
  // The last screen of a long report repeats the answer in one line per selector (the summary is at the top).
  out.push('', recap(results, metrics, ctx));
  if (results.gate) out.push('', gateSection(results, ctx));
  return out.join('\n') + '\n';
}

/** Text wrapped to `width`, the lines after the first indented by `indent` spaces. */
function para(text: string, width: number, indent = 0, first = ''): string {
  const lead = displayWidth(first);
  const lines = wrap(text, Math.max(10, width - Math.max(lead, indent)));
  return lines.map((l, i) => (i === 0 ? first + l : ' '.repeat(Math.max(lead, indent)) + l)).join('\n');
}

// ---------------------------------------------------------------- the answer first

function summarySection(results: ResultsFile, metrics: SelectorMetrics[], ctx: Ctx): string {
  const summaries = summarize(results, metrics);
  const nameWidth = Math.min(16, Math.max(...summaries.map((s) => displayWidth(s.label))));
  const lines = [ctx.c.bold('Summary')];
  for (const s of summaries) {
    const name = fitText(s.label, nameWidth).padEnd(nameWidth);
    const head = `  ${ctx.c.bold(name)}  `;
    const headWidth = 2 + nameWidth + 2;
    if (s.note) {
      lines.push(head + para(s.note, ctx.width - headWidth, 0).split('\n').join('\n' + ' '.repeat(headWidth)));
      continue;
    }
    const errors = s.errors ? `, ${ctx.c.red(errorsText(s.errors))}` : '';
    lines.push(head + para(`wrong load ${shortRate(s.wrongLoad)}, needless load ${shortRate(s.needlessLoad)}${errors}`, ctx.width - headWidth).split('\n').join('\n' + ' '.repeat(headWidth)));
    if (!s.lookAt.length) lines.push(`${' '.repeat(headWidth)}every decision right`);
    for (const item of s.lookAt) lines.push(para(item, ctx.width, headWidth + 2, `${' '.repeat(headWidth)}- `));
  }
  return lines.join('\n');
}

/** `In short: similarity wrong 83.3% (20/24), needless 0.0% (0/6); keyword ...`, wrapped. */
function recap(results: ResultsFile, metrics: SelectorMetrics[], ctx: Ctx): string {
  const parts = summarize(results, metrics).map((s) =>
    s.note ? `${s.label} measured nothing (no request names a skill)` : `${s.label} wrong ${shortRate(s.wrongLoad)}, needless ${shortRate(s.needlessLoad)}${s.errors ? `, ${errorsText(s.errors)}` : ''}`,
  );
  return para(`In short: ${parts.join('; ')} (details above; every request with its ranking: -o report.html)`, ctx.width, 2);
}

// ---------------------------------------------------------------- details

function table(head: string[], ctx: Ctx, align?: ('left' | 'right')[], fit?: Fit[], min?: (number | undefined)[], weight?: number[]) {
  return terminalTable(head, { color: ctx.opts.color, align, width: ctx.width, fit, min, weight });
}

function pct(x: number | null): string {
  return x === null ? '-' : `${(100 * x).toFixed(1)}%`;
}

/** "8.3% [2.3-25.8] 2/24"; "undefined 0/0" for a rate with nothing behind it (a line under the table says why). */
export function rateCell(r: Rate): string {
  if (r.rate === null) return `undefined 0/0`;
  return `${pct(r.rate)} [${(100 * r.low!).toFixed(1)}-${(100 * r.high!).toFixed(1)}] ${r.k}/${r.n}${effectiveNText(r)}`;
}

/** "8.3% 2/24 [2.3-25.8]": the rate and counts first, so that a narrow column puts the interval on its own line. */
function rateColumn(r: Rate): string {
  if (r.rate === null) return `undefined 0/0`;
  return `${pct(r.rate)} ${r.k}/${r.n} [${(100 * r.low!).toFixed(1)}-${(100 * r.high!).toFixed(1)}]${effectiveNText(r)}`;
}

function money(x: number): string {
  return x === 0 ? '0' : x < 0.01 ? `$${x.toFixed(5)}` : `$${x.toFixed(3)}`;
}

function summaryTable(results: ResultsFile, metrics: SelectorMetrics[], shape: SetShape, ctx: Ctx): string {
  // Token and cost columns only when some selector called a model: offline selectors have neither.
  const paid = metrics.some((m) => m.meanInputTokens !== null || m.costUsd > 0);
  // A set of skill-creator requests only: its wrong load is the targets' missed triggers, its needless load their false triggers.
  const [wrong, needless] = shape.allTargeted ? ['missed trigger', 'false trigger'] : ['wrong load', 'needless load'];
  const head = ['selector', 'n', 'accuracy', `${wrong} k/n [95%\u00a0CI]`, `${needless} k/n [95%\u00a0CI]`, 'errors', ...(paid ? ['input tokens per decision', 'cost'] : [])];
  const align: ('left' | 'right')[] = ['left', 'right', 'left', 'left', 'left', 'right', 'right', 'right'];
  const fit: Fit[] = ['wrap', 'fixed', 'wrap', 'wrap', 'wrap', 'wrap', 'wrap', 'fixed'];
  // Too narrow for all: n goes first (it is k/n's n), then accuracy (the complement of the two rates).
  const t = terminalTable(head, { color: ctx.opts.color, align, width: ctx.width, fit, min: [10, undefined, 6, 11, 11, 6, 6], drop: [1, 2] });
  for (const m of metrics) {
    const run = results.runs.find((r) => r.selector === m.selector);
    const label = run?.ceiling ? `${m.selector} (ceiling)` : m.selector;
    t.push([
      label,
      m.decisions,
      shape.oneSided ? 'undefined' : `${pct(m.accuracy.rate)} ${m.accuracy.k}/${m.accuracy.n}`,
      rateColumn(m.wrongLoad),
      rateColumn(m.needlessLoad),
      m.errors,
      ...(paid ? [m.meanInputTokens === null ? '-' : Math.round(m.meanInputTokens).toLocaleString('en-US'), m.meanInputTokens === null && !m.costUsd ? '-' : money(m.costUsd)] : []),
    ]);
  }
  return t.toString();
}

function thresholdLine(run: SelectorRun | undefined): string {
  const th = run?.threshold;
  if (!th) return 'no threshold applied (no scores to choose it on)';
  const what = run?.fit ? `decision: a logistic model on ${run.fit.features.length} features of the ranking; loads the top skill at probability >= ${th.value.toFixed(3)}` : `threshold applied: ${th.value.toFixed(3)}`;
  const thing = run?.fit ? 'decision' : 'threshold';
  const how =
    th.source === 'optimistic'
      ? `optimistic: chosen on the same requests it is scored on; pass --cv K, --calibrate FILE or --threshold for an honest figure`
      : th.source === 'cross-validated'
        ? `cross-validated in ${th.folds ?? '?'} folds: each request decided by the ${thing} fitted on the other folds; the value shown is fitted on every request, what --threshold baseline reuses`
        : th.source === 'calibrated'
          ? th.inSample
            ? `calibrated on ${th.calibrationFile ?? 'another request set'}, in-sample: ${th.inSample.shared} of its ${th.inSample.of} requests are also scored here, so the figure is optimistic on them`
            : `calibrated on ${th.calibrationFile ?? 'another request set'}`
          : th.source === 'fixed'
            ? th.calibrationFile ? `fixed by --threshold baseline: the ${thing} ${th.calibrationFile} applied` : 'fixed by --threshold'
            : 'default';
  return `${what} (${how})`;
}

function scoreSection(m: SelectorMetrics, run: SelectorRun | undefined, ctx: Ctx): string {
  const lines = [para(`${m.selector}: ${thresholdLine(run)}`, ctx.width, 2)];
  const s = m.separability;
  if (s) {
    const lo = s.lowestCorrectPositive === null ? '-' : s.lowestCorrectPositive.toFixed(3);
    const hi = s.highestNegative === null ? '-' : s.highestNegative.toFixed(3);
    lines.push(para(
      `lowest score of a correctly ranked positive ${lo}; highest score of a negative ${hi}: ` +
        (s.separable === null
          ? 'separability undefined (the set has only covered or only uncovered requests: see above)'
          : s.separable ? 'separable (a threshold between them refuses every negative and keeps every correct positive)' : 'NOT separable by any threshold'),
      ctx.width, 4, '  ',
    ));
    if (s.bestThreshold !== null && s.separable !== null) {
      lines.push(para(`best threshold on these requests: ${s.bestThreshold.toFixed(3)} (mean of wrong and needless load ${pct(s.bestMean)}; optimistic)`, ctx.width, 4, '  '));
      lines.push(sweepTable(s.sweep, s.bestThreshold, run?.threshold?.value, ctx));
    }
  }
  return lines.join('\n');
}

/** A few sweep rows around the best threshold (and the applied one), plus both ends. */
function sweepTable(points: SweepPoint[], best: number, applied: number | undefined, ctx: Ctx): string {
  const around = ctx.opts.sweepContext ?? 2;
  const keep = new Set<number>([0, points.length - 1]);
  const near = (value: number | undefined) => {
    if (value === undefined) return;
    let idx = points.findIndex((p) => p.threshold === value);
    if (idx < 0) idx = nearest(points, value);
    for (let i = Math.max(0, idx - around); i <= Math.min(points.length - 1, idx + around); i++) keep.add(i);
  };
  near(best);
  near(applied);
  const bestP = bestPoint(points);
  const t = table(['threshold', 'wrong load', 'needless load', 'mean', ''], ctx, ['right', 'right', 'right', 'right', 'left'], ['fixed', 'fixed', 'fixed', 'fixed', 'wrap']);
  let last = -1;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (last >= 0 && i > last + 1) t.push(['...', '', '', '', '']);
    const p = points[i]!;
    const marks = [p === bestP ? 'best' : '', applied !== undefined && Math.abs(p.threshold - applied) < 1e-12 ? 'applied' : ''].filter(Boolean).join(', ');
    t.push([p.threshold.toFixed(4), pct(p.wrongLoad), pct(p.needlessLoad), pct(p.mean), marks]);
    last = i;
  }
  return para(`sweep (${points.length} candidate thresholds: midpoints between distinct top scores, and both ends)`, ctx.width, 4, '  ') + '\n' + t.toString();
}

function nearest(points: SweepPoint[], value: number): number {
  let best = 0;
  points.forEach((p, i) => {
    if (Math.abs(p.threshold - value) < Math.abs(points[best]!.threshold - value)) best = i;
  });
  return best;
}

function recallTable(metrics: SelectorMetrics[], ctx: Ctx): string {
  const t = table(['selector', 'recall@1', 'recall@3', 'recall@5', 'recall@10'], ctx, ['left', 'right', 'right', 'right', 'right'], ['wrap', 'fixed', 'fixed', 'fixed', 'fixed']);
  const cell = (r: Rate) => (r.rate === null ? '- 0/0' : `${pct(r.rate)} ${r.k}/${r.n}`);
  for (const m of metrics) t.push([m.selector, cell(m.recall!.top1), cell(m.recall!.top3), cell(m.recall!.top5), cell(m.recall!.top10)]);
  return t.toString();
}

/** What the offline models cannot read (the run's warnings), and accuracy per language group when there are several. */
function languageSection(results: ResultsFile, ctx: Ctx): string | null {
  const warnings = results.languages?.warnings ?? [];
  const groups = languageFigures(results);
  if (!warnings.length && !groups.length) return null;
  const lines = ['Languages (detected offline with ' + (results.languages?.detector ?? 'a language detector') + ')'];
  for (const w of warnings) lines.push(para(`warning: ${w}`, ctx.width, 4, '  '));
  if (groups.length) {
    const selectors = groups[0]!.metrics.map((m) => m.selector);
    const t = table(['language', 'requests', ...selectors.map((s) => `${s} accuracy`)], ctx, ['left', 'right', ...selectors.map(() => 'right' as const)]);
    for (const g of groups) {
      t.push([g.group, `${g.requests} (${g.covered} covered)`, ...g.metrics.map((m) => (m.accuracy.rate === null ? `- (${m.errors} errors)` : `${pct(m.accuracy.rate)} ${m.accuracy.k}/${m.accuracy.n}${m.errors ? ` +${m.errors} err` : ''}`))]);
    }
    lines.push(t.toString());
  }
  return lines.join('\n');
}

function confusionSection(m: SelectorMetrics, ctx: Ctx, max = 10): string {
  const lines = [para(`${m.selector}: which skill took which skill's requests (gold -> got: count)`, ctx.width, 2)];
  for (const c of m.confusion.slice(0, max)) lines.push(para(`${c.gold} -> ${c.got ?? '(none)'}: ${c.count}`, ctx.width, 4, '  '));
  if (m.confusion.length > max) lines.push(`  ... and ${m.confusion.length - max} more pairs`);
  return lines.join('\n');
}

function flakySection(m: SelectorMetrics, results: ResultsFile, ctx: Ctx, max = 10): string {
  const flaky = m.flaky!;
  const requests = new Set(results.runs.find((r) => r.selector === m.selector)?.decisions.map((d) => d.requestId)).size;
  const lines = [para(`${m.selector}: ${flaky.length} of ${requests} requests changed their choice between runs`, ctx.width, 2)];
  const byId = new Map(results.requests.map((r) => [r.id, r]));
  for (const f of flaky.slice(0, max)) {
    const rate = triggerRate(f.choices, byId.get(f.requestId) ?? null);
    const head = `${f.requestId} (right in ${pct(rate)} of runs): ${f.choices.map((c) => c ?? '(none)').join(', ')}`;
    lines.push(para(head, ctx.width, 4, '  '));
    lines.push(`    "${fitText(f.text, ctx.width - 6)}"`);
  }
  if (flaky.length > max) lines.push(`  ... and ${flaky.length - max} more`);
  return lines.join('\n');
}

function failureSection(m: SelectorMetrics, run: SelectorRun | undefined, ctx: Ctx): string {
  const max = ctx.opts.maxFailures ?? 10;
  // For a decision that loaded nothing, the skill that ranked first (its score is the one shown).
  const topName = new Map(run?.decisions.map((d) => [`${d.requestId}\u0000${d.run}`, d.scores?.[0]?.name]) ?? []);
  const rows = m.failures.slice(0, max).map((f) => ({
    id: fitText(f.run ? `${f.requestId} #${f.run}` : f.requestId, 40), // a long id must not widen the table past the terminal
    text: f.text,
    expected: expectedText({ gold: f.expected, target: f.target }),
    got: f.error !== undefined ? `error: ${fitText(f.error, 30)}` : (f.got ?? noneCell(topName.get(`${f.requestId}\u0000${f.run}`))),
    score: f.score === undefined ? '' : f.score.toFixed(3),
  }));
  const more = m.failures.length > max ? ` (first ${max} shown)` : '';
  const note = m.failures.some((f) => f.got === null && f.error === undefined && f.score !== undefined) ? '; for (none): the top-ranked skill and its score' : '';
  const title = para(`${m.selector}: ${m.failures.length} failures${more}${note}`, ctx.width, 2);
  // One row a line when the names fit beside 30 columns of request text; else two lines per failure.
  const col = (pick: (r: (typeof rows)[number]) => string, head: string) => Math.max(displayWidth(head), ...rows.map((r) => displayWidth(pick(r))));
  const others = col((r) => r.id, 'request') + col((r) => r.expected, 'expected') + col((r) => r.got, 'got') + col((r) => r.score, 'score') + 16;
  if (others + 30 <= ctx.width) {
    const t = table(['request', 'text', 'expected', 'got', 'score'], ctx, ['left', 'left', 'left', 'left', 'right'], ['truncate', 'truncate', 'wrap', 'wrap', 'fixed']);
    for (const r of rows) t.push([r.id, fitText(r.text, Math.min(50, ctx.width - others)), r.expected, r.got, r.score]);
    return `${title}\n${t.toString()}`;
  }
  const idWidth = Math.min(12, col((r) => r.id, ''));
  const lines = [title];
  for (const r of rows) {
    const got = r.score ? `${r.got} (${r.score})` : r.got;
    lines.push(para(`expected ${r.expected}, got ${got}`, ctx.width, 4 + idWidth, `  ${fitText(r.id, idWidth).padEnd(idWidth)}  `));
    lines.push(`${' '.repeat(4 + idWidth)}"${fitText(r.text, ctx.width - 6 - idWidth)}"`);
  }
  return lines.join('\n');
}

function noneCell(top: string | undefined): string {
  return top ? `(none); top: ${top}` : '(none)';
}

function gateSection(results: ResultsFile, ctx: Ctx): string {
  const gate = results.gate!;
  const lines = [`gate: ${gate.passed ? ctx.c.green('passed') : ctx.c.red('FAILED')}`];
  for (const r of gate.reasons) lines.push(para(r, ctx.width, 4, '  '));
  for (const n of gate.notes ?? []) lines.push(para(`note: ${n}`, ctx.width, 4, '  '));
  for (const m of gate.mcnemar ?? []) {
    lines.push(para(`${m.selector}: against the baseline, better on ${m.better}, worse on ${m.worse} requests (exact McNemar p = ${formatP(m.pValue)})`, ctx.width, 4, '  '));
  }
  for (const l of (gate.skills ?? []).slice(0, 10)) {
    lines.push(para(`${l.failed ? 'FAILED' : 'lost  '} ${l.selector} ${l.skill}: right on ${l.before} -> ${l.after} of its ${l.paired} requests (lost ${l.lost}, regained ${l.gained})`, ctx.width, 4, '  '));
  }
  const max = 20;
  for (const f of gate.flips.slice(0, max)) {
    lines.push(para(`${f.nowCorrect ? 'fixed ' : 'broken'} ${f.selector} ${f.requestId}: ${f.before ?? '(none)'} -> ${f.after ?? '(none)'}`, ctx.width, 4, '  '));
    lines.push(`    "${fitText(f.text, ctx.width - 6)}"`);
  }
  if (gate.flips.length > max) lines.push(`  ... and ${gate.flips.length - max} more changed requests`);
  return lines.join('\n');
}

/** One line of at most n columns (whitespace collapsed, an ellipsis when cut). */
export function truncate(text: string, n: number): string {
  return fitText(text, n);
}
