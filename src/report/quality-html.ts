// The HTML report's "Answer quality" section (eval-quality): per agent mode its pass rate, cost and tokens, the chart.
import type { ResultsFile } from '../types.js';
import { qualitySpec, renderSvg } from './charts.js';
import { escapeHtml as e, figure, judgeMeanText, qualityRows, usd } from './format.js';
import { scriptSandboxLine } from './sandboxes.js';
import { rateCell } from './summary-html.js';

export async function qualitySection(results: ResultsFile): Promise<string> {
  const summary = results.quality;
  const judged = Boolean(summary?.judged);
  const chartRows: Parameters<typeof qualitySpec>[0] = [];
  const rows = qualityRows(results).map(({ mode, pass, summary: m }) => {
    if (pass.rate !== null) chartRows.push({ mode, rate: pass.rate, low: pass.low!, high: pass.high!, k: pass.k, n: pass.n, tokens: m?.inputTokensPerRequest ?? null });
    return `<tr data-selector="${e(mode)}"><th scope="row">${e(mode)}</th>${rateCell('pass', pass)}` +
      `<td class="num">${m?.errors ?? '–'}</td><td class="num">${figure(m?.inputTokensPerRequest)}</td><td class="num">${figure(m?.callsPerRequest, 1)}</td>` +
      `<td class="num">${figure(m?.outputTokensPerRequest)}</td><td class="num">${m ? usd(m.costUsd) : '–'}</td>` +
      `${judged ? `<td class="num">${e(judgeMeanText(m?.judge))}</td>` : ''}</tr>`;
  });
  const ratio = summary?.tokenRatio;
  const sandboxes = scriptSandboxLine(results);
  return `<section id="quality"><h2>Answer quality</h2>
<p class="lede">Each case's answer is checked (required facts, patterns, forbidden content${judged ? ', and a judge' : ''}) in each agent mode. Intervals are 95% Wilson.${
    ratio !== null && ratio !== undefined ? ` Progressive disclosure spent <b>${ratio.toFixed(2)}×</b> the input tokens of load-all per request.` : ''}</p>
<div class="scroll"><table class="summary">
<thead><tr><th>mode</th><th>pass rate</th><th>no answer</th><th>input tokens / request</th><th>calls / request</th><th>output tokens / request</th><th>cost</th>${judged ? '<th>judge mean (n)</th>' : ''}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
${sandboxes ? `<p>Skill scripts: ${e(sandboxes)}.</p>\n` : ''}${chartRows.length ? `<figure class="chart">${await renderSvg(qualitySpec(chartRows))}</figure>` : ''}
</section>`;
}
