// The HTML report's "Token audit" section: the levels of progressive disclosure in tokens, and their chart.
import type { ResultsFile } from '../types.js';
import { renderSvg, tokenAuditSpec } from './charts.js';
import { escapeHtml as e, int } from './format.js';

export async function tokenSection(results: ResultsFile): Promise<string> {
  const a = results.tokenAudit!;
  if (a.roster) {
    // A tool roster discloses nothing after level 1: no load-all figure or ratio to show.
    const facts = [['tokenizer', `${a.tokenizer}${a.exact ? '' : ' (estimate)'}`], ['level 1 (catalogue in every request)', int(a.level1)]];
    return `<section id="tokens"><h2>Token audit</h2>\n<dl class="facts">${facts.map(([k, v]) => `<dt>${e(k!)}</dt><dd>${e(v!)}</dd>`).join('')}</dl>\n</section>`;
  }
  const facts = [
    ['tokenizer', `${a.tokenizer}${a.exact ? '' : ' (estimate)'}`],
    ['level 1 (catalogue in every request)', int(a.level1)],
    ['load-all prompt', int(a.loadAll)],
    ['saved per request that needs no skill', int(a.saving)],
    ['load-all ÷ level 1', `${a.ratio.toFixed(2)}×`],
    ['tool declarations: base / all profiles', `${int(a.tools.base)} / ${int(a.tools.allProfiles)} (${a.tools.reductionPercent.toFixed(0)}% fewer by profile)`],
  ];
  return `<section id="tokens"><h2>Token audit</h2>
<dl class="facts">${facts.map(([k, v]) => `<dt>${e(k!)}</dt><dd>${e(v!)}</dd>`).join('')}</dl>
<figure class="chart">${await renderSvg(tokenAuditSpec(a))}</figure>
</section>`;
}
