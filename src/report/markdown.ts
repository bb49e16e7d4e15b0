// Markdown: a compact summary for a pull-request comment or $GITHUB_STEP_SUMMARY: per selector wrong and needless
// load with their intervals, the gate verdict, the requests that flipped against the baseline, and the failures
// folded away. GitHub caps a comment at 65,536 characters, so long lists are cut with a count of what was left out.
import { computeMetrics } from '../metrics.js';
import { hostReport } from '../hosts/notes.js';
import type { ResultsFile, SelectorMetrics } from '../types.js';
import { incompleteText } from '../completeness.js';
import { setShape, undefinedRateLines } from './targets.js';
import { languageFigures } from './languages.js';
import { isImprove, renderImproveMarkdown } from './improve.js';
import {
  armFlips, failingCases, figure, intervalText, int, isQuality, judgeMeanText, pct, qualityRows, rateText, selectorLabel, skillText, thresholdText, usd, when,
  type ReportInput,
} from './format.js';
import { scriptSandboxLine } from './sandboxes.js';

const MAX_FLIPS = 40;
const MAX_FAILURES = 30;
const MAX_TEXT = 80;
const MAX_ID = 40;

export function renderMarkdown(input: ReportInput): string {
  const { results, metrics } = input;
  if (isImprove(results)) return renderImproveMarkdown(results);
  const out: string[] = [];
  const gate = results.gate;
  const verdict = gate ? (gate.passed ? ' — gate passed ✅' : ' — gate failed ❌') : '';
  const incomplete = incompleteText(results.completeness);
  out.push(`### skillbench ${results.command}${incomplete ? ' — incomplete ⚠️' : ''}${verdict}`, '');
  if (incomplete) out.push(`**${cell(incomplete)}**`, '');
  out.push(
    `${results.requests.length} requests · ${results.catalogue.skills.length} skills (\`${code(results.catalogue.source)}\`) · ` +
      `${results.runs.length} selector${results.runs.length === 1 ? '' : 's'} · skillbench ${cell(results.skillbenchVersion)} · ${cell(when(results.createdAt))}`,
    '',
  );

  if (isQuality(results)) {
    out.push(...qualitySection(results));
    return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
  }

  const shape = setShape(results.requests);
  out.push('| selector | wrong load | needless load | accuracy | errors | mean input tokens | cost | threshold |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---|');
  results.runs.forEach((run, i) => {
    const m = metrics[i]!;
    // One-sided set: "load everything" (or nothing) would score 100%, so accuracy is undefined (the line below says why).
    const accuracy = shape.oneSided ? 'undefined' : rateCell(m.accuracy);
    out.push(
      `| ${cell(selectorLabel(run))} | ${rateCell(m.wrongLoad)} | ${rateCell(m.needlessLoad)} | ${accuracy} | ${m.errors} | ` +
        `${m.meanInputTokens === null ? '' : int(m.meanInputTokens)} | ${m.meanInputTokens === null && !m.costUsd ? '' : usd(m.costUsd)} | ${cell(thresholdText(run))} |`,
    );
  });
  out.push(
    '',
    '<sub>Wrong load: covered requests where the first skill loaded is not the expected one (nothing loaded counts). ' +
      'Needless load: requests that need no skill where one was loaded. Errors are counted apart. 95% Wilson intervals in brackets.</sub>',
    '',
  );
  const undefinedLines = undefinedRateLines(shape, metrics);
  if (undefinedLines.length) out.push(...undefinedLines.map((l) => `- ${cell(l)}`), '');

  out.push(...targetSection(metrics));
  out.push(...hostSection(results));
  out.push(...languageSection(results));
  if (input.baseline) out.push(...baselineSection(input));
  out.push(...armFlipSection(results));
  if (gate) {
    out.push(`#### Gate: ${gate.passed ? 'passed' : 'failed'}`, '');
    if (gate.reasons.length) out.push(...gate.reasons.map((r) => `- ${cell(r)}`), '');
    else out.push('No regression against the baseline.', '');
    if (gate.notes?.length) out.push(...gate.notes.map((n) => `- note: ${cell(n)}`), '');
    out.push(...flipSection(gate.flips));
  }
  out.push(...failureSection(results, metrics));
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** The host whose prompt the run reproduced, and what its listing hid (as the terminal prints it). */
function hostSection(results: ResultsFile): string[] {
  const report = hostReport(results, computeMetrics);
  if (!report) return [];
  return [`#### Host: ${cell(results.host!.name)}`, '', cell(report.header), '', ...report.lines.map((l) => `- ${cell(l)}`), ''];
}

/** What the offline models cannot read, and accuracy per language group when the requests are in several. */
function languageSection(results: ResultsFile): string[] {
  const warnings = results.languages?.warnings ?? [];
  const groups = languageFigures(results);
  if (!warnings.length && !groups.length) return [];
  const out = ['#### Languages', ''];
  out.push(...warnings.map((w) => `- ⚠️ ${cell(w)}`));
  if (warnings.length) out.push('');
  if (groups.length) {
    const selectors = groups[0]!.metrics.map((m) => m.selector);
    out.push(`| language | requests | ${selectors.map((s) => `${cell(s)} accuracy`).join(' | ')} |`, `|---|---:|${selectors.map(() => '---:|').join('')}`);
    for (const g of groups) {
      out.push(`| ${cell(g.group)} | ${g.requests} (${g.covered} covered) | ${g.metrics.map((m) => `${rateCell(m.accuracy)}${m.errors ? ` + ${m.errors} errors` : ''}`).join(' | ')} |`);
    }
    out.push('');
  }
  return out;
}

/** eval-quality: pass rate per mode (recomputed from the cases' verdicts), cost figures, and the failing cases. */
function qualitySection(results: ResultsFile): string[] {
  const summary = results.quality;
  const judged = Boolean(summary?.judged);
  const out = [
    `| mode | pass rate | no answer | input tokens / request | calls / request | output tokens / request | cost |${judged ? ' judge mean (n) |' : ''}`,
    `|---|---:|---:|---:|---:|---:|---:|${judged ? '---:|' : ''}`,
  ];
  for (const { mode, pass, summary: m } of qualityRows(results)) {
    out.push(
      `| ${cell(mode)} | ${rateCell(pass)} | ${m?.errors ?? ''} | ${figure(m?.inputTokensPerRequest, 0, '')} | ${figure(m?.callsPerRequest, 1, '')} | ` +
        `${figure(m?.outputTokensPerRequest, 0, '')} | ${m ? usd(m.costUsd) : ''} |${judged ? ` ${judgeMeanText(m?.judge, '')} |` : ''}`,
    );
  }
  out.push('');
  if (summary?.tokenRatio !== null && summary?.tokenRatio !== undefined) {
    out.push(`Progressive / load-all input tokens per request: **${summary.tokenRatio.toFixed(2)}** (load-all costs ${(1 / summary.tokenRatio).toFixed(1)}× as much per request).`, '');
  }
  const sandboxes = scriptSandboxLine(results);
  if (sandboxes) out.push(`Skill scripts: ${cell(sandboxes)}.`, '');
  const failing = failingCases(results);
  if (failing.length) {
    out.push(`<details><summary>Failing cases (${failing.length})</summary>`, '', '| mode | case | why |', '|---|---|---|');
    for (const { mode, d, r, why } of failing.slice(0, MAX_FAILURES)) {
      out.push(`| ${cell(mode)} | ${requestCell(d.requestId, r?.text ?? '')} | ${cell(short(why))} |`);
    }
    if (failing.length > MAX_FAILURES) out.push('', `… and ${failing.length - MAX_FAILURES} more (see the HTML or CSV report).`);
    out.push('', '</details>', '');
  }
  return out;
}

function baselineSection(input: ReportInput): string[] {
  const base = input.baseline!;
  const out = [
    `#### Against the baseline (\`${code(base.file)}\`)`,
    '',
    '| selector | wrong load: baseline → now | needless load: baseline → now | better | worse | McNemar p |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  input.results.runs.forEach((run, i) => {
    const now = input.metrics[i]!;
    const j = base.results.runs.findIndex((b) => b.selector === run.selector);
    const then: SelectorMetrics | undefined = j >= 0 ? base.metrics[j] : undefined;
    const test = input.results.gate?.mcnemar?.find((t) => t.selector === run.selector);
    out.push(
      `| ${cell(selectorLabel(run))} | ${then ? pct(then.wrongLoad.rate) : 'n/a'} → ${pct(now.wrongLoad.rate)} | ` +
        `${then ? pct(then.needlessLoad.rate) : 'n/a'} → ${pct(now.needlessLoad.rate)} | ${test?.better ?? ''} | ${test?.worse ?? ''} | ` +
        `${test ? test.pValue.toPrecision(3) : ''} |`,
    );
  });
  out.push('');
  return out;
}

/** suggest --eval: the covered requests an arm fixed or broke against the baseline arm. */
function armFlipSection(results: ResultsFile): string[] {
  const flips = armFlips(results);
  if (!flips.length) return [];
  const fixed = flips.filter((f) => f.change === 'fixed').length;
  const out = [`#### Against the baseline arm: ${fixed} fixed, ${flips.length - fixed} broken`, '', '| arm | request | expected | baseline loaded | arm loaded | change |', '|---|---|---|---|---|---|'];
  for (const f of flips.slice(0, MAX_FLIPS)) {
    out.push(`| ${cell(f.arm)} | ${requestCell(f.requestId, f.text)} | ${cell(skillText(f.gold))} | ${f.before === undefined ? '' : cell(skillText(f.before))} | ` +
      `${cell(skillText(f.after))} | ${f.change === 'fixed' ? '✅ fixed' : '❌ broken'} |`);
  }
  if (flips.length > MAX_FLIPS) out.push('', `… and ${flips.length - MAX_FLIPS} more (see the HTML or CSV report).`);
  out.push('');
  return out;
}

function flipSection(flips: NonNullable<ResultsFile['gate']>['flips']): string[] {
  if (!flips.length) return [];
  const worse = flips.filter((f) => !f.nowCorrect).length;
  const out = [
    `#### Requests that flipped against the baseline (${flips.length}: ${worse} now wrong, ${flips.length - worse} now right)`,
    '',
    '| selector | request | before | after | now |',
    '|---|---|---|---|---|',
  ];
  // Regressions first: they are what a reviewer needs to see.
  const sorted = [...flips].sort((a, b) => Number(a.nowCorrect) - Number(b.nowCorrect));
  for (const f of sorted.slice(0, MAX_FLIPS)) {
    out.push(
      `| ${cell(f.selector)} | ${requestCell(f.requestId, f.text)} | ${cell(skillText(f.before))} | ${cell(skillText(f.after))} | ` +
        `${f.nowCorrect ? '✅ right' : '❌ wrong'} |`,
    );
  }
  if (sorted.length > MAX_FLIPS) out.push('', `… and ${sorted.length - MAX_FLIPS} more (see the HTML or CSV report).`);
  out.push('');
  return out;
}

function failureSection(results: ResultsFile, metrics: SelectorMetrics[]): string[] {
  const rows: string[] = [];
  let total = 0;
  results.runs.forEach((run, i) => {
    for (const f of metrics[i]!.failures) {
      total++;
      if (rows.length >= MAX_FAILURES) continue;
      rows.push(
        `| ${cell(run.selector)} | ${requestCell(f.requestId, f.text)} | ${cell(skillText(f.expected))} | ` +
          `${cell(f.error !== undefined ? `error: ${short(f.error)}` : skillText(f.got))} | ${f.score === undefined ? '' : f.score.toFixed(3)} |`,
      );
    }
  });
  if (!total) return [];
  return [
    `<details><summary>Failures (${total})</summary>`,
    '',
    '| selector | request | expected | got | score |',
    '|---|---|---|---|---|',
    ...rows,
    ...(total > MAX_FAILURES ? ['', `… and ${total - MAX_FAILURES} more (see the HTML or CSV report).`] : []),
    '',
    '</details>',
    '',
  ];
}

/** `8.3% (1/12) [1.5–35.4]`. */
/** Skill-creator sets: each target's trigger and false-trigger rates, loads of other skills apart, and the pool. */
function targetSection(metrics: SelectorMetrics[]): string[] {
  const rows = metrics.flatMap((m) => (m.targets ?? []).map((t) => ({ m, t })));
  if (!rows.length) return [];
  return [
    '#### Scored against the target skill',
    '',
    '| selector | target skill | trigger rate on positives | false triggers on negatives | went to another skill (pos, neg) | errors |',
    '|---|---|---:|---:|---:|---:|',
    ...rows.map(({ m, t }) =>
      `| ${cell(m.selector)} | ${cell(t.skill)} | ${rateCell(t.trigger)} | ${rateCell(t.falseTrigger)} | ${t.otherOnPositives}, ${t.otherOnNegatives} | ${t.errorsOnPositives + t.errorsOnNegatives} |`),
    '',
    '<sub>A negative (should_trigger: false) is a near miss for its target: it passes unless the target loads; another skill loading there is counted apart.</sub>',
    '',
  ];
}

function rateCell(r: Parameters<typeof rateText>[0]): string {
  const ci = intervalText(r);
  return ci ? `${rateText(r)} ${ci}` : rateText(r);
}

/** `id: text`, both cut (an id can be long too), so that a row's length is bounded whatever the request set. */
function requestCell(id: string, text: string): string {
  return cell(`${short(id, MAX_ID)}: ${short(text)}`);
}

function short(text: string, max = MAX_TEXT): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/**
 * Text safe in a table cell of a GitHub comment: no line break, pipes and markup escaped, no HTML, and no @mention
 * (a zero-width space after @) so that a request text never pings a user.
 */
export function cell(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/[\\`*_[\]|#~]/g, (c) => `\\${c}`)
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@/g, '@\u200b');
}

/** Text inside inline code: backticks would end it. */
function code(text: string): string {
  return text.replace(/`/g, "'").replace(/\s+/g, ' ');
}
