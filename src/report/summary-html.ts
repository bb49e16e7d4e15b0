// The HTML report's Summary section: what to look at per selector (the terminal summary's words), the table of
// rates with their intervals, and the rates chart.
import type { SelectorMetrics } from '../types.js';
import { ratesSpec, renderSvg } from './charts.js';
import { escapeHtml as e, int, intervalText, pct, thresholdText, usd, type ReportInput } from './format.js';
import { errorsText, summarize } from './summary.js';

export async function summarySection(input: ReportInput): Promise<string> {
  const { results, metrics } = input;
  const rows = results.runs.map((run, i) => {
    const m = metrics[i]!;
    return `<tr data-selector="${e(run.selector)}"${run.ceiling ? ' class="ceiling"' : ''}>
<th scope="row">${e(run.selector)}${run.ceiling ? ' <span class="tag">ceiling</span>' : ''}</th>
<td>${e(run.kind)}${run.provider ? `<div class="sub">${e(run.provider)}${run.model ? ` · ${e(run.model)}` : ''}</div>` : ''}</td>
${rateCell('wrongLoad', m.wrongLoad)}
${rateCell('needlessLoad', m.needlessLoad)}
${rateCell('accuracy', m.accuracy)}
<td class="num" data-metric="errors" data-value="${m.errors}">${m.errors}</td>
<td class="num" data-metric="decisions" data-value="${m.decisions}">${int(m.decisions)}</td>
<td class="num" data-metric="meanInputTokens" data-value="${m.meanInputTokens ?? ''}">${m.meanInputTokens === null ? '–' : int(m.meanInputTokens)}</td>
<td class="num" data-metric="costUsd" data-value="${m.costUsd}">${m.meanInputTokens === null && !m.costUsd ? '–' : usd(m.costUsd)}</td>
<td>${e(thresholdText(run)) || '–'}</td>
</tr>`;
  });
  const chart = metrics.some((m) => m.wrongLoad.rate !== null || m.needlessLoad.rate !== null)
    ? `<figure class="chart">${await renderSvg(ratesSpec(results.runs, metrics))}</figure>`
    : '';
  return `<section id="summary"><h2>Summary</h2>
${lookAtList(input)}
<p class="lede"><b>Wrong load</b>: requests that need a skill where the first skill loaded is not the expected one (loading nothing counts).
<b>Needless load</b>: requests that need no skill where one was loaded. Failed calls are counted apart. Intervals are 95% Wilson.</p>
<div class="scroll"><table class="summary">
<thead><tr><th>selector</th><th>kind</th><th>wrong load</th><th>needless load</th><th>accuracy</th><th>errors</th><th>decisions</th><th>mean input tokens</th><th>cost</th><th>threshold</th></tr></thead>
<tbody>${rows.join('\n')}</tbody>
</table></div>
${chart}
</section>`;
}

/** The answer first: per selector its two rates and what to look at (the terminal report's summary, same words). */
function lookAtList(input: ReportInput): string {
  const items = summarize(input.results, input.metrics).map((s) => {
    const rates = s.note ? e(s.note) : `wrong load <b>${pct(s.wrongLoad.rate)}</b> <span class="kn">${s.wrongLoad.k}/${s.wrongLoad.n}</span>, needless load <b>${pct(s.needlessLoad.rate)}</b> <span class="kn">${s.needlessLoad.k}/${s.needlessLoad.n}</span>${s.errors ? `, <span class="err">${errorsText(s.errors)}</span>` : ''}`;
    const look = s.lookAt.length ? `<ul>${s.lookAt.map((x) => `<li>${e(x)}</li>`).join('')}</ul>` : s.note ? '' : '<ul><li>every decision right</li></ul>';
    return `<li data-selector="${e(s.selector)}"><b>${e(s.label)}</b>: ${rates}${look}</li>`;
  });
  return `<ul class="look-at">${items.join('\n')}</ul>`;
}

export function rateCell(metric: string, r: SelectorMetrics['wrongLoad']): string {
  const ci = intervalText(r);
  return `<td class="num rate" data-metric="${metric}" data-k="${r.k}" data-n="${r.n}" data-rate="${r.rate ?? ''}">` +
    `<span class="pct">${pct(r.rate)}</span> <span class="kn">${r.k}/${r.n}</span>${ci ? `<div class="sub">${ci}</div>` : ''}</td>`;
}
