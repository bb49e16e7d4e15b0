// The HTML report's Gate section: the verdict against the baseline, its reasons and notes, the requests that flipped.
import type { ResultsFile } from '../types.js';
import { escapeHtml as e, skillText } from './format.js';

export function gateSection(results: ResultsFile): string {
  const gate = results.gate!;
  const reasons = gate.reasons.length
    ? `<ul class="reasons">${gate.reasons.map((r) => `<li>${e(r)}</li>`).join('')}</ul>`
    : '<p>No regression against the baseline.</p>';
  const notes = gate.notes?.length ? `<ul class="notes">${gate.notes.map((n) => `<li>note: ${e(n)}</li>`).join('')}</ul>` : '';
  const flips = [...gate.flips].sort((a, b) => Number(a.nowCorrect) - Number(b.nowCorrect));
  const flipTable = flips.length
    ? `<h3>Requests that flipped (${flips.length})</h3><div class="scroll"><table class="flips"><thead><tr><th>selector</th><th>request</th><th>before</th><th>after</th><th>now</th></tr></thead><tbody>
${flips.map((f) => `<tr class="${f.nowCorrect ? 'better' : 'worse'}"><td>${e(f.selector)}</td><td><code>${e(f.requestId)}</code> ${e(f.text)}</td><td>${e(skillText(f.before))}</td><td>${e(skillText(f.after))}</td><td>${f.nowCorrect ? '✓ right' : '✗ wrong'}</td></tr>`).join('\n')}
</tbody></table></div>`
    : '';
  return `<section id="gate"><h2>Gate</h2>
<p class="verdict ${gate.passed ? 'pass' : 'fail'}">${gate.passed ? '✓ passed' : '✗ failed'}</p>
${reasons}
${notes}
${flipTable}
</section>`;
}
