// The HTML report: one self-contained file (inline CSS, a few lines of inline script, SVG charts rendered in Node),
// which loads nothing from the network; a Content-Security-Policy says so to the browser as well. Every piece of
// text from the results file (skill names, request texts, settings, errors) goes through escapeHtml.
// Each section is rendered by the file named for it; this file puts them in order, and names `page` and
// `settingsSection` for the improve report.
import { armFlips, isQuality, type ReportInput } from './format.js';
import { armFlipSection } from './arms-html.js';
import { baselineSection } from './baseline-html.js';
import { qualityCasesSection } from './cases-html.js';
import { confusionSection } from './confusion-html.js';
import { flakySection } from './flaky-html.js';
import { gateSection } from './gate-html.js';
import { hostSection } from './host-html.js';
import { page } from './page-html.js';
import { qualitySection } from './quality-html.js';
import { requestsSection } from './requests-html.js';
import { scoreSection } from './scores-html.js';
import { settingsSection } from './settings-html.js';
import { summarySection } from './summary-html.js';
import { targetSectionHtml } from './targets-html.js';
import { tokenSection } from './tokens-html.js';

export { page } from './page-html.js';
export { settingsSection } from './settings-html.js';

export async function renderHtml(input: ReportInput): Promise<string> {
  const { results, metrics } = input;
  if (results.command === 'improve' && results.improve) return (await import('./improve-html.js')).renderImproveHtml(results);
  const sections: string[] = [];
  if (isQuality(results)) {
    sections.push(await qualitySection(results), qualityCasesSection(results));
    if (results.tokenAudit) sections.push(await tokenSection(results));
    sections.push(settingsSection(results));
    return page(results, sections);
  }
  sections.push(await summarySection(input));
  const targets = targetSectionHtml(input.metrics);
  if (targets) sections.push(targets);
  if (input.baseline) sections.push(baselineSection(input));
  if (results.gate) sections.push(gateSection(results));
  const flips = armFlips(results);
  if (flips.length) sections.push(armFlipSection(flips));
  const paired = results.runs.map((run, i) => ({ run, m: metrics[i]! }));
  const scoreRuns = paired.filter(({ run }) => run.kind === 'score');
  if (scoreRuns.length) sections.push(await scoreSection(results, scoreRuns));
  const confused = paired.filter(({ m }) => m.confusion.length);
  if (confused.length) sections.push(await confusionSection(confused));
  const flaky = paired.filter(({ m }) => m.flaky?.length);
  if (flaky.length) sections.push(flakySection(flaky));
  const host = hostSection(results);
  if (host) sections.push(host);
  if (results.tokenAudit) sections.push(await tokenSection(results));
  sections.push(requestsSection(input));
  sections.push(settingsSection(results));
  return page(results, sections);
}
