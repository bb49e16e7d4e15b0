// The HTML report's "Confusion between skills" section: requests that needed a skill and got another one, or none.
import type { SelectorMetrics, SelectorRun } from '../types.js';
import { confusionSpec, renderSvg } from './charts.js';

export async function confusionSection(runs: { run: SelectorRun; m: SelectorMetrics }[]): Promise<string> {
  const spec = confusionSpec(runs);
  const charts = spec ? [`<figure class="chart">${await renderSvg(spec)}</figure>`] : [];
  return `<section id="confusion"><h2>Confusion between skills</h2>
<p class="lede">Requests that needed a skill and got another one, or none.</p>
<div class="charts">${charts.join('')}</div>
</section>`;
}
