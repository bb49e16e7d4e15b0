// The HTML report: one self-contained file (inline CSS, a few lines of inline script, SVG charts rendered in Node),
// which loads nothing from the network; a Content-Security-Policy says so to the browser as well. Every piece of
// text from the results file (skill names, request texts, settings, errors) goes through escapeHtml.
import { computeMetrics } from '../metrics.js';
import { hostReport } from '../hosts/notes.js';
import { targetSectionHtml } from './targets-html.js';
import type { ResultsFile, SelectorMetrics, SelectorRun } from '../types.js';
import { requestChanges, requestKey, skillChanges, type SkillChange } from './changes.js';
import { scriptSandboxLine } from './sandboxes.js';
import { confusionSpec, qualitySpec, ratesSpec, renderSvg, scoreDistributionSpec, sweepSpec, tokenAuditSpec } from './charts.js';
import { incompleteText } from '../completeness.js';
import { MOVED, REQUESTS_CSS, REQUESTS_SCRIPT, requestsSection } from './requests-html.js';
import { errorsText, summarize } from './summary.js';
import {
  armFlips, escapeHtml as e, figure, int, intervalText, isQuality, judgeMeanText, passedOf, pct, qualityRows, score, selectorLabel,
  skillText, thresholdText, usd, when, whyFailed, type ArmFlipRow, type ReportInput,
} from './format.js';

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

/** The page around the sections (exported for the improve report, which has no failure filter: `script` ''). */
export function page(results: ResultsFile, sections: string[], script = `${SCRIPT}\n${REQUESTS_SCRIPT}`): string {
  const nav = [...sections.join('').matchAll(/<section id="([a-z-]+)"><h2>([^<]+)<\/h2>/g)]
    .map(([, id, title]) => `<a href="#${id}">${title}</a>`)
    .join('');
  const title = `skillbench ${results.command} report`;
  return stableClipIds(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="skillbench ${e(results.skillbenchVersion)}">
<title>${e(title)}</title>
<style>${CSS}
${REQUESTS_CSS}</style>
</head>
<body>
<header>
<div class="title"><h1>skillbench <span>${e(results.command)}</span></h1>${gateBadge(results)}</div>
<p class="meta">${metaLine(results)}</p>
<nav>${nav}</nav>
</header>
<main>
${sections.join('\n')}
</main>
<footer>Rendered by skillbench ${e(results.skillbenchVersion)} from a results file (schema ${e(results.schema)} v${results.version}); every figure is recomputed from its decisions. This page loads nothing from the network.</footer>
${script ? `<script>${script}</script>` : ''}
</body>
</html>
`);
}

/**
 * vega numbers its clip paths from a counter global to the process, so the same results would give different bytes
 * from one render to the next. Renumber them in order of appearance: unique within the page, and reproducible.
 */
function stableClipIds(html: string): string {
  const ids = new Map<string, string>();
  // Only inside the charts: escaped user text cannot contain `<svg`, so it is never touched.
  return html.replace(/<svg [\s\S]*?<\/svg>/g, (svg) =>
    svg.replace(/(id="|url\(#)(clip\d+)\b/g, (_m, prefix: string, id: string) => {
      if (!ids.has(id)) ids.set(id, `chart-clip-${ids.size + 1}`);
      return `${prefix}${ids.get(id)}`;
    }),
  );
}

function metaLine(results: ResultsFile): string {
  const quality = isQuality(results);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const parts = [
    plural(results.requests.length, quality ? 'case' : 'request'),
    `${plural(results.catalogue.skills.length, 'skill')} from <code>${e(results.catalogue.source)}</code>`,
    plural(results.runs.length, quality ? 'mode' : results.command === 'suggest-eval' ? 'arm' : results.command === 'improve' ? 'scored description' : 'selector'),
    results.catalogue.format ? `catalogue format ${e(results.catalogue.format)}` : '',
    `created ${e(when(results.createdAt))}`,
  ];
  return parts.filter(Boolean).join(' · ');
}

function gateBadge(results: ResultsFile): string {
  const incomplete = incompleteText(results.completeness);
  const warn = incomplete ? `<span class="badge fail" title="${e(incomplete)}">⚠ incomplete</span><p class="verdict fail">${e(incomplete)}</p>` : '';
  if (!results.gate) return warn;
  if (warn) return warn + (results.gate.passed ? '' : '<span class="badge fail">✗ gate failed</span>');
  return results.gate.passed
    ? '<span class="badge pass">✓ gate passed</span>'
    : '<span class="badge fail">✗ gate failed</span>';
}

// ---------------------------------------------------------------- summary

async function summarySection(input: ReportInput): Promise<string> {
  const { results, metrics } = input;
  const rows = results.runs.map((run, i) => {
    const m = metrics[i]!;
    return `<tr data-selector="${e(run.selector)}"${run.ceiling ? ' class="ceiling"' : ''}>
<th scope="row">${e(run.selector)}${run.ceiling ? ' <span class="tag">ceiling</span>' : ''}</th>
<td>${e(run.kind)}${run.provider ? `<div class="sub">${e(run.provider)}${run.model ? ` · ${e(run.model)}` : ''}</div>` : ''}</td>
${rateCell('wrongLoad', m.wrongLoad)}
${rateCell('needlessLoad', m.needlessLoad)}
${rateCell('accuracy', m.accuracy)}
<td class="num" data-metric="errors" data-value="${m.errors}">${m.errors}</td>
<td class="num" data-metric="decisions" data-value="${m.decisions}">${int(m.decisions)}</td>
<td class="num" data-metric="meanInputTokens" data-value="${m.meanInputTokens ?? ''}">${m.meanInputTokens === null ? '–' : int(m.meanInputTokens)}</td>
<td class="num" data-metric="costUsd" data-value="${m.costUsd}">${m.meanInputTokens === null && !m.costUsd ? '–' : usd(m.costUsd)}</td>
<td>${e(thresholdText(run)) || '–'}</td>
</tr>`;
  });
  const chart = metrics.some((m) => m.wrongLoad.rate !== null || m.needlessLoad.rate !== null)
    ? `<figure class="chart">${await renderSvg(ratesSpec(results.runs, metrics))}</figure>`
    : '';
  return `<section id="summary"><h2>Summary</h2>
${lookAtList(input)}
<p class="lede"><b>Wrong load</b>: requests that need a skill where the first skill loaded is not the expected one (loading nothing counts).
<b>Needless load</b>: requests that need no skill where one was loaded. Failed calls are counted apart. Intervals are 95% Wilson.</p>
<div class="scroll"><table class="summary">
<thead><tr><th>selector</th><th>kind</th><th>wrong load</th><th>needless load</th><th>accuracy</th><th>errors</th><th>decisions</th><th>mean input tokens</th><th>cost</th><th>threshold</th></tr></thead>
<tbody>${rows.join('\n')}</tbody>
</table></div>
${chart}
</section>`;
}

/** The answer first: per selector its two rates and what to look at (the terminal report's summary, same words). */
function lookAtList(input: ReportInput): string {
  const items = summarize(input.results, input.metrics).map((s) => {
    const rates = s.note ? e(s.note) : `wrong load <b>${pct(s.wrongLoad.rate)}</b> <span class="kn">${s.wrongLoad.k}/${s.wrongLoad.n}</span>, needless load <b>${pct(s.needlessLoad.rate)}</b> <span class="kn">${s.needlessLoad.k}/${s.needlessLoad.n}</span>${s.errors ? `, <span class="err">${errorsText(s.errors)}</span>` : ''}`;
    const look = s.lookAt.length ? `<ul>${s.lookAt.map((x) => `<li>${e(x)}</li>`).join('')}</ul>` : s.note ? '' : '<ul><li>every decision right</li></ul>';
    return `<li data-selector="${e(s.selector)}"><b>${e(s.label)}</b>: ${rates}${look}</li>`;
  });
  return `<ul class="look-at">${items.join('\n')}</ul>`;
}

function rateCell(metric: string, r: SelectorMetrics['wrongLoad']): string {
  const ci = intervalText(r);
  return `<td class="num rate" data-metric="${metric}" data-k="${r.k}" data-n="${r.n}" data-rate="${r.rate ?? ''}">` +
    `<span class="pct">${pct(r.rate)}</span> <span class="kn">${r.k}/${r.n}</span>${ci ? `<div class="sub">${ci}</div>` : ''}</td>`;
}

// ---------------------------------------------------------------- baseline and gate

function baselineSection(input: ReportInput): string {
  const base = input.baseline!;
  const rows = input.results.runs.map((run, i) => {
    const now = input.metrics[i]!;
    const j = base.results.runs.findIndex((b) => b.selector === run.selector);
    const then = j >= 0 ? base.metrics[j] : undefined;
    const test = input.results.gate?.mcnemar?.find((t) => t.selector === run.selector);
    const pair = (a: SelectorMetrics['wrongLoad'] | undefined, b: SelectorMetrics['wrongLoad']) =>
      `<td class="num">${a ? `${pct(a.rate)} <span class="kn">${a.k}/${a.n}</span>` : '–'}</td><td class="num">${pct(b.rate)} <span class="kn">${b.k}/${b.n}</span>${delta(a?.rate, b.rate)}</td>`;
    return `<tr><th scope="row">${e(selectorLabel(run))}</th>${pair(then?.wrongLoad, now.wrongLoad)}${pair(then?.needlessLoad, now.needlessLoad)}` +
      `<td class="num">${test?.better ?? '–'}</td><td class="num">${test?.worse ?? '–'}</td><td class="num">${test ? test.pValue.toPrecision(3) : '–'}</td></tr>`;
  });
  return `<section id="baseline"><h2>Against the baseline</h2>
<p class="lede">Baseline: <code>${e(base.file)}</code> (${e(when(base.results.createdAt))}, ${base.results.requests.length} requests). Better and worse count the paired requests whose outcome changed; p is the exact McNemar test.</p>
<div class="scroll"><table>
<thead><tr><th rowspan="2">selector</th><th colspan="2">wrong load</th><th colspan="2">needless load</th><th rowspan="2">better</th><th rowspan="2">worse</th><th rowspan="2">McNemar p</th></tr>
<tr><th>baseline</th><th>now</th><th>baseline</th><th>now</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
${skillChangesBlock(skillChanges(input.results, base.results))}
${scoreMovesBlock(input)}
</section>`;
}

/** The skills whose description (or version) changed since the baseline, each with a word diff when both texts are known. */
function skillChangesBlock(changes: SkillChange[]): string {
  if (!changes.length) return '<h3>Skills</h3><p class="sub" id="skill-changes-none">No skill changed since the baseline (same names and versions).</p>';
  const item = (c: SkillChange) => {
    const body = c.diff
      ? `<p class="diff">${c.diff.map((p) => (p.op === 'same' ? e(p.text) : `<${p.op}>${e(p.text)}</${p.op}>`)).join('')}</p>`
      : c.change === 'added'
        ? `<p class="diff"><ins>${e(c.after ?? '')}</ins></p>`
        : c.change === 'removed'
          ? `<p class="diff"><del>${e(c.before ?? '')}</del></p>`
          : `<p class="sub">${e(c.why ?? '')}</p>`;
    return `<li class="skill-change" data-skill="${e(c.name)}" data-change="${c.change}"><b>${e(c.name)}</b> <span class="tag">${c.change}</span>${body}</li>`;
  };
  return `<h3>Skills that changed (${changes.length})</h3>
<p class="sub">Descriptions as each results file recorded them: <del>removed words</del>, <ins>added words</ins>.</p>
<ul class="skill-changes">${changes.map(item).join('\n')}</ul>`;
}

/**
 * The requests whose deciding score moved the most against the baseline, flipped or not: a request that went from
 * 0.39 to 0.51 under a 0.55 threshold has not flipped yet, and is what a description edit is doing.
 */
function scoreMovesBlock(input: ReportInput, max = 20): string {
  const { results } = input;
  const changes = requestChanges(results, input.baseline!.results);
  const moves: { selector: string; id: string; text: string; before: number; after: number; d: number; flipped: boolean; now: string }[] = [];
  for (const r of results.requests) {
    for (const [selector, c] of changes.get(requestKey(r)) ?? []) {
      if (c.delta === undefined || Math.abs(c.delta) < MOVED) continue;
      moves.push({ selector, id: r.id, text: r.text, before: c.before.score!, after: c.after.score!, d: c.delta, flipped: c.flipped, now: c.after.outcome });
    }
  }
  if (!moves.length) return `<h3>Score changes</h3><p class="sub">No deciding score moved by ${MOVED} or more.</p>`;
  moves.sort((a, b) => Math.abs(b.d) - Math.abs(a.d) || a.id.localeCompare(b.id));
  const rows = moves.slice(0, max).map((m) => `<tr class="score-move" data-selector="${e(m.selector)}" data-request="${e(m.id)}"><td>${e(m.selector)}</td><td><code>${e(m.id)}</code> ${e(m.text)}</td>` +
    `<td class="num">${score(m.before)}</td><td class="num">${score(m.after)}</td><td class="num"><span class="delta">${m.d > 0 ? '+' : '−'}${Math.abs(m.d).toFixed(3)}</span></td><td>${m.flipped ? 'flipped' : 'no flip'}</td></tr>`);
  return `<h3>Score changes: ${moves.length} moved by ${MOVED} or more${moves.length > max ? ` (the ${max} largest shown)` : ''}</h3>
<p class="sub">The deciding score: the gold skill's for a request that needs one, the top skill's for one that needs none. Filter the Requests below by "score moved" for all of them.</p>
<div class="scroll"><table class="score-moves"><thead><tr><th>selector</th><th>request</th><th>baseline</th><th>now</th><th>change</th><th>decision</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>`;
}

function delta(before: number | null | undefined, after: number | null): string {
  if (before === null || before === undefined || after === null) return '';
  const d = 100 * (after - before);
  if (Math.abs(d) < 0.05) return ' <span class="delta">±0</span>';
  // Lower is better for both rates.
  return ` <span class="delta ${d > 0 ? 'worse' : 'better'}">${d > 0 ? '▲ +' : '▼ '}${d.toFixed(1)} pts</span>`;
}

/** The host whose prompt the run reproduced, and what its listing hid (as the terminal prints it). */
function hostSection(results: ResultsFile): string | null {
  const report = hostReport(results, computeMetrics);
  if (!report) return null;
  const lines = report.lines.length ? `<ul class="notes">${report.lines.map((l) => `<li>${e(l)}</li>`).join('')}</ul>` : '';
  return `<section id="host"><h2>Host</h2>
<p>${e(report.header)}</p>
${lines}
</section>`;
}

function gateSection(results: ResultsFile): string {
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

function armFlipSection(flips: ArmFlipRow[]): string {
  const fixed = flips.filter((f) => f.change === 'fixed').length;
  const rows = flips.map((f) => `<tr class="${f.change === 'fixed' ? 'better' : 'worse'}"><td>${e(f.arm)}</td><td><code>${e(f.requestId)}</code> ${e(f.text)}</td>` +
    `<td>${e(skillText(f.gold))}</td><td>${f.before === undefined ? '–' : e(skillText(f.before))}</td><td>${e(skillText(f.after))}</td><td>${f.change === 'fixed' ? '✓ fixed' : '✗ broken'}</td></tr>`);
  return `<section id="arms"><h2>Against the baseline arm</h2>
<p class="lede">Requests that need a skill, right in one arm and wrong in the other: <b>${fixed} fixed</b>, <b>${flips.length - fixed} broken</b>.</p>
<div class="scroll"><table class="flips"><thead><tr><th>arm</th><th>request</th><th>expected</th><th>baseline loaded</th><th>arm loaded</th><th>change</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
</section>`;
}

// ---------------------------------------------------------------- score selectors

async function scoreSection(results: ResultsFile, runs: { run: SelectorRun; m: SelectorMetrics }[]): Promise<string> {
  const blocks: string[] = [];
  for (const { run, m } of runs) {
    const s = m.separability;
    const facts = [
      ['threshold used', thresholdText(run) || '–'],
      ['lowest score of a correctly ranked positive', s ? score(s.lowestCorrectPositive ?? undefined) || '–' : '–'],
      ['highest score of a request that needs no skill', s ? score(s.highestNegative ?? undefined) || '–' : '–'],
      ['a threshold separates them', s ? (s.separable === null ? 'undefined (the set lacks covered or uncovered requests)' : s.separable ? 'yes' : 'no') : '–'],
      ['best threshold on these requests (optimistic)', s?.bestThreshold !== null && s?.bestThreshold !== undefined ? `${score(s.bestThreshold)} (mean ${pct(s.bestMean)})` : '–'],
      ['top-1 recall', m.recall ? `${pct(m.recall.top1.rate)} (${m.recall.top1.k}/${m.recall.top1.n})` : '–'],
      ['top-3 recall', m.recall ? `${pct(m.recall.top3.rate)} (${m.recall.top3.k}/${m.recall.top3.n})` : '–'],
      ['top-5 recall', m.recall?.top5 ? `${pct(m.recall.top5.rate)} (${m.recall.top5.k}/${m.recall.top5.n})` : '–'],
      ['top-10 recall', m.recall?.top10 ? `${pct(m.recall.top10.rate)} (${m.recall.top10.k}/${m.recall.top10.n})` : '–'],
    ];
    const dist = scoreDistributionSpec(results, run);
    const sweep = sweepSpec(run, m);
    blocks.push(`<div class="selector-block" data-selector="${e(run.selector)}"><h3>${e(run.selector)}</h3>
<dl class="facts">${facts.map(([k, v]) => `<dt>${e(k!)}</dt><dd>${e(v!)}</dd>`).join('')}</dl>
<div class="charts">${dist ? `<figure class="chart">${await renderSvg(dist)}</figure>` : ''}${sweep ? `<figure class="chart">${await renderSvg(sweep)}</figure>` : ''}</div>
</div>`);
  }
  return `<section id="scores"><h2>Scores and thresholds</h2>
<p class="lede">Score-based selectors rank every skill, then load the top one when its score reaches the threshold. A threshold chosen on the requests it is scored on is optimistic; cross-validate (<code>--cv K</code>, the default when there are enough requests) or calibrate on other requests (<code>--calibrate</code>) for an honest figure.</p>
${blocks.join('\n')}
</section>`;
}

async function confusionSection(runs: { run: SelectorRun; m: SelectorMetrics }[]): Promise<string> {
  const spec = confusionSpec(runs);
  const charts = spec ? [`<figure class="chart">${await renderSvg(spec)}</figure>`] : [];
  return `<section id="confusion"><h2>Confusion between skills</h2>
<p class="lede">Requests that needed a skill and got another one, or none.</p>
<div class="charts">${charts.join('')}</div>
</section>`;
}

function flakySection(runs: { run: SelectorRun; m: SelectorMetrics }[]): string {
  const rows = runs.flatMap(({ run, m }) =>
    m.flaky!.map((f) => `<tr><td>${e(run.selector)}</td><td><code>${e(f.requestId)}</code> ${e(f.text)}</td><td>${f.choices.map((c) => e(skillText(c))).join(' → ')}</td></tr>`),
  );
  return `<section id="flaky"><h2>Flaky requests</h2>
<p class="lede">Requests whose decision changed between repeated runs.</p>
<div class="scroll"><table><thead><tr><th>selector</th><th>request</th><th>choices by run</th></tr></thead><tbody>${rows.join('\n')}</tbody></table></div>
</section>`;
}

async function tokenSection(results: ResultsFile): Promise<string> {
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

// ---------------------------------------------------------------- eval-quality

async function qualitySection(results: ResultsFile): Promise<string> {
  const summary = results.quality;
  const judged = Boolean(summary?.judged);
  const chartRows: Parameters<typeof qualitySpec>[0] = [];
  const rows = qualityRows(results).map(({ mode, pass, summary: m }) => {
    if (pass.rate !== null) chartRows.push({ mode, rate: pass.rate, low: pass.low!, high: pass.high!, k: pass.k, n: pass.n, tokens: m?.inputTokensPerRequest ?? null });
    return `<tr data-selector="${e(mode)}"><th scope="row">${e(mode)}</th>${rateCell('pass', pass)}` +
      `<td class="num">${m?.errors ?? '–'}</td><td class="num">${figure(m?.inputTokensPerRequest)}</td><td class="num">${figure(m?.callsPerRequest, 1)}</td>` +
      `<td class="num">${figure(m?.outputTokensPerRequest)}</td><td class="num">${m ? usd(m.costUsd) : '–'}</td>` +
      `${judged ? `<td class="num">${e(judgeMeanText(m?.judge))}</td>` : ''}</tr>`;
  });
  const ratio = summary?.tokenRatio;
  const sandboxes = scriptSandboxLine(results);
  return `<section id="quality"><h2>Answer quality</h2>
<p class="lede">Each case's answer is checked (required facts, patterns, forbidden content${judged ? ', and a judge' : ''}) in each agent mode. Intervals are 95% Wilson.${
    ratio !== null && ratio !== undefined ? ` Progressive disclosure spent <b>${ratio.toFixed(2)}×</b> the input tokens of load-all per request.` : ''}</p>
<div class="scroll"><table class="summary">
<thead><tr><th>mode</th><th>pass rate</th><th>no answer</th><th>input tokens / request</th><th>calls / request</th><th>output tokens / request</th><th>cost</th>${judged ? '<th>judge mean (n)</th>' : ''}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
${sandboxes ? `<p>Skill scripts: ${e(sandboxes)}.</p>\n` : ''}${chartRows.length ? `<figure class="chart">${await renderSvg(qualitySpec(chartRows))}</figure>` : ''}
</section>`;
}

/** Every case in every mode, with its verdict and why it failed; the same filter as the failures table. */
function qualityCasesSection(results: ResultsFile): string {
  const byId = new Map(results.requests.map((r) => [r.id, r]));
  const rows: string[] = [];
  for (const run of results.runs) {
    for (const d of run.decisions) {
      const r = byId.get(d.requestId);
      const passed = passedOf(d);
      const kind = d.error !== undefined ? 'error' : passed ? 'passed' : 'failed';
      const calls = typeof d.detail?.calls === 'number' ? d.detail.calls : undefined;
      rows.push(`<tr data-selector="${e(run.selector)}" data-kind="${kind}"><td>${e(run.selector)}</td><td><code>${e(d.requestId)}</code></td>` +
        `<td class="text"><div title="${e(r?.text ?? '')}">${e(r?.text ?? '')}</div></td><td>${e(skillText(r?.gold ?? null))}</td>` +
        `<td>${e(whyFailed(d))}</td><td class="num">${calls ?? ''}</td><td class="num">${d.usage ? int(d.usage.inputTokens) : ''}</td>` +
        `<td><span class="kind ${kind === 'passed' ? 'ok' : kind === 'failed' ? 'wrong' : 'error'}">${kind}</span></td></tr>`);
    }
  }
  return filteredTable(results, rows, {
    title: 'Cases',
    placeholder: 'Filter: request text, id, check…',
    what: 'case',
    run: 'mode',
    head: '<th>mode</th><th>id</th><th>request</th><th>skill</th><th>failed checks</th><th>calls</th><th>input tokens</th><th>verdict</th>',
  });
}

// ---------------------------------------------------------------- cases filter and settings

/**
 * The filterable table of failures (eval-trigger) or cases (eval-quality): a text filter and a selector/mode filter
 * over rows marked with data-selector; the page's inline script finds them by these ids.
 */
function filteredTable(results: ResultsFile, rows: string[], t: { title: string; placeholder: string; what: string; run: string; head: string; empty?: string }): string {
  const options = results.runs.map((run) => `<option value="${e(run.selector)}">${e(run.selector)}</option>`).join('');
  const label = t.run[0]!.toUpperCase() + t.run.slice(1);
  return `<section id="failures"><h2>${t.title}</h2>
<div class="filters"><input type="search" id="failure-filter" placeholder="${t.placeholder}" aria-label="Filter ${t.what}s">
<select id="failure-selector" aria-label="${label}"><option value="">all ${t.run}s</option>${options}</select>
<span id="failure-count" class="sub">${rows.length} ${t.what}s</span></div>
<div class="scroll"><table class="failures"><thead><tr>${t.head}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
${t.empty !== undefined ? (rows.length ? '' : t.empty) + '\n' : ''}</section>`;
}

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

// ---------------------------------------------------------------- inline CSS and script

const CSS = `
:root{--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--bg:#f8fafc;--card:#fff;--wrong:#c2410c;--needless:#1d4ed8;--ok:#15803d;--bad:#b91c1c}
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#0f172a;color:#f8fafc;padding:20px 32px 0}
header .title{display:flex;align-items:center;gap:16px;flex-wrap:wrap}
h1{margin:0;font-size:22px;font-weight:650}h1 span{color:#93c5fd}
.meta{margin:6px 0 12px;color:#cbd5e1}.meta code{color:#e2e8f0}
nav{display:flex;gap:4px;flex-wrap:wrap}nav a{color:#cbd5e1;text-decoration:none;padding:6px 10px;border-radius:6px 6px 0 0}nav a:hover{background:#1e293b;color:#fff}
.badge{padding:3px 10px;border-radius:999px;font-weight:600;font-size:13px}.badge.pass{background:#dcfce7;color:#14532d}.badge.fail{background:#fee2e2;color:#7f1d1d}
main{max-width:1180px;margin:0 auto;padding:8px 24px 24px}
section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 20px;margin:18px 0}
h2{margin:0 0 8px;font-size:17px}h3{font-size:15px;margin:14px 0 6px}
.lede{color:var(--muted);margin:0 0 12px;max-width:900px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:#f1f5f9;font-weight:600;white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pct{font-weight:600}.kn,.sub{color:var(--muted);font-size:12px}
tr.ceiling th,tr.ceiling td{background:repeating-linear-gradient(135deg,#fff,#fff 6px,#f3f4f6 6px,#f3f4f6 12px)}
.tag{border:1px dashed #6b7280;border-radius:4px;padding:0 5px;font-size:11px;font-weight:500;color:#374151}
.scroll{overflow-x:auto}
figure.chart{margin:14px 0 0;overflow-x:auto}figure.chart svg{max-width:100%;height:auto}
.charts{display:flex;flex-wrap:wrap;gap:12px 28px;align-items:flex-start}
.selector-block{border-top:1px solid var(--line);padding-top:6px;margin-top:10px}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 16px;margin:6px 0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;font-variant-numeric:tabular-nums}
.verdict{font-size:16px;font-weight:650}.verdict.pass{color:var(--ok)}.verdict.fail{color:var(--bad)}
tr.worse td:last-child{color:var(--bad);font-weight:600}tr.better td:last-child{color:var(--ok);font-weight:600}
.delta{font-size:12px}.delta.worse{color:var(--bad)}.delta.better{color:var(--ok)}
.filters{display:flex;gap:10px;align-items:center;margin-bottom:8px;flex-wrap:wrap}
.filters input{flex:1;min-width:240px;padding:7px 10px;border:1px solid #cbd5e1;border-radius:6px;font:inherit}
.filters select{padding:6px;border:1px solid #cbd5e1;border-radius:6px;font:inherit}
table.failures td{word-break:break-word}table.failures td:nth-child(-n+2),table.failures td:last-child{white-space:nowrap;word-break:normal}
td.text{min-width:260px;max-width:520px}td.text div{display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden}
.kind{font-size:11px;padding:1px 6px;border-radius:4px;font-weight:600}.kind.wrong{background:#ffedd5;color:#9a3412}.kind.needless{background:#dbeafe;color:#1e3a8a}.kind.error{background:#fee2e2;color:#7f1d1d}.kind.ok{background:#dcfce7;color:#14532d}
.err{color:var(--bad)}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
footer{color:var(--muted);font-size:12px;text-align:center;padding:8px 24px 28px}
ul.look-at{margin:0 0 12px;padding-left:18px}ul.look-at>li{margin:4px 0}ul.look-at ul{margin:2px 0;color:#374151}
ul.skill-changes{padding-left:18px}p.diff{margin:4px 0 10px;line-height:1.6}del{background:#fee2e2;color:#7f1d1d}ins{background:#dcfce7;color:#14532d;text-decoration:none}
`.trim();

/** Filters the cases table (eval-quality) by text and mode; a dozen lines, no library. */
const SCRIPT = `
(function () {
  var input = document.getElementById('failure-filter');
  var select = document.getElementById('failure-selector');
  var count = document.getElementById('failure-count');
  if (!input) return;
  var rows = Array.prototype.slice.call(document.querySelectorAll('table.failures tbody tr'));
  function apply() {
    var q = input.value.trim().toLowerCase();
    var sel = select.value;
    var shown = 0;
    rows.forEach(function (tr) {
      var ok = (!sel || tr.getAttribute('data-selector') === sel) && (!q || tr.textContent.toLowerCase().indexOf(q) !== -1);
      tr.hidden = !ok;
      if (ok) shown++;
    });
    count.textContent = shown + ' of ' + rows.length + ' shown';
  }
  input.addEventListener('input', apply);
  select.addEventListener('change', apply);
  apply();
})();
`.trim();
