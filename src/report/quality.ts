// The terminal report of eval-quality results, rendered from the results file alone: `skillbench eval-quality`
// prints it when the run ends and `skillbench report quality.json` prints the same later. Per agent mode the pass
// rate (recomputed from the cases' verdicts) with its Wilson interval and k/n, runs without an answer, input tokens,
// calls and output tokens per request, cost and judge mean; then the progressive/load-all token ratio and the failed
// cases with the checks they failed (and the judge's verdict). Plain text unless `color` is set.
import type { ResultsFile } from '../types.js';
import { failingCases, figure, intervalText, judgeMeanText, qualityRows, rateText, usd } from './format.js';
import { scriptSandboxLine } from './sandboxes.js';
import { terminalTable } from './table.js';
import { displayWidth, wrap } from '../text-width.js';

export interface QualityTerminalOptions {
  /** Coloured table headers (a TTY). Default false. */
  color?: boolean;
  /** Columns to fit (default: as wide as the figures need). */
  width?: number;
}

export function renderQualityTerminal(results: ResultsFile, opts: QualityTerminalOptions = {}): string {
  const summary = results.quality;
  const judged = Boolean(summary?.judged);
  const format = results.catalogue.format ? `, catalogue format ${results.catalogue.format}` : '';
  const out = [
    `${results.command}: ${results.requests.length} cases, ${results.catalogue.skills.length} skills (${results.catalogue.source})${format}`,
    'Answer quality and cost per mode',
    modeTable(results, judged, opts),
  ];
  const ratio = summary?.tokenRatio;
  if (ratio !== null && ratio !== undefined) {
    out.push(indented(`progressive / load-all input tokens per request: ${ratio.toFixed(2)} (load-all costs ${(1 / ratio).toFixed(1)}x as much per request)`, opts.width).slice(2));
  }
  const sandboxes = scriptSandboxLine(results);
  if (sandboxes) out.push(`Skill scripts: ${sandboxes}`);
  const failing = failingCases(results);
  if (failing.length) {
    out.push('', `Failing cases (${failing.length}):`);
    for (const f of failing) out.push(indented(`${f.mode.padEnd(12)} ${f.d.requestId}: ${f.why}`, opts.width));
  }
  return out.join('\n') + '\n';
}

/** `  text` wrapped to `width` with the lines after the first indented further. */
function indented(text: string, width: number | undefined): string {
  if (width === undefined || displayWidth(text) + 2 <= width) return `  ${text}`;
  return wrap(text, Math.max(20, width - 4)).map((l, i) => (i ? `    ${l}` : `  ${l}`)).join('\n');
}

function modeTable(results: ResultsFile, judged: boolean, opts: QualityTerminalOptions): string {
  const head = ['mode', 'pass rate (k/n) [95%\u00a0CI]', 'no answer', 'input tokens / request', 'calls / request', 'output tokens / request', 'cost'];
  if (judged) head.push('judge mean (n)');
  const t = terminalTable(head, { color: opts.color, align: head.map((_, i) => (i < 2 ? 'left' : 'right')), width: opts.width, min: [8, 12, 6, 6, 6, 6, 6, 6] });
  for (const { mode, pass, summary: m } of qualityRows(results)) {
    const row = [
      mode,
      `${rateText(pass)} ${intervalText(pass)}`.trim(),
      m ? String(m.errors) : '-',
      figure(m?.inputTokensPerRequest, 0, '-'),
      figure(m?.callsPerRequest, 1, '-'),
      figure(m?.outputTokensPerRequest, 0, '-'),
      m ? usd(m.costUsd) : '-',
    ];
    if (judged) row.push(judgeMeanText(m?.judge, '-'));
    t.push(row);
  }
  return t.toString();
}
