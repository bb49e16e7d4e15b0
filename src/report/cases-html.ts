// The HTML report's Cases section (eval-quality): every case in every mode with its verdict, in a table filtered by
// text and mode, and the few lines of inline script that filter it.
import type { ResultsFile } from '../types.js';
import { escapeHtml as e, int, passedOf, skillText, whyFailed } from './format.js';

/** Every case in every mode, with its verdict and why it failed; the same filter as the failures table. */
export function qualityCasesSection(results: ResultsFile): string {
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

/** Filters the cases table (eval-quality) by text and mode; a dozen lines, no library. */
export const CASES_SCRIPT = `
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
