// The HTML report's Host section: the host whose prompt the run reproduced, and what its listing hid.
import { computeMetrics } from '../metrics.js';
import { hostReport } from '../hosts/notes.js';
import type { ResultsFile } from '../types.js';
import { escapeHtml as e } from './format.js';

/** The host whose prompt the run reproduced, and what its listing hid (as the terminal prints it). */
export function hostSection(results: ResultsFile): string | null {
  const report = hostReport(results, computeMetrics);
  if (!report) return null;
  const lines = report.lines.length ? `<ul class="notes">${report.lines.map((l) => `<li>${e(l)}</li>`).join('')}</ul>` : '';
  return `<section id="host"><h2>Host</h2>
<p>${e(report.header)}</p>
${lines}
</section>`;
}
