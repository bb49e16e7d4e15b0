// The HTML report's "scored against the target skill" table: skill-creator requests (should_trigger true/false about
// one skill) read as that skill's trigger rate and false-trigger rate, as the terminal and Markdown reports print them.
import type { SelectorMetrics } from '../types.js';
import { escapeHtml as e } from './format.js';
import { rateCell } from './summary-html.js';

export function targetSectionHtml(metrics: SelectorMetrics[]): string | null {
  const rows = metrics.flatMap((m) => (m.targets ?? []).map((t) => ({ m, t })));
  if (!rows.length) return null;
  const body = rows.map(
    ({ m, t }) =>
      `<tr data-selector="${e(m.selector)}"><th scope="row">${e(m.selector)}</th><td>${e(t.skill)}</td>${rateCell('trigger', t.trigger)}${rateCell('falseTrigger', t.falseTrigger)}` +
      `<td class="num">${t.otherOnPositives}, ${t.otherOnNegatives}</td><td class="num">${t.errorsOnPositives + t.errorsOnNegatives}</td></tr>`,
  );
  return `<section id="targets"><h2>Target skills</h2>
<p class="lede">A negative (should_trigger: false) is a near miss for its target: it passes unless the target loads; another skill loading there is counted apart.</p>
<div class="scroll"><table class="targets">
<thead><tr><th>selector</th><th>target skill</th><th>trigger rate on positives</th><th>false triggers on negatives</th><th>went to another skill (pos, neg)</th><th>errors</th></tr></thead>
<tbody>${body.join('\n')}</tbody>
</table></div>
</section>`;
}
