// The HTML report's Settings section: every option that shaped the run, and each selector's settings.
import type { ResultsFile } from '../types.js';
import { escapeHtml as e, thresholdText, usd } from './format.js';

export function settingsSection(results: ResultsFile): string {
  const entries: [string, unknown][] = [
    ['command', results.command],
    ['skillbench', results.skillbenchVersion],
    ['created', results.createdAt],
    ['catalogue', results.catalogue.source],
    ...Object.entries(results.settings),
  ];
  const rows = entries.map(([k, v]) => `<tr><th scope="row">${e(k)}</th><td><code>${e(typeof v === 'string' ? v : JSON.stringify(v))}</code></td></tr>`);
  const runs = results.runs.map((run) =>
    `<tr><th scope="row">${e(run.selector)}</th><td>${e([run.kind, run.provider, run.model, thresholdText(run) && `threshold ${thresholdText(run)}`, run.ceiling && 'ceiling', run.extraCostUsd ? `extra cost ${usd(run.extraCostUsd)}` : ''].filter(Boolean).join(' · '))}</td></tr>`);
  return `<section id="settings"><h2>Settings</h2>
<div class="scroll"><table class="settings"><tbody>${rows.join('\n')}${runs.join('\n')}</tbody></table></div>
</section>`;
}
