// The HTML report's "Against the baseline" section: each selector's rates then and now with the McNemar test, the
// skills whose description changed (word diffs), and the requests whose deciding score moved the most.
import type { SelectorMetrics } from '../types.js';
import { requestChanges, requestKey, skillChanges, type SkillChange } from './changes.js';
import { escapeHtml as e, pct, score, selectorLabel, when, type ReportInput } from './format.js';
import { MOVED } from './requests-html.js';

export function baselineSection(input: ReportInput): string {
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
