// The HTML report's Requests section: every request against every selector (a matrix: one row per request, one
// column per selector, each cell what it loaded and whether that was right), filters (failures, errors, changed
// against the baseline, per selector, skill, language and kind), a search box, a sort, and a drill-down per request:
// its text and gold, and per selector the decision, the top-k ranking with scores, the threshold, for a "(none)" the
// skill that ranked first, the words the request shares with the skill it loaded or ranked first (near misses), for
// model selectors the tool call or the answer text, stop reason, tokens, cost, and against a baseline the decision
// and score before. The rows are rendered here; the drill-down is built in the page from a JSON copy of the data,
// with text set through textContent (never parsed as HTML).
import { loaded } from '../metrics.js';
import type { Decision, ResultsFile, SelectorRun } from '../types.js';
import { decidingScore, requestChanges, requestKey, type RequestChange } from './changes.js';
import { escapeHtml as e, outcomeOf, score, skillText, type Outcome, type ReportInput } from './format.js';
import { guessLanguage } from './language.js';
import { matchedWords, skillStems } from './matched.js';

/** A score move at least this large is listed as "moved" against the baseline. */
export const MOVED = 0.05;
/** Answer texts kept in the page (a model selector's answer is short; a runaway answer is cut). */
const MAX_ANSWER = 4000;

interface CellData {
  run: number;
  c: string | null;
  o: Outcome;
  raw?: string;
  e?: string;
  /** Top of the ranking: [skill, score]. */
  s?: [string, number][];
  /** Deciding score (gold's, or the top one for a request that needs none). */
  ds?: number;
  /** Words shared with the skill loaded (or ranked first when none was). */
  w?: { skill: string; words: string[] };
  calls?: Decision['calls'];
  a?: string;
  sr?: string;
  u?: Decision['usage'];
  usd?: number;
  cached?: boolean;
  ms?: number;
}

interface BaseData {
  c: string | null;
  o: Outcome;
  before?: number;
  after?: number;
  d?: number;
  f: boolean;
  ch: boolean;
}

interface Payload {
  selectors: { name: string; kind: string; ceiling?: boolean; threshold?: { value: number; source: string; file?: string }; provider?: string; model?: string }[];
  requests: { id: string; text: string; gold: string | null; kind?: string; lang: string }[];
  cells: CellData[][][];
  baseline?: { file: string; cells: (BaseData | null)[][] };
}

export function requestsSection(input: ReportInput): string {
  const payload = buildPayload(input);
  const { results } = input;
  const rows = payload.requests.map((r, i) => matrixRow(payload, i));
  const languages = [...new Set(payload.requests.map((r) => r.lang))].sort();
  const kinds = [...new Set(payload.requests.map((r) => r.kind).filter((k): k is string => Boolean(k)))];
  const option = (value: string, label = value) => `<option value="${e(value)}">${e(label)}</option>`;
  const baseline = Boolean(payload.baseline);
  const filters = [
    `<input type="search" id="req-search" placeholder="Search: request text, id or skill…" aria-label="Search the requests">`,
    `<select id="req-outcome" aria-label="Outcome">${option('', 'every request')}${option('fail', 'failures (wrong or needless load)')}${option('error', 'errors')}` +
      `${baseline ? `${option('changed', 'changed against the baseline')}${option('moved', `score moved ≥ ${MOVED} against the baseline`)}` : ''}${option('right', 'right')}</select>`,
    `<select id="req-selector" aria-label="Selector">${option('', 'any selector')}${payload.selectors.map((s, j) => option(String(j), s.name)).join('')}</select>`,
    `<select id="req-skill" aria-label="Skill">${option('', 'every skill')}${results.catalogue.skills.map((s) => option(s.name)).join('')}</select>`,
    languages.length > 1 ? `<select id="req-lang" aria-label="Language">${option('', 'every language')}${languages.map((l) => option(l)).join('')}</select>` : '',
    kinds.length > 1 ? `<select id="req-kind" aria-label="Kind">${option('', 'every kind')}${kinds.map((k) => option(k)).join('')}</select>` : '',
    `<select id="req-sort" aria-label="Sort">${option('order', 'sort: file order')}${option('id', 'sort: id')}${option('failing', 'sort: most selectors wrong first')}` +
      `${option('margin', 'sort: closest to the threshold first')}${baseline ? option('moved', 'sort: largest score change first') : ''}</select>`,
    `<span id="req-count" class="sub">${rows.length} requests</span>`,
  ].filter(Boolean);
  const head = ['<th>request</th>', '<th>text</th>', '<th>gold</th>', ...payload.selectors.map((s) => `<th class="sel">${e(s.name)}</th>`), ...(baseline ? ['<th>score change</th>'] : [])];
  return `<section id="requests"><h2>Requests</h2>
<p class="lede">Every request against every selector: ✓ right, ✗ wrong load (a request that needs a skill got another or none), ✗ needless load (a request that needs none got one), ⚠ a failed call. Click a row (or press Enter on it) for its drill-down: the ranking with scores, the threshold, the words it matched, the model's answer${baseline ? ', and what the baseline decided' : ''}.</p>
<div class="filters">${filters.join('\n')}</div>
<div class="scroll"><table class="matrix" id="req-matrix"><thead><tr>${head.join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
<script type="application/json" id="req-data">${jsonForScript(payload)}</script>
</section>`;
}

/** JSON inside a script element: `<` escaped, so no text can close the element. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function buildPayload(input: ReportInput): Payload {
  const { results } = input;
  const index = new Map(results.requests.map((r, i) => [r.id, i]));
  const skills = new Map(results.catalogue.skills.map((s) => [s.name, s]));
  const stems = new Map<string, Set<string>>();
  const stemsOf = (name: string) => {
    const skill = skills.get(name);
    if (!skill?.description) return undefined;
    if (!stems.has(name)) stems.set(name, skillStems(skill));
    return stems.get(name);
  };
  const cells: CellData[][][] = results.requests.map(() => results.runs.map(() => []));
  results.runs.forEach((run, j) => {
    for (const d of run.decisions) {
      const i = index.get(d.requestId);
      if (i === undefined) continue;
      const r = results.requests[i]!;
      cells[i]![j]!.push(cellData(d, r.gold, r.text, r.kind, stemsOf));
    }
  });
  for (const row of cells) for (const list of row) list.sort((a, b) => a.run - b.run);
  const payload: Payload = {
    selectors: results.runs.map(selectorData),
    requests: results.requests.map((r) => ({ id: r.id, text: r.text, gold: r.gold, ...(r.kind ? { kind: r.kind } : {}), lang: guessLanguage(r.text) })),
    cells,
  };
  if (input.baseline) payload.baseline = { file: input.baseline.file, cells: baselineCells(results, input.baseline.results) };
  return payload;
}

function selectorData(run: SelectorRun): Payload['selectors'][number] {
  return {
    name: run.selector,
    kind: run.kind,
    ...(run.ceiling ? { ceiling: true } : {}),
    ...(run.threshold ? { threshold: { value: run.threshold.value, source: run.threshold.source, ...(run.threshold.calibrationFile ? { file: run.threshold.calibrationFile } : {}) } } : {}),
    ...(run.provider ? { provider: run.provider } : {}),
    ...(run.model ? { model: run.model } : {}),
  };
}

function cellData(d: Decision, gold: string | null, text: string, kind: string | undefined, stemsOf: (name: string) => Set<string> | undefined): CellData {
  const cell: CellData = { run: d.run, c: loaded(d), o: outcomeOf(d, gold) };
  if (d.rawChoice !== undefined) cell.raw = d.rawChoice;
  if (d.error !== undefined) cell.e = d.error;
  if (d.scores?.length) {
    cell.s = d.scores.slice(0, 10).map((s) => [s.name, s.score]);
    const ds = decidingScore(d, gold);
    if (ds !== undefined) cell.ds = ds;
  }
  // The words behind a wrong or needless load, a near miss, or the first-ranked skill of a "(none)".
  const explained = d.chosen ?? d.scores?.[0]?.name;
  const skillStemSet = explained ? stemsOf(explained) : undefined;
  if (explained && skillStemSet && d.error === undefined && (cell.o !== 'correct' || kind === 'near-miss' || d.chosen === null)) {
    cell.w = { skill: explained, words: matchedWords(text, skillStemSet) };
  }
  if (d.calls?.length) cell.calls = d.calls;
  if (d.answer) cell.a = d.answer.length > MAX_ANSWER ? `${d.answer.slice(0, MAX_ANSWER)}…` : d.answer;
  if (d.stopReason) cell.sr = d.stopReason;
  if (d.usage) cell.u = d.usage;
  if (d.costUsd !== undefined) cell.usd = d.costUsd;
  if (d.cached !== undefined) cell.cached = d.cached;
  if (d.latencyMs !== undefined) cell.ms = Math.round(d.latencyMs);
  return cell;
}

function baselineCells(results: ResultsFile, baseline: ResultsFile): (BaseData | null)[][] {
  const changes = requestChanges(results, baseline);
  return results.requests.map((r) => {
    const perSelector = changes.get(requestKey(r));
    return results.runs.map((run) => {
      const c: RequestChange | undefined = perSelector?.get(run.selector);
      if (!c) return null;
      const out: BaseData = { c: c.before.chosen, o: c.before.outcome, f: c.flipped, ch: c.choiceChanged };
      if (c.before.score !== undefined) out.before = c.before.score;
      if (c.after.score !== undefined) out.after = c.after.score;
      if (c.delta !== undefined) out.d = c.delta;
      return out;
    });
  });
}

const GLYPH: Record<Outcome, string> = { correct: '✓', 'wrong-load': '✗', 'needless-load': '✗', error: '⚠' };
const OUTCOME_WORDS: Record<Outcome, string> = { correct: 'right', 'wrong-load': 'wrong load', 'needless-load': 'needless load', error: 'error' };

function matrixRow(p: Payload, i: number): string {
  const r = p.requests[i]!;
  const cells = p.selectors.map((s, j) => matrixCell(p.cells[i]![j]!, p.baseline?.cells[i]?.[j] ?? null));
  const moves = p.baseline?.cells[i]?.map((b) => b?.d).filter((d): d is number => d !== undefined) ?? [];
  const biggest = moves.length ? moves.reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a)) : undefined;
  const change = p.baseline ? `<td class="num delta-cell">${biggest === undefined ? '–' : signed(biggest)}</td>` : '';
  return `<tr class="req" data-i="${i}" tabindex="0" aria-expanded="false"><td class="id"><code>${e(r.id)}</code></td>` +
    `<td class="text"><div title="${e(r.text)}">${e(r.text)}</div></td><td>${e(skillText(r.gold))}</td>${cells.join('')}${change}</tr>`;
}

function matrixCell(decisions: CellData[], base: BaseData | null): string {
  const first = decisions[0];
  if (!first) return '<td class="cell">–</td>';
  const right = decisions.filter((d) => d.o === 'correct').length;
  const repeats = decisions.length > 1 ? `<div class="sub">${right}/${decisions.length} runs right</div>` : '';
  const top = first.s?.[0];
  const sub = first.o === 'error'
    ? `<div class="sub err">${e(first.e!.length > 60 ? `${first.e!.slice(0, 59)}…` : first.e!)}</div>`
    : first.c === null && top
      ? `<div class="sub">top ${e(top[0])} ${score(top[1])}</div>`
      : top ? `<div class="sub">${score(top[1])}</div>` : '';
  const was = base && base.ch ? `<div class="sub was">was ${e(skillText(base.c))}</div>` : '';
  const moved = base?.d !== undefined && Math.abs(base.d) >= 0.0005 ? `<div class="sub">${signed(base.d)}</div>` : '';
  return `<td class="cell ${first.o}" title="${e(OUTCOME_WORDS[first.o])}"><span class="glyph" aria-label="${e(OUTCOME_WORDS[first.o])}">${GLYPH[first.o]}</span> ${e(first.c === null ? '(none)' : first.c)}${sub}${repeats}${was}${moved}</td>`;
}

function signed(x: number): string {
  return `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(3)}`;
}

export const REQUESTS_CSS = `
table.matrix td.cell{white-space:nowrap;font-size:12.5px}table.matrix td.cell .sub{white-space:nowrap}
table.matrix tr.req{cursor:pointer}table.matrix tr.req:hover td,table.matrix tr.req:focus td{background:#f8fafc}table.matrix tr.req[aria-expanded=true] td{background:#eef2ff}
td.cell .glyph{font-weight:700}td.cell.correct .glyph{color:var(--ok)}td.cell.wrong-load .glyph{color:var(--wrong)}td.cell.needless-load .glyph{color:var(--needless)}td.cell.error .glyph{color:var(--bad)}
td.cell.wrong-load{background:#fff7ed}td.cell.needless-load{background:#eff6ff}td.cell.error{background:#fef2f2}
.sub.was{color:#7c3aed}
tr.detail>td{background:#fbfdff;padding:12px 16px}
.drill{position:sticky;left:0;max-width:min(1100px,calc(100vw - 110px))}.drill .req-head{color:var(--muted);margin-bottom:6px}.drill blockquote{margin:0 0 10px;padding:8px 12px;border-left:3px solid #cbd5e1;background:#fff;white-space:pre-wrap}
.drill .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:10px}
.drill .card{border:1px solid var(--line);border-radius:8px;padding:8px 12px;background:#fff}.drill .card h4{margin:0 0 6px;font-size:14px}
.drill .card p{margin:4px 0}.drill pre{white-space:pre-wrap;word-break:break-word;background:#f8fafc;border:1px solid var(--line);border-radius:6px;padding:6px 8px;margin:4px 0;max-height:240px;overflow:auto;font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
table.ranking{width:auto;font-size:12px}table.ranking td{padding:2px 6px;border:none}table.ranking tr.gold td{font-weight:650}table.ranking .barbox{width:90px;background:#f1f5f9;border-radius:3px;height:8px;display:inline-block;vertical-align:middle}table.ranking .bar{display:block;height:8px;border-radius:3px;background:#64748b}table.ranking tr.chosen .bar{background:#0f766e}
.tag.gold{border-color:#a16207;color:#713f12}.tag.chosen{border-color:#0f766e;color:#115e59}.tag.thr{border-style:solid}
.words{color:#7c2d12}
`.trim();

/** Filters, search, sort and the drill-down; reads the JSON payload, builds every node with textContent. */
export const REQUESTS_SCRIPT = `
(function () {
  var dataNode = document.getElementById('req-data');
  if (!dataNode) return;
  var P = JSON.parse(dataNode.textContent);
  var table = document.getElementById('req-matrix');
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.querySelectorAll('tr.req'));
  var $ = function (id) { return document.getElementById(id); };
  var ui = { search: $('req-search'), outcome: $('req-outcome'), selector: $('req-selector'), skill: $('req-skill'), lang: $('req-lang'), kind: $('req-kind'), sort: $('req-sort'), count: $('req-count') };
  var MOVED = ${MOVED};
  function el(tag, cls, text) { var n = document.createElement(tag); if (cls) n.className = cls; if (text !== undefined && text !== null) n.textContent = String(text); return n; }
  function add(parent) { for (var k = 1; k < arguments.length; k++) { var c = arguments[k]; if (c === null || c === undefined) continue; parent.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); } return parent; }
  function sc(x) { return x === undefined || x === null ? '–' : x.toFixed(3); }
  function signed(x) { return (x > 0 ? '+' : x < 0 ? '−' : '±') + Math.abs(x).toFixed(3); }
  var WORDS = { correct: 'right', 'wrong-load': 'wrong load', 'needless-load': 'needless load', error: 'error' };
  var KIND = { correct: 'ok', 'wrong-load': 'wrong', 'needless-load': 'needless', error: 'error' };
  function selectorsIn() { var v = ui.selector.value; return v === '' ? P.selectors.map(function (_, j) { return j; }) : [Number(v)]; }
  function cellsOf(i, js) { var out = []; js.forEach(function (j) { out = out.concat(P.cells[i][j]); }); return out; }
  function base(i, j) { return P.baseline && P.baseline.cells[i] ? P.baseline.cells[i][j] : null; }
  function matches(i) {
    var js = selectorsIn(), cells = cellsOf(i, js), r = P.requests[i];
    var o = ui.outcome.value;
    if (o === 'fail' && !cells.some(function (c) { return c.o === 'wrong-load' || c.o === 'needless-load'; })) return false;
    if (o === 'error' && !cells.some(function (c) { return c.o === 'error'; })) return false;
    if (o === 'right' && !cells.every(function (c) { return c.o === 'correct'; })) return false;
    if (o === 'changed' && !js.some(function (j) { var b = base(i, j); return b && (b.f || b.ch); })) return false;
    if (o === 'moved' && !js.some(function (j) { var b = base(i, j); return b && b.d !== undefined && Math.abs(b.d) >= MOVED; })) return false;
    var skill = ui.skill.value;
    if (skill && r.gold !== skill && !cells.some(function (c) { return c.c === skill; })) return false;
    if (ui.lang && ui.lang.value && r.lang !== ui.lang.value) return false;
    if (ui.kind && ui.kind.value && r.kind !== ui.kind.value) return false;
    var q = ui.search.value.trim().toLowerCase();
    if (q) {
      var hay = [r.id, r.text, r.gold || '(none)'].concat(cells.map(function (c) { return c.c || '(none)'; })).join(' ').toLowerCase();
      if (hay.indexOf(q) === -1) return false;
    }
    return true;
  }
  function margin(i) {
    var best = Infinity;
    selectorsIn().forEach(function (j) { var t = P.selectors[j].threshold; P.cells[i][j].forEach(function (c) { if (t && c.ds !== undefined) best = Math.min(best, Math.abs(c.ds - t.value)); }); });
    return best;
  }
  function key(i) {
    var s = ui.sort.value;
    if (s === 'id') return P.requests[i].id;
    if (s === 'failing') return -cellsOf(i, selectorsIn()).filter(function (c) { return c.o !== 'correct'; }).length;
    if (s === 'margin') return margin(i);
    if (s === 'moved') { var m = 0; selectorsIn().forEach(function (j) { var b = base(i, j); if (b && b.d !== undefined) m = Math.max(m, Math.abs(b.d)); }); return -m; }
    return i;
  }
  function apply() {
    var shown = 0;
    var order = rows.slice().sort(function (a, b) {
      var x = key(Number(a.dataset.i)), y = key(Number(b.dataset.i));
      return x < y ? -1 : x > y ? 1 : Number(a.dataset.i) - Number(b.dataset.i);
    });
    order.forEach(function (tr) {
      var i = Number(tr.dataset.i), ok = matches(i), detail = tr.nextElementSibling && tr.nextElementSibling.classList.contains('detail') ? tr.nextElementSibling : null;
      tr.hidden = !ok;
      body.appendChild(tr);
      if (detail) { detail.hidden = !ok; body.appendChild(detail); }
      if (ok) shown++;
    });
    ui.count.textContent = shown + ' of ' + rows.length + ' requests shown';
  }
  function decisionText(c, s) {
    var p = el('p');
    if (c.o === 'error') return add(p, el('span', 'err', 'error: ' + c.e));
    add(p, 'loaded ', el('b', null, c.c === null ? '(none)' : c.c), ' ', el('span', 'kind ' + KIND[c.o], WORDS[c.o]));
    if (c.raw !== undefined && c.c !== null && c.raw === c.c) add(p, ' (a name not in the catalogue)');
    var top = c.s && c.s[0];
    if (c.c === null && top) {
      add(p, '; ranked first: ', el('b', null, top[0]), ' ' + sc(top[1]));
      var second = c.s[1];
      if (s.threshold && top[1] < s.threshold.value) add(p, ', under the threshold ' + sc(s.threshold.value) + ' by ' + (s.threshold.value - top[1]).toFixed(3));
      else if (second && second[1] >= top[1]) add(p, ', tied with ' + second[0] + ': no single best skill');
    } else if (top && s.threshold) add(p, ' at ' + sc(top[1]) + ' (threshold ' + sc(s.threshold.value) + ')');
    return p;
  }
  function ranking(c, gold, s) {
    var t = el('table', 'ranking'), max = 0;
    c.s.forEach(function (x) { max = Math.max(max, Math.abs(x[1])); });
    c.s.forEach(function (x, k) {
      var tr = el('tr', (x[0] === gold ? 'gold ' : '') + (x[0] === c.c ? 'chosen' : ''));
      var name = add(el('td'), x[0]);
      if (x[0] === gold) add(name, ' ', el('span', 'tag gold', 'gold'));
      if (x[0] === c.c) add(name, ' ', el('span', 'tag chosen', 'loaded'));
      var box = el('span', 'barbox'), bar = el('span', 'bar');
      bar.style.width = (max ? Math.max(2, (100 * Math.max(0, x[1])) / max) : 0) + '%';
      box.appendChild(bar);
      add(tr, el('td', 'num', String(k + 1)), name, add(el('td', 'num'), sc(x[1]), ' ', box));
      t.appendChild(tr);
    });
    if (s.threshold) add(t, add(el('tr'), el('td'), add(el('td'), el('span', 'tag thr', 'threshold')), el('td', 'num', sc(s.threshold.value) + ' (' + s.threshold.source + ')')));
    return t;
  }
  function modelFacts(c) {
    var out = [];
    if (c.calls && c.calls.length) c.calls.forEach(function (call) { out.push(add(el('p'), 'tool call: ', el('code', null, call.name + ' ' + JSON.stringify(call.args)))); });
    if (c.a) out.push(add(el('div'), el('span', 'sub', c.calls && c.calls.length ? 'text beside the call:' : 'answer (no tool call):'), el('pre', null, c.a)));
    var facts = [];
    if (c.sr) facts.push('stop reason ' + c.sr);
    if (c.u) facts.push(c.u.inputTokens.toLocaleString('en-US') + ' input tokens' + (c.u.cachedInputTokens ? ' (' + c.u.cachedInputTokens.toLocaleString('en-US') + ' cache reads)' : '') + ', ' + c.u.outputTokens.toLocaleString('en-US') + ' output' + (c.u.thinkingTokens ? ', ' + c.u.thinkingTokens.toLocaleString('en-US') + ' thinking' : ''));
    if (c.usd !== undefined) facts.push('$' + c.usd.toFixed(6));
    if (c.cached) facts.push('from the cache');
    if (c.ms !== undefined && !c.cached) facts.push(c.ms + ' ms');
    if (facts.length) out.push(el('p', 'sub', facts.join(' · ')));
    return out;
  }
  function card(i, j) {
    var s = P.selectors[j], r = P.requests[i], cells = P.cells[i][j];
    var box = el('section', 'card');
    box.dataset.selector = s.name;
    add(box, add(el('h4'), s.name + (s.ceiling ? ' (ceiling)' : ''), s.model ? el('span', 'sub', ' ' + (s.provider ? s.provider + '/' : '') + s.model) : null));
    if (!cells.length) return add(box, el('p', 'sub', 'no decision for this request'));
    cells.forEach(function (c) {
      if (cells.length > 1) add(box, el('p', 'sub', 'run ' + (c.run + 1)));
      add(box, decisionText(c, s));
      if (c.s && c.s.length) add(box, ranking(c, r.gold, s));
      if (c.w) add(box, add(el('p', 'words'), c.w.words.length ? 'words shared with ' + c.w.skill + ': ' : 'no word shared with ' + c.w.skill + (c.c === null ? '' : ' (a match in meaning, not in words)'), c.w.words.length ? el('b', null, c.w.words.join(', ')) : null));
      modelFacts(c).forEach(function (n) { box.appendChild(n); });
    });
    var b = base(i, j);
    if (b) {
      var p = add(el('p', 'baseline'), 'baseline: loaded ', el('b', null, b.c === null ? '(none)' : b.c), ' (' + WORDS[b.o] + ')');
      if (b.before !== undefined && b.after !== undefined) add(p, '; deciding score ' + sc(b.before) + ' → ' + sc(b.after) + ' (' + signed(b.d) + ')');
      add(p, b.f ? ' — flipped' : b.ch ? ' — another skill, same outcome' : ' — same decision');
      box.appendChild(p);
    }
    return box;
  }
  function drill(i) {
    var r = P.requests[i];
    var d = el('div', 'drill');
    add(d, el('div', 'req-head', [r.id, r.kind || '', r.lang, 'gold: ' + (r.gold === null ? '(none): no skill should load' : r.gold)].filter(Boolean).join(' · ')));
    add(d, el('blockquote', null, r.text));
    var cards = el('div', 'cards');
    P.selectors.forEach(function (_, j) { cards.appendChild(card(i, j)); });
    return add(d, cards);
  }
  function toggle(tr) {
    var next = tr.nextElementSibling;
    if (next && next.classList.contains('detail')) { next.remove(); tr.setAttribute('aria-expanded', 'false'); return; }
    var detail = el('tr', 'detail'), td = el('td');
    td.colSpan = tr.children.length;
    td.appendChild(drill(Number(tr.dataset.i)));
    detail.appendChild(td);
    tr.after(detail);
    tr.setAttribute('aria-expanded', 'true');
  }
  body.addEventListener('click', function (ev) { var tr = ev.target.closest('tr.req'); if (tr) toggle(tr); });
  body.addEventListener('keydown', function (ev) { if ((ev.key === 'Enter' || ev.key === ' ') && ev.target.matches('tr.req')) { ev.preventDefault(); toggle(ev.target); } });
  [ui.search].forEach(function (n) { n.addEventListener('input', apply); });
  [ui.outcome, ui.selector, ui.skill, ui.lang, ui.kind, ui.sort].forEach(function (n) { if (n) n.addEventListener('change', apply); });
  apply();
})();
`.trim();
