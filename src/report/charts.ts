// The HTML report's charts: vega-lite specs compiled to vega and rendered to SVG strings in Node (renderer 'none',
// no canvas, no browser), so the page embeds finished SVG and loads no script library. vega escapes the text it puts
// in the SVG. vega and vega-lite are imported on first use only.
import type { ResultsFile, SelectorMetrics, SelectorRun, TokenAudit } from '../types.js';
import { selectorLabel } from './format.js';

type Spec = Record<string, unknown>;

/** Data of a layer that draws one mark (a threshold rule, its label) rather than one per row of the chart's data. */
const ONE_ROW = { values: [{}] };

const WRONG = 'wrong load';
const NEEDLESS = 'needless load';
const PALETTE = { wrong: '#c2410c', needless: '#1d4ed8', mean: '#6b7280', positive: '#15803d', positiveOther: '#b45309', negative: '#b91c1c' };
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

let vegaModules: Promise<{ vega: typeof import('vega'); vl: typeof import('vega-lite') }> | undefined;

/** Renders one vega-lite spec to an SVG string. */
export async function renderSvg(spec: Spec): Promise<string> {
  vegaModules ??= Promise.all([import('vega'), import('vega-lite')]).then(([vega, vl]) => ({ vega, vl }));
  const { vega, vl } = await vegaModules;
  const full = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    background: 'white',
    config: {
      font: FONT,
      view: { stroke: null },
      axis: { labelFontSize: 11, titleFontSize: 11, titleFontWeight: 600, labelLimit: 260, gridColor: '#e5e7eb', domainColor: '#9ca3af', tickColor: '#9ca3af' },
      legend: { labelFontSize: 11, titleFontSize: 11, labelLimit: 260, orient: 'bottom', direction: 'horizontal' },
      title: { fontSize: 14, subtitleFontSize: 11, subtitleColor: "#6b7280", fontWeight: 600, anchor: 'start', offset: 10 },
    },
    ...spec,
  };
  // vega-lite's warnings (e.g. about faceted scales) are for chart authors, not for the user of a report: silence them.
  const quiet = vega.logger(vega.None);
  const compiled = vl.compile(full as never, { logger: quiet as never }).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logLevel: vega.None });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

// ---------------------------------------------------------------- wrong and needless load per selector

export interface RateRow {
  selector: string;
  metric: string;
  rate: number;
  low: number;
  high: number;
  k: number;
  n: number;
  ceiling: boolean;
}

export function rateRows(runs: SelectorRun[], metrics: SelectorMetrics[]): RateRow[] {
  const rows: RateRow[] = [];
  runs.forEach((run, i) => {
    const m = metrics[i]!;
    for (const [metric, r] of [[WRONG, m.wrongLoad], [NEEDLESS, m.needlessLoad]] as const) {
      if (r.rate === null) continue;
      rows.push({ selector: selectorLabel(run), metric, rate: r.rate, low: r.low ?? r.rate, high: r.high ?? r.rate, k: r.k, n: r.n, ceiling: Boolean(run.ceiling) });
    }
  });
  return rows;
}

/**
 * Grouped bars of wrong and needless load per selector with their Wilson intervals as error bars. A ceiling arm is
 * drawn hollow with a dashed outline and named "(ceiling)" on the axis, so it does not rely on colour.
 */
export function ratesSpec(runs: SelectorRun[], metrics: SelectorMetrics[]): Spec {
  const values = rateRows(runs, metrics);
  const order = runs.map(selectorLabel);
  const colour = { domain: [WRONG, NEEDLESS], range: [PALETTE.wrong, PALETTE.needless] };
  const xOffset = { field: 'metric', sort: [WRONG, NEEDLESS] };
  return {
    title: {
      text: 'Wrong and needless load per selector',
      subtitle: `bars: rate; whiskers: 95% Wilson interval${runs.some((r) => r.ceiling) ? '; hollow dashed bars: ceiling (a reference, not a competitor)' : ''}`,
    },
    data: { values },
    width: { step: Math.max(70, Math.min(100, 640 / Math.max(1, order.length))) },
    height: 230,
    encoding: { x: { field: 'selector', type: 'nominal', sort: order, axis: { labelAngle: 0, title: null, labelFontWeight: 600 } } },
    layer: [
      {
        mark: { type: 'bar', strokeWidth: 2, cornerRadiusTopLeft: 2, cornerRadiusTopRight: 2 },
        encoding: {
          xOffset,
          y: { field: 'rate', type: 'quantitative', scale: { domain: [0, 1] }, axis: { format: '%', title: 'share of requests' } },
          color: { field: 'metric', type: 'nominal', scale: colour, title: null },
          // Same field and scale as color: vega-lite merges the two into one legend.
          stroke: { field: 'metric', type: 'nominal', scale: colour, title: null },
          fillOpacity: { condition: { test: 'datum.ceiling', value: 0.12 }, value: 0.85 },
          strokeDash: { condition: { test: 'datum.ceiling', value: [5, 3] }, value: [1, 0] },
          tooltip: [{ field: 'selector' }, { field: 'metric' }, { field: 'rate', format: '.1%' }, { field: 'k' }, { field: 'n' }],
        },
      },
      {
        mark: { type: 'rule', color: '#111827', strokeWidth: 1.3 },
        encoding: { xOffset, y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } },
      },
      {
        mark: { type: 'tick', orient: 'horizontal', color: '#111827', size: 9, thickness: 1.3 },
        encoding: { xOffset, y: { field: 'low', type: 'quantitative' } },
      },
      {
        mark: { type: 'tick', orient: 'horizontal', color: '#111827', size: 9, thickness: 1.3 },
        encoding: { xOffset, y: { field: 'high', type: 'quantitative' } },
      },
      {
        mark: { type: 'text', dy: -8, fontSize: 10, color: '#374151' },
        encoding: { xOffset, y: { field: 'high', type: 'quantitative' }, text: { field: 'rate', type: 'quantitative', format: '.0%' } },
      },
    ],
  };
}

// ---------------------------------------------------------------- score distributions

const POSITIVE = 'needs a skill: right one first';
const POSITIVE_OTHER = 'needs a skill: other one first';
const NEGATIVE = 'needs no skill';

/** Top score of each request of a score selector (first run, no errors), by class, with the threshold as a rule. */
export function scoreDistributionSpec(results: ResultsFile, run: SelectorRun): Spec | null {
  const gold = new Map(results.requests.map((r) => [r.id, r.gold]));
  const values: { score: number; class: string; request: string }[] = [];
  for (const d of run.decisions) {
    const top = d.scores?.[0];
    if (d.run !== 0 || d.error !== undefined || !top || !gold.has(d.requestId)) continue;
    const g = gold.get(d.requestId)!;
    values.push({ score: top.score, class: g === null ? NEGATIVE : top.name === g ? POSITIVE : POSITIVE_OTHER, request: d.requestId });
  }
  if (!values.length) return null;
  const layers: Spec[] = [
    {
      mark: { type: 'tick', thickness: 2, size: 20, opacity: 0.75 },
      encoding: {
        x: { field: 'score', type: 'quantitative', title: 'top score', scale: { zero: false, nice: true } },
        y: { field: 'class', type: 'nominal', sort: [POSITIVE, POSITIVE_OTHER, NEGATIVE], title: null, axis: { labelLimit: 320 } },
        color: {
          field: 'class',
          type: 'nominal',
          scale: { domain: [POSITIVE, POSITIVE_OTHER, NEGATIVE], range: [PALETTE.positive, PALETTE.positiveOther, PALETTE.negative] },
          legend: null,
        },
        tooltip: [{ field: 'request' }, { field: 'score', format: '.3f' }, { field: 'class' }],
      },
    },
  ];
  // The threshold is a rule; its value goes in the subtitle, where a label cannot stretch the chart past its plot.
  if (run.threshold) {
    layers.push({ data: ONE_ROW, mark: { type: 'rule', strokeDash: [6, 3], strokeWidth: 1.5, color: '#111827' }, encoding: { x: { datum: run.threshold.value } } });
  }
  return {
    title: {
      text: `${run.selector}: top score per request`,
      subtitle: run.threshold
        ? `one tick per request; dashed rule: threshold ${run.threshold.value.toFixed(3)} (${run.threshold.source})`
        : 'one tick per request',
    },
    data: { values },
    width: 320,
    height: { step: 34 },
    layer: layers,
  };
}

// ---------------------------------------------------------------- threshold sweep

export function sweepSpec(run: SelectorRun, m: SelectorMetrics): Spec | null {
  const sweep = m.separability?.sweep ?? [];
  if (sweep.length < 2) return null;
  const values: { threshold: number; metric: string; value: number }[] = [];
  for (const p of sweep) {
    if (p.wrongLoad !== null) values.push({ threshold: p.threshold, metric: WRONG, value: p.wrongLoad });
    if (p.needlessLoad !== null) values.push({ threshold: p.threshold, metric: NEEDLESS, value: p.needlessLoad });
    if (p.mean !== null) values.push({ threshold: p.threshold, metric: 'mean of both', value: p.mean });
  }
  const layers: Spec[] = [
    {
      mark: { type: 'line', interpolate: 'step-after', strokeWidth: 2 },
      encoding: {
        x: { field: 'threshold', type: 'quantitative', scale: { zero: false, nice: true } },
        y: { field: 'value', type: 'quantitative', scale: { domain: [0, 1] }, axis: { format: '%', title: 'share of requests' } },
        color: { field: 'metric', type: 'nominal', scale: { domain: [WRONG, NEEDLESS, 'mean of both'], range: [PALETTE.wrong, PALETTE.needless, PALETTE.mean] }, title: null },
        // Same field as color: one legend, whose symbols show the dashes too.
        strokeDash: { field: 'metric', type: 'nominal', scale: { domain: [WRONG, NEEDLESS, 'mean of both'], range: [[1, 0], [1, 0], [4, 3]] }, title: null },
      },
    },
  ];
  const rules: { t: number; label: string }[] = [];
  if (run.threshold) rules.push({ t: run.threshold.value, label: `used ${run.threshold.value.toFixed(3)}` });
  const best = m.separability?.bestThreshold;
  if (best !== null && best !== undefined && Math.abs(best - (run.threshold?.value ?? NaN)) > 1e-9) rules.push({ t: best, label: `best ${best.toFixed(3)}` });
  rules.forEach(({ t, label }, i) => {
    layers.push(
      { data: ONE_ROW, mark: { type: 'rule', strokeDash: [6, 3], color: '#111827', opacity: i ? 0.5 : 1 }, encoding: { x: { datum: t } } },
      { data: ONE_ROW, mark: { type: 'text', align: 'left', dx: 4, y: i * 14, baseline: 'top', fontSize: 10, color: '#111827' }, encoding: { x: { datum: t }, text: { value: label } } },
    );
  });
  return {
    title: { text: `${run.selector}: threshold sweep`, subtitle: 'if the top skill were loaded at score ≥ threshold' },
    data: { values },
    width: 340,
    height: 170,
    layer: layers,
  };
}

// ---------------------------------------------------------------- confusion between skills

const MAX_CONFUSION_ROWS = 24;
const MAX_CONFUSION_COLUMNS = 24;

/**
 * Heatmap of expected skill (rows) against what was loaded instead (columns), one panel per selector, stacked, with
 * the counts written in the cells (so the colour scale needs no legend). On a large catalogue only the heaviest rows
 * and columns are kept, and the subtitle says how many cells were left out.
 */
export function confusionSpec(entries: { run: SelectorRun; m: SelectorMetrics }[]): Spec | null {
  const heaviest = (key: (c: SelectorMetrics['confusion'][number]) => string, n: number) => {
    const weight = new Map<string, number>();
    for (const { m } of entries) for (const c of m.confusion) weight.set(key(c), (weight.get(key(c)) ?? 0) + c.count);
    return new Set([...weight.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, n).map(([k]) => k));
  };
  const rows = heaviest((c) => c.gold, MAX_CONFUSION_ROWS);
  const columns = heaviest((c) => c.got ?? '(none)', MAX_CONFUSION_COLUMNS);
  const cells: { selector: string; gold: string; got: string; count: number }[] = [];
  let left = 0;
  for (const { run, m } of entries) {
    for (const c of m.confusion) {
      const got = c.got ?? '(none)';
      if (!rows.has(c.gold) || !columns.has(got)) left++;
      else cells.push({ selector: selectorLabel(run), gold: c.gold, got, count: c.count });
    }
  }
  if (!cells.length) return null;
  const max = Math.max(...cells.map((c) => c.count));
  return {
    title: {
      text: 'Which skill took which skill\'s requests',
      subtitle: `rows: expected skill; columns: loaded instead${left ? `; ${left} smaller cells left out` : ''}`,
    },
    data: { values: cells },
    facet: { row: { field: 'selector', type: 'nominal', sort: entries.map(({ run }) => selectorLabel(run)), title: null, header: { labelFontSize: 12, labelFontWeight: 600, labelAngle: 0, labelAlign: 'left' } } },
    resolve: { scale: { y: 'independent' } },
    spacing: 14,
    spec: {
      width: { step: 30 },
      height: { step: 22 },
      encoding: {
        y: { field: 'gold', type: 'nominal', title: null },
        x: { field: 'got', type: 'nominal', title: null, axis: { labelAngle: -40, orient: 'bottom' } },
      },
      layer: [
        {
          mark: { type: 'rect', stroke: 'white', strokeWidth: 1, cornerRadius: 2 },
          encoding: {
            color: { field: 'count', type: 'quantitative', scale: { scheme: 'oranges', domain: [0, max] }, legend: null },
            tooltip: [{ field: 'gold' }, { field: 'got' }, { field: 'count' }],
          },
        },
        {
          mark: { type: 'text', fontSize: 10, fontWeight: 600 },
          encoding: {
            text: { field: 'count', type: 'quantitative' },
            color: { condition: { test: `datum.count > ${max / 2}`, value: 'white' }, value: '#111827' },
          },
        },
      ],
    },
  };
}

// ---------------------------------------------------------------- token audit

const MAX_AUDIT_SKILLS = 10;

/** Stacked bars per disclosure level (catalogue, skill bodies, resources, load-all), one segment per skill. */
export function tokenAuditSpec(audit: TokenAudit): Spec {
  const L1 = 'level 1: catalogue';
  const L2 = 'level 2: all skill bodies';
  const L3 = 'level 3: all resources';
  const ALL = 'load-all prompt';
  const perSkill = new Map<string, number>();
  for (const s of audit.level2) perSkill.set(s.name, (perSkill.get(s.name) ?? 0) + s.tokens);
  for (const s of audit.level3) perSkill.set(s.name, (perSkill.get(s.name) ?? 0) + s.tokens);
  // The heaviest skills get their own colour; the rest share one segment so the legend stays readable.
  const named = new Set([...perSkill.entries()].sort((a, b) => b[1] - a[1]).slice(0, MAX_AUDIT_SKILLS).map(([n]) => n));
  const others = perSkill.size - named.size;
  const part = (name: string) => (named.has(name) ? name : `${others} other skills`);
  const values: { level: string; part: string; tokens: number }[] = [{ level: L1, part: 'catalogue', tokens: audit.level1 }];
  // Skills in order of weight, so colours and legend read from the heaviest.
  const byWeight = [...perSkill.entries()].sort((a, b) => b[1] - a[1]).map(([n]) => n);
  const add = (level: string, name: string, tokens: number) => {
    const p = part(name);
    const existing = values.find((v) => v.level === level && v.part === p);
    if (existing) existing.tokens += tokens;
    else values.push({ level, part: p, tokens });
  };
  for (const name of byWeight) {
    for (const s of audit.level2) if (s.name === name) add(L2, s.name, s.tokens);
    for (const s of audit.level3) if (s.name === name) add(L3, s.name, s.tokens);
  }
  values.push({ level: ALL, part: 'load-all prompt', tokens: audit.loadAll });
  // Fixed colours: the catalogue and the load-all prompt in slate, the skills in a categorical scheme.
  const SKILL_COLOURS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#86bcb6'];
  const skillParts = [...new Set(values.map((v) => v.part))].filter((p) => p !== 'catalogue' && p !== 'load-all prompt');
  const domain = ['catalogue', ...skillParts, 'load-all prompt'];
  const range = ['#1e293b', ...skillParts.map((p, i) => (named.has(p) ? SKILL_COLOURS[i % SKILL_COLOURS.length]! : '#cbd5e1')), '#64748b'];
  const totals = [L1, L2, L3, ALL].map((level) => ({ level, total: values.filter((v) => v.level === level).reduce((a, v) => a + v.tokens, 0) }));
  return {
    title: {
      text: 'Token audit: what each level of disclosure costs',
      subtitle: `${audit.tokenizer}${audit.exact ? '' : ' (estimate)'}; load-all is ${audit.ratio.toFixed(1)}× the level-1 catalogue`,
    },
    width: 560,
    height: { step: 34 },
    layer: [
      {
        data: { values },
        mark: { type: 'bar', stroke: 'white', strokeWidth: 0.8 },
        encoding: {
          y: { field: 'level', type: 'nominal', sort: [L1, L2, L3, ALL], title: null },
          x: { field: 'tokens', type: 'quantitative', stack: 'zero', title: 'tokens' },
          color: { field: 'part', type: 'nominal', title: null, scale: { domain, range }, legend: { columns: 3, direction: 'vertical', symbolLimit: 30 } },
          order: { field: 'tokens', type: 'quantitative', sort: 'descending' },
          tooltip: [{ field: 'level' }, { field: 'part' }, { field: 'tokens', format: ',' }],
        },
      },
      {
        data: { values: totals },
        mark: { type: 'text', align: 'left', dx: 4, fontSize: 10, color: '#111827' },
        encoding: {
          y: { field: 'level', type: 'nominal', sort: [L1, L2, L3, ALL] },
          x: { field: 'total', type: 'quantitative' },
          text: { field: 'total', type: 'quantitative', format: ',' },
        },
      },
    ],
  };
}

// ---------------------------------------------------------------- eval-quality

/** Pass rate per agent mode with its Wilson interval, beside the input tokens each mode spent per request. */
export function qualitySpec(rows: { mode: string; rate: number; low: number; high: number; k: number; n: number; tokens: number | null }[]): Spec {
  const modes = rows.map((r) => r.mode);
  const x = { field: 'mode', type: 'nominal', sort: modes, axis: { labelAngle: 0, title: null, labelFontWeight: 600 } };
  return {
    title: { text: 'Answer quality and cost per mode', subtitle: 'left: share of cases whose answer passed every check (whiskers: 95% Wilson interval); right: input tokens per request' },
    data: { values: rows },
    hconcat: [
      {
        width: { step: 90 },
        height: 200,
        encoding: { x },
        layer: [
          {
            mark: { type: 'bar', color: PALETTE.positive, opacity: 0.85, cornerRadiusTopLeft: 2, cornerRadiusTopRight: 2 },
            encoding: { y: { field: 'rate', type: 'quantitative', scale: { domain: [0, 1] }, axis: { format: '%', title: 'pass rate' } } },
          },
          { mark: { type: 'rule', color: '#111827', strokeWidth: 1.3 }, encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } } },
          { mark: { type: 'tick', orient: 'horizontal', color: '#111827', size: 9, thickness: 1.3 }, encoding: { y: { field: 'low', type: 'quantitative' } } },
          { mark: { type: 'tick', orient: 'horizontal', color: '#111827', size: 9, thickness: 1.3 }, encoding: { y: { field: 'high', type: 'quantitative' } } },
          { mark: { type: 'text', dy: -8, fontSize: 10 }, encoding: { y: { field: 'high', type: 'quantitative' }, text: { field: 'rate', type: 'quantitative', format: '.0%' } } },
        ],
      },
      {
        width: { step: 90 },
        height: 200,
        encoding: { x },
        layer: [
          { mark: { type: 'bar', color: '#64748b', cornerRadiusTopLeft: 2, cornerRadiusTopRight: 2 }, encoding: { y: { field: 'tokens', type: 'quantitative', axis: { title: 'input tokens / request', format: ',.0f' } } } },
          { mark: { type: 'text', dy: -6, fontSize: 10 }, encoding: { y: { field: 'tokens', type: 'quantitative' }, text: { field: 'tokens', type: 'quantitative', format: ',.0f' } } },
        ],
      },
    ],
  };
}
