// The HTML report's "Against the baseline arm" section (suggest-eval): requests right in one arm and wrong in the other.
import { escapeHtml as e, skillText, type ArmFlipRow } from './format.js';

export function armFlipSection(flips: ArmFlipRow[]): string {
  const fixed = flips.filter((f) => f.change === 'fixed').length;
  const rows = flips.map((f) => `<tr class="${f.change === 'fixed' ? 'better' : 'worse'}"><td>${e(f.arm)}</td><td><code>${e(f.requestId)}</code> ${e(f.text)}</td>` +
    `<td>${e(skillText(f.gold))}</td><td>${f.before === undefined ? '–' : e(skillText(f.before))}</td><td>${e(skillText(f.after))}</td><td>${f.change === 'fixed' ? '✓ fixed' : '✗ broken'}</td></tr>`);
  return `<section id="arms"><h2>Against the baseline arm</h2>
<p class="lede">Requests that need a skill, right in one arm and wrong in the other: <b>${fixed} fixed</b>, <b>${flips.length - fixed} broken</b>.</p>
<div class="scroll"><table class="flips"><thead><tr><th>arm</th><th>request</th><th>expected</th><th>baseline loaded</th><th>arm loaded</th><th>change</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
</section>`;
}
