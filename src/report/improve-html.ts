// The HTML report of `skillbench improve`: the description kept and how sure that is, the trajectory (a chart of
// train and test accuracy with their 95% Wilson intervals per candidate, and its table), each candidate with its
// text shown as a word diff against the one it was rewritten from, the confusion it caused and the requests it
// fixed or broke against the original, then the split and the settings. Every text from the file is escaped.
import { candidateFigures, confusionText, flips, type CandidateFigures } from '../improve/figures.js';
import { wordDiff } from './worddiff.js';
import type { Rate, ResultsFile } from '../types.js';
import { renderSvg } from './charts.js';
import { escapeHtml as e, intervalText, pct } from './format.js';
import { page } from './page-html.js';
import { settingsSection } from './settings-html.js';
import { changeText, improveHeadline, keptText, listingName } from './improve.js';

export async function renderImproveHtml(results: ResultsFile): Promise<string> {
  const figures = candidateFigures(results);
  const sections = [keptSection(results, figures), await trajectorySection(results, figures), candidatesSection(results, figures), splitSection(results), settingsSection(results)];
  return page(results, sections, '');
}

function keptSection(results: ResultsFile, figures: CandidateFigures[]): string {
  const s = results.improve!;
  const [kept, caveat] = keptText(results, figures);
  // Green only for a gain beyond noise; a gain within noise is not a failure, and not a success either.
  const cls = s.chosen !== 'original' && /beyond noise/.test(kept ?? '') ? ' pass' : '';
  return `<section id="kept"><h2>Kept</h2>
<p class="lede">${e(improveHeadline(results))}</p>
<p class="verdict${cls}">${e(kept)}</p>
${caveat ? `<p class="lede">${e(caveat)}</p>` : ''}
${s.stopped ? `<p>Stopped early: ${e(s.stopped)}.</p>` : ''}
${s.listingCut ? `<p>The ${e(listingName(results))} listing shows only the first ${s.listingCut} characters of a description: the figures are measured on what it shows.</p>` : ''}
</section>`;
}

function rateCell(r: Rate | undefined): string {
  if (!r || r.rate === null) return '<td class="num">–</td>';
  return `<td class="num" data-value="${r.rate}"><span class="pct">${pct(r.rate)}</span> <span class="kn">${r.k}/${r.n}</span><div class="sub">${e(intervalText(r))}</div></td>`;
}

async function trajectorySection(results: ResultsFile, figures: CandidateFigures[]): Promise<string> {
  const s = results.improve!;
  const rows = figures.map((f) => {
    const c = f.candidate;
    const note = c.id === s.chosen ? '<span class="kind ok">kept</span>' : c.status === 'scored' ? '' : `<span class="kind error">${e(c.status)}</span> ${e(c.reason ?? '')}`;
    return `<tr data-candidate="${e(c.id)}"><td class="num">${c.iteration}</td><th scope="row"><a href="#candidate-${e(c.id)}">${e(c.id)}</a></th><td>${e(c.parent ?? '')}</td><td class="num">${[...c.description].length}</td>${rateCell(f.train?.accuracy)}${rateCell(f.test?.accuracy)}<td class="num">${f.test ? `${f.test.hits.k}/${f.test.hits.n}` : '–'}</td><td class="num">${f.test ? f.test.falseLoads.k : '–'}</td><td>${note}</td></tr>`;
  });
  // Repeats of a scored description would draw the same points again: the chart shows each description once.
  const values = figures.filter((f) => f.candidate.status === 'scored').flatMap((f) =>
    (['train', 'test'] as const).flatMap((part) => {
      const r = f[part]?.accuracy;
      return r && r.rate !== null ? [{ candidate: f.candidate.id, part, rate: r.rate, low: r.low ?? r.rate, high: r.high ?? r.rate, k: r.k, n: r.n }] : [];
    }),
  );
  const order = figures.filter((f) => f.train && f.candidate.status === 'scored').map((f) => f.candidate.id);
  const chart = values.length ? `<figure class="chart">${await renderSvg(trajectorySpec(values, order))}</figure>` : '';
  return `<section id="trajectory"><h2>Trajectory</h2>
<p class="lede">Accuracy of the whole catalogue on the train part (what the rewriter saw) and on the test part (what it never saw), per candidate in the order proposed, with 95% Wilson intervals. Hits: ${e(s.skill)}'s own test requests that loaded it; false loads: other test requests that loaded it.</p>
${chart}
<div class="scroll"><table class="summary"><thead><tr><th>iteration</th><th>candidate</th><th>from</th><th>chars</th><th>train accuracy</th><th>test accuracy</th><th>test hits</th><th>test false loads</th><th>note</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
</section>`;
}

function trajectorySpec(values: Record<string, unknown>[], order: string[]): Record<string, unknown> {
  const colour = { domain: ['train', 'test'], range: ['#6b7280', '#1d4ed8'] };
  const x = { field: 'candidate', type: 'ordinal', sort: order, title: 'candidate (in the order proposed)', axis: { labelAngle: 0 } };
  return {
    width: Math.max(240, 56 * order.length),
    height: 200,
    data: { values },
    encoding: { x, xOffset: { field: 'part', sort: ['train', 'test'] }, color: { field: 'part', type: 'nominal', scale: colour, title: null } },
    layer: [
      { mark: { type: 'point', filled: true, size: 60 }, encoding: { y: { field: 'rate', type: 'quantitative', scale: { domain: [0, 1] }, axis: { format: '.0%' }, title: 'accuracy' }, tooltip: [{ field: 'candidate' }, { field: 'part' }, { field: 'rate', format: '.1%' }, { field: 'k' }, { field: 'n' }] } },
      { mark: { type: 'rule' }, encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } } },
    ],
  };
}

function candidatesSection(results: ResultsFile, figures: CandidateFigures[]): string {
  const s = results.improve!;
  const requests = new Map(results.requests.map((r) => [r.id, r]));
  const original = figures.find((f) => f.candidate.id === 'original');
  const blocks = figures.map((f) => {
    const c = f.candidate;
    const parent = figures.find((x) => x.candidate.id === c.parent);
    const text = parent
      ? wordDiff(parent.candidate.description, c.description).map((p) => (p.op === 'same' ? e(p.text) : `<${p.op}>${e(p.text)}</${p.op}>`)).join('')
      : e(c.description);
    const facts: string[] = [];
    if (c.rationale) facts.push(`<dt>why</dt><dd>${e(c.rationale)}</dd>`);
    if (parent) facts.push(`<dt>changed</dt><dd>${e(changeText(parent.candidate.description, c.description, 400))}</dd>`);
    if (c.status !== 'scored') facts.push(`<dt>status</dt><dd>${e(c.status)}${c.reason ? `: ${e(c.reason)}` : ''}</dd>`);
    if (c.prescreen) facts.push(`<dt>offline pre-screen</dt><dd>${c.prescreen.k}/${c.prescreen.n} train requests ranked right (${e(String(results.settings.prescreen))})</dd>`);
    for (const part of ['train', 'test'] as const) {
      const score = f[part];
      if (!score) continue;
      facts.push(`<dt>${part}</dt><dd>${pct(score.accuracy.rate)} ${score.accuracy.k}/${score.accuracy.n} ${e(intervalText(score.accuracy))}${confusionText(score) ? ` · ${e(confusionText(score))}` : ''}${score.errors ? ` · ${score.errors} errors` : ''}</dd>`);
    }
    const changed = original?.run && f.run && f.run !== original.run ? flips(f.run, original.run, requests, [...s.split.train, ...s.split.test]) : [];
    const testIds = new Set(s.split.test);
    const flipRows = changed.map(
      (x) => `<tr class="${x.change === 'fixed' ? 'better' : 'worse'}"><td>${testIds.has(x.requestId) ? 'test' : 'train'}</td><td><code>${e(x.requestId)}</code></td><td class="text"><div>${e(x.text)}</div></td><td>${e(x.gold ?? '(none)')}</td><td>${e(x.before ?? '(none)')} → ${e(x.after ?? '(none)')}</td><td>${x.change}</td></tr>`,
    );
    return `<div class="selector-block" id="candidate-${e(c.id)}"><h3>${e(c.id)}${c.parent ? ` <span class="sub">iteration ${c.iteration}, from ${e(c.parent)}</span>` : ''}${c.id === s.chosen ? ' <span class="kind ok">kept</span>' : ''}</h3>
<p class="diff">${text}</p>
<dl class="facts">${facts.join('')}</dl>
${flipRows.length ? `<div class="scroll"><table class="failures"><thead><tr><th>part</th><th>request</th><th>text</th><th>expected</th><th>original → this</th><th>change</th></tr></thead><tbody>${flipRows.join('\n')}</tbody></table></div>` : ''}
</div>`;
  });
  return `<section id="candidates"><h2>Candidates</h2>
<p class="lede">Each description as it was measured; <ins>added</ins> and <del>removed</del> words against the one it was rewritten from; the requests it fixed or broke against the original.</p>
${blocks.join('\n')}
</section>`;
}

function splitSection(results: ResultsFile): string {
  const s = results.improve!;
  const test = new Set(s.split.test);
  const rows = results.requests.map((r) => `<tr><td>${test.has(r.id) ? 'test' : 'train'}</td><td><code>${e(r.id)}</code></td><td>${e(r.gold ?? '(none)')}</td><td>${e(r.kind ?? '')}</td><td class="text"><div>${e(r.text)}</div></td></tr>`);
  return `<section id="split"><h2>Split</h2>
<p class="lede">${s.split.train.length} train and ${s.split.test.length} test requests, stratified by kind (the skill's own, each other skill's, near misses and off-topic), seed ${s.split.seed}, holdout ${s.split.holdout}. The rewriter saw the failures of the train part only.</p>
<div class="scroll"><table class="failures"><thead><tr><th>part</th><th>request</th><th>gold</th><th>kind</th><th>text</th></tr></thead><tbody>${rows.join('\n')}</tbody></table></div>
</section>`;
}
