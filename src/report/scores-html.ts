// The HTML report's "Scores and thresholds" section: per score-based selector its separability facts, recall, the
// score distribution and the threshold sweep.
import type { ResultsFile, SelectorMetrics, SelectorRun } from '../types.js';
import { renderSvg, scoreDistributionSpec, sweepSpec } from './charts.js';
import { escapeHtml as e, pct, score, thresholdText } from './format.js';

export async function scoreSection(results: ResultsFile, runs: { run: SelectorRun; m: SelectorMetrics }[]): Promise<string> {
  const blocks: string[] = [];
  for (const { run, m } of runs) {
    const s = m.separability;
    const facts = [
      ['threshold used', thresholdText(run) || '–'],
      ['lowest score of a correctly ranked positive', s ? score(s.lowestCorrectPositive ?? undefined) || '–' : '–'],
      ['highest score of a request that needs no skill', s ? score(s.highestNegative ?? undefined) || '–' : '–'],
      ['a threshold separates them', s ? (s.separable === null ? 'undefined (the set lacks covered or uncovered requests)' : s.separable ? 'yes' : 'no') : '–'],
      ['best threshold on these requests (optimistic)', s?.bestThreshold !== null && s?.bestThreshold !== undefined ? `${score(s.bestThreshold)} (mean ${pct(s.bestMean)})` : '–'],
      ['top-1 recall', m.recall ? `${pct(m.recall.top1.rate)} (${m.recall.top1.k}/${m.recall.top1.n})` : '–'],
      ['top-3 recall', m.recall ? `${pct(m.recall.top3.rate)} (${m.recall.top3.k}/${m.recall.top3.n})` : '–'],
      ['top-5 recall', m.recall?.top5 ? `${pct(m.recall.top5.rate)} (${m.recall.top5.k}/${m.recall.top5.n})` : '–'],
      ['top-10 recall', m.recall?.top10 ? `${pct(m.recall.top10.rate)} (${m.recall.top10.k}/${m.recall.top10.n})` : '–'],
    ];
    const dist = scoreDistributionSpec(results, run);
    const sweep = sweepSpec(run, m);
    blocks.push(`<div class="selector-block" data-selector="${e(run.selector)}"><h3>${e(run.selector)}</h3>
<dl class="facts">${facts.map(([k, v]) => `<dt>${e(k!)}</dt><dd>${e(v!)}</dd>`).join('')}</dl>
<div class="charts">${dist ? `<figure class="chart">${await renderSvg(dist)}</figure>` : ''}${sweep ? `<figure class="chart">${await renderSvg(sweep)}</figure>` : ''}</div>
</div>`);
  }
  return `<section id="scores"><h2>Scores and thresholds</h2>
<p class="lede">Score-based selectors rank every skill, then load the top one when its score reaches the threshold. A threshold chosen on the requests it is scored on is optimistic; cross-validate (<code>--cv K</code>, the default when there are enough requests) or calibrate on other requests (<code>--calibrate</code>) for an honest figure.</p>
${blocks.join('\n')}
</section>`;
}
