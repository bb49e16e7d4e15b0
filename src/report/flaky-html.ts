// The HTML report's "Flaky requests" section: requests whose decision changed between repeated runs (--runs N).
import type { SelectorMetrics, SelectorRun } from '../types.js';
import { escapeHtml as e, skillText } from './format.js';

export function flakySection(runs: { run: SelectorRun; m: SelectorMetrics }[]): string {
  const rows = runs.flatMap(({ run, m }) =>
    m.flaky!.map((f) => `<tr><td>${e(run.selector)}</td><td><code>${e(f.requestId)}</code> ${e(f.text)}</td><td>${f.choices.map((c) => e(skillText(c))).join(' → ')}</td></tr>`),
  );
  return `<section id="flaky"><h2>Flaky requests</h2>
<p class="lede">Requests whose decision changed between repeated runs.</p>
<div class="scroll"><table><thead><tr><th>selector</th><th>request</th><th>choices by run</th></tr></thead><tbody>${rows.join('\n')}</tbody></table></div>
</section>`;
}
