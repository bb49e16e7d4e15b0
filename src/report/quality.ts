// The terminal view of an eval-quality results file for `skillbench report` (eval-quality prints its own richer
// table while it runs, from the live outcomes; a saved file keeps the verdicts and the per-mode summary).
import Table from 'cli-table3';
import type { ResultsFile } from '../types.js';
import { checkFailuresOf, intervalText, passedOf, passRate, rateText, usd } from './format.js';

export function renderQualityTerminal(results: ResultsFile): string {
  const summary = results.quality;
  const judged = Boolean(summary?.judged);
  const head = ['mode', 'pass rate k/n [95% CI]', 'no answer', 'input tokens / request', 'calls / request', 'cost'];
  if (judged) head.push('judge mean (n)');
  const table = new Table({
    head,
    colAligns: head.map((_, i) => (i < 2 ? 'left' : 'right')),
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  const num = (x: number | null | undefined, digits = 0) =>
    x === null || x === undefined ? '-' : x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  for (const run of results.runs) {
    const m = summary?.modes.find((x) => x.mode === run.selector);
    const pass = passRate(run);
    const row = [run.selector, `${rateText(pass)} ${intervalText(pass)}`, String(m?.errors ?? '-'), num(m?.inputTokensPerRequest), num(m?.callsPerRequest, 1), m ? usd(m.costUsd) : '-'];
    if (judged) row.push(m?.judge ? `${num(m.judge.mean, 2)} (${m.judge.n})` : '-');
    table.push(row);
  }
  const out = [`${results.command}: ${results.requests.length} cases, ${results.catalogue.skills.length} skills (${results.catalogue.source})`, table.toString()];
  if (summary?.tokenRatio !== null && summary?.tokenRatio !== undefined) {
    out.push(`progressive / load-all input tokens per request: ${summary.tokenRatio.toFixed(2)}`);
  }
  const failing = results.runs.flatMap((run) => run.decisions.filter((d) => passedOf(d) === false || d.error !== undefined).map((d) => `  ${run.selector} ${d.requestId}: ${d.error ?? checkFailuresOf(d)}`));
  if (failing.length) out.push('', `failing cases (${failing.length}):`, ...failing);
  return out.join('\n') + '\n';
}
