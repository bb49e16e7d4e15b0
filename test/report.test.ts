import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeMetrics } from '../src/metrics.js';
import { compareToBaseline } from '../src/gate.js';
import { readResults } from '../src/results.js';
import { renderOutput, writeOutputs, formatOf } from '../src/report/index.js';
import { UserError } from '../src/errors.js';
import { runCli } from './support/cli.js';
import { spawnSync as probe } from 'node:child_process';

const hasJq = probe('jq', ['--version']).status === 0;
import { main } from '../src/cli.js';
import type { Rate, ResultsFile, SelectorMetrics } from '../src/types.js';

const DEMO = join(import.meta.dirname, '..', 'fixtures', 'results', 'demo-results.json');

let dir: string;
let demo: ResultsFile;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-report-'));
  demo = await readResults(DEMO);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const clone = (r: ResultsFile): ResultsFile => structuredClone(r);

/** The demo run as a three-arm suggest evaluation: baseline, suggest, and an oracle ceiling. */
function threeArms(): ResultsFile {
  const r = clone(demo);
  r.command = 'suggest-eval';
  const model = r.runs.find((x) => x.selector === 'model')!;
  const gold = new Map(r.requests.map((q) => [q.id, q.gold]));
  const baseline = { ...structuredClone(model), selector: 'baseline' };
  const suggest = { ...structuredClone(model), selector: 'suggest', extraCostUsd: 0.0004 };
  for (const d of suggest.decisions) if (d.requestId === 'n03' || d.requestId === 'p06') d.chosen = gold.get(d.requestId)!;
  // As src/suggest/arms.ts marks them: covered requests the suggestion fixed (p06) and broke (p01).
  for (const d of suggest.decisions) {
    if (d.requestId === 'p06') d.detail = { versusBaseline: 'fixed' };
    if (d.requestId === 'p01') Object.assign(d, { chosen: 'ticket-triage', detail: { versusBaseline: 'broken' } });
  }
  const oracle = { ...structuredClone(model), selector: 'oracle', ceiling: true };
  for (const d of oracle.decisions) {
    d.chosen = gold.get(d.requestId)!;
    delete d.rawChoice;
    delete d.error;
  }
  r.runs = [baseline, suggest, oracle];
  delete r.tokenAudit;
  return r;
}

/** The demo run repeated (--runs 2) with one request flipping, plus a baseline gate that fails. */
function repeatedWithGate(): ResultsFile {
  const r = clone(demo);
  for (const run of r.runs) {
    const second = run.decisions.map((d) => ({ ...structuredClone(d), run: 1 }));
    run.decisions.push(...second);
  }
  const model = r.runs.find((x) => x.selector === 'model')!;
  for (const d of model.decisions) if (['p01', 'p02', 'p03', 'p05', 'p07', 'p09'].includes(d.requestId)) d.chosen = 'ticket-triage';
  r.gate = compareToBaseline(r, demo, { alpha: 0.05, minRequests: 2, minRate: 0.05, baselineFile: 'baseline.json' });
  return r;
}

/**
 * A real run: the offline selectors of `skillbench eval-trigger` on the bundled catalogue and requests, its results
 * file written by the command itself (-o), with a throwaway cache.
 */
async function realRun(): Promise<ResultsFile> {
  const root = join(import.meta.dirname, '..');
  const file = join(dir, 'real', 'results.json');
  const quiet = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const quietErr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const quietLog = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const code = await main(['node', 'skillbench', 'eval-trigger', '--skills', join(root, 'skills'), '--requests', join(root, 'requests.json'),
      '--selectors', 'similarity,keyword,explicit', '--cache-dir', join(dir, 'real', 'cache'), '--no-progress', '-o', file]);
    expect(code).toBe(0);
  } finally {
    quiet.mockRestore();
    quietErr.mockRestore();
    quietLog.mockRestore();
    process.exitCode = undefined;
  }
  return readResults(file);
}

const variants: [string, () => ResultsFile | Promise<ResultsFile>][] = [
  ['demo (eval-trigger)', () => clone(demo)],
  ['three arms with a ceiling', threeArms],
  ['repeated runs with a failed gate', repeatedWithGate],
  ['a real offline eval-trigger run on the bundled catalogue', realRun],
];

// ---------------------------------------------------------------- parsing the outputs back

/** RFC 4180 parser: quoted fields, doubled quotes, CRLF records, line breaks inside quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  expect(field).toBe('');
  expect(row).toEqual([]);
  return rows;
}

interface Counts {
  wrong: [number, number];
  needless: [number, number];
  accuracy: [number, number];
  errors: number;
  decisions: number;
}

const countsOf = (m: SelectorMetrics): Counts => ({
  wrong: [m.wrongLoad.k, m.wrongLoad.n],
  needless: [m.needlessLoad.k, m.needlessLoad.n],
  accuracy: [m.accuracy.k, m.accuracy.n],
  errors: m.errors,
  decisions: m.decisions,
});

function countsFromCsv(csv: string): Map<string, Counts> {
  const [head, ...rows] = parseCsv(csv);
  const col = (name: string) => head!.indexOf(name);
  const out = new Map<string, Counts>();
  for (const row of rows) {
    const sel = row[col('selector')]!;
    const c = out.get(sel) ?? { wrong: [0, 0], needless: [0, 0], accuracy: [0, 0], errors: 0, decisions: 0 };
    out.set(sel, c);
    c.decisions++;
    const outcome = row[col('outcome')];
    if (outcome === 'error') {
      c.errors++;
      continue;
    }
    c.accuracy[1]++;
    if (outcome === 'correct') c.accuracy[0]++;
    // Covered or not comes from the gold column, the outcome from the outcome column: two independent fields.
    const covered = row[col('gold')] !== '';
    const bucket = covered ? c.wrong : c.needless;
    bucket[1]++;
    if (outcome !== 'correct') bucket[0]++;
    expect(outcome).toBe(outcome === 'correct' ? 'correct' : covered ? 'wrong-load' : 'needless-load');
  }
  return out;
}

/** `12.5% (3/24)` -> [3, 24] after checking the percentage against k/n. */
function kn(cell: string): [number, number] {
  const m = /(\d+\.\d)% \((\d+)\/(\d+)\)/.exec(cell);
  expect(m, cell).not.toBeNull();
  const [k, n] = [Number(m![2]), Number(m![3])];
  expect(Number(m![1])).toBeCloseTo((100 * k) / n, 1);
  return [k, n];
}

function countsFromMarkdown(md: string): Map<string, Omit<Counts, 'decisions'>> {
  const out = new Map<string, Omit<Counts, 'decisions'>>();
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.startsWith('| selector | wrong load | needless load | accuracy | errors |'));
  expect(start).toBeGreaterThan(-1);
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split(' | ').map((c) => c.replace(/^\| ?|\s*\|$/g, ''));
    const selector = cells[0]!.replace(' (ceiling)', '');
    out.set(selector, { wrong: kn(cells[1]!), needless: kn(cells[2]!), accuracy: kn(cells[3]!), errors: Number(cells[4]) });
  }
  return out;
}

function countsFromJunit(xml: string): Map<string, { tests: number; failures: number; errors: number; failureElements: number; errorElements: number }> {
  const out = new Map<string, { tests: number; failures: number; errors: number; failureElements: number; errorElements: number }>();
  for (const suite of xml.matchAll(/<testsuite name="([^"]+)" tests="(\d+)" failures="(\d+)" errors="(\d+)"[^>]*>([\s\S]*?)<\/testsuite>/g)) {
    const body = suite[5]!;
    const cases = [...body.matchAll(/<testcase classname="([^"]+)"/g)];
    expect(cases.every((c) => c[1] === suite[1])).toBe(true);
    expect(cases.length).toBe(Number(suite[2]));
    out.set(suite[1]!, {
      tests: Number(suite[2]),
      failures: Number(suite[3]),
      errors: Number(suite[4]),
      failureElements: (body.match(/<failure /g) ?? []).length,
      errorElements: (body.match(/<error /g) ?? []).length,
    });
  }
  return out;
}

function countsFromHtml(html: string): Map<string, Counts> {
  const out = new Map<string, Counts>();
  const table = /<table class="summary">([\s\S]*?)<\/table>/.exec(html)![1]!;
  for (const row of table.matchAll(/<tr data-selector="([^"]+)"[^>]*>([\s\S]*?)<\/tr>/g)) {
    const cell = (metric: string): [number, number] => {
      const m = new RegExp(`data-metric="${metric}" data-k="(\\d+)" data-n="(\\d+)" data-rate="([^"]*)"><span class="pct">([^<]+)</span> <span class="kn">(\\d+)/(\\d+)</span>`).exec(row[2]!);
      expect(m, `${row[1]} ${metric}`).not.toBeNull();
      // The attribute and the text shown agree.
      expect([m![5], m![6]]).toEqual([m![1], m![2]]);
      const [k, n] = [Number(m![1]), Number(m![2])];
      expect(m![4]).toBe(n ? `${((100 * k) / n).toFixed(1)}%` : 'n/a');
      return [k, n];
    };
    const value = (metric: string) => Number(new RegExp(`data-metric="${metric}" data-value="([^"]*)"`).exec(row[2]!)![1]);
    out.set(row[1]!, { wrong: cell('wrongLoad'), needless: cell('needlessLoad'), accuracy: cell('accuracy'), errors: value('errors'), decisions: value('decisions') });
  }
  return out;
}

// ---------------------------------------------------------------- tests

describe('the demo results fixture', () => {
  it('is a valid version-1 results file with decisions of every kind', () => {
    expect(demo.schema).toBe('skillbench.results');
    const decisions = demo.runs.flatMap((r) => r.decisions);
    expect(decisions.some((d) => d.error)).toBe(true);
    expect(decisions.some((d) => d.rawChoice)).toBe(true);
    expect(demo.runs.some((r) => r.kind === 'score' && r.threshold)).toBe(true);
    expect(demo.tokenAudit).toBeDefined();
  });
});

describe.each(variants)('every format gives the same figures: %s', (name, make) => {
  let results: ResultsFile;
  let metrics: Map<string, SelectorMetrics>;
  const rendered: Record<string, string> = {};
  beforeAll(async () => {
    results = await make();
    metrics = new Map(results.runs.map((run) => [run.selector, computeMetrics(run, results.requests)]));
    for (const ext of ['.csv', '.md', '.xml', '.html'] as const) rendered[ext] = await renderOutput(results, ext);
  });

  it('CSV: one row per decision; outcomes recount to the metrics', () => {
    const fromCsv = countsFromCsv(rendered['.csv']!);
    expect([...fromCsv.keys()]).toEqual(results.runs.map((r) => r.selector));
    for (const [sel, m] of metrics) expect(fromCsv.get(sel), sel).toEqual(countsOf(m));
  });

  it('Markdown: the summary table shows the same rates and counts', () => {
    const fromMd = countsFromMarkdown(rendered['.md']!);
    expect([...fromMd.keys()]).toEqual(results.runs.map((r) => r.selector));
    for (const [sel, m] of metrics) {
      const { decisions: _d, ...rest } = countsOf(m);
      expect(fromMd.get(sel), sel).toEqual(rest);
    }
  });

  it('JUnit: one test case per decision, failures = wrong + needless loads, errors = failed calls', () => {
    const fromXml = countsFromJunit(rendered['.xml']!);
    for (const [sel, m] of metrics) {
      const failures = m.wrongLoad.k + m.needlessLoad.k;
      expect(fromXml.get(sel), sel).toEqual({ tests: m.decisions, failures, errors: m.errors, failureElements: failures, errorElements: m.errors });
    }
    const total = [...metrics.values()];
    expect(rendered['.xml']).toMatch(new RegExp(`<testsuites name="skillbench ${results.command}" tests="${total.reduce((a, m) => a + m.decisions, 0)}" failures="${total.reduce((a, m) => a + m.wrongLoad.k + m.needlessLoad.k, 0)}" errors="${total.reduce((a, m) => a + m.errors, 0)}"`));
  });

  it('HTML: the summary table shows the same rates and counts', () => {
    const fromHtml = countsFromHtml(rendered['.html']!);
    for (const [sel, m] of metrics) expect(fromHtml.get(sel), sel).toEqual(countsOf(m));
  });

  it('Markdown and HTML show the same Wilson intervals as computeMetrics', () => {
    // With --runs 2 (one of the fixtures) the interval carries the effective sample size behind it.
    const effN = (r: Rate) => (r.designEffect !== undefined && r.designEffect > 1 ? ` (eff. n ${r.effectiveN!.toFixed(1)})` : '');
    const ci = (r: Rate) => (r.low === null ? '' : `[${(100 * r.low).toFixed(1)}–${(100 * r.high!).toFixed(1)}]${effN(r)}`);
    // The repeated-runs fixture must exercise that path: its repeats disagree on some request.
    if (name.includes('repeated')) expect([...metrics.values()].some((m) => (m.wrongLoad.designEffect ?? 1) > 1)).toBe(true);
    for (const [, m] of metrics) {
      for (const r of [m.wrongLoad, m.needlessLoad]) {
        if (r.low === null) continue;
        expect(rendered['.md']).toContain(`(${r.k}/${r.n}) ${ci(r)}`);
        expect(rendered['.html']).toContain(`<span class="kn">${r.k}/${r.n}</span><div class="sub">${ci(r)}</div>`);
      }
    }
  });

  it('the failures listed in Markdown and HTML are those of computeMetrics', () => {
    const total = [...metrics.values()].reduce((a, m) => a + m.failures.length, 0);
    expect(rendered['.md']).toContain(`<summary>Failures (${total})</summary>`);
    // The HTML lists every request; its data marks each decision's outcome, and the failing ones are these.
    const data = JSON.parse(/<script type="application\/json" id="req-data">([\s\S]*?)<\/script>/.exec(rendered['.html']!)![1]!) as { cells: { o: string }[][][] };
    expect(data.cells.flat(2).filter((c) => c.o !== 'correct')).toHaveLength(total);
    expect((rendered['.html']!.match(/<tr class="req" /g) ?? []).length).toBe(results.requests.length);
  });
});

describe('eval-quality results: every format gives the same pass rates', () => {
  it('CSV, Markdown, JUnit and HTML agree with the cases\' verdicts', async () => {
    // A hand-made file in the shape src/quality.ts writes: one run per agent mode, a verdict per case.
    const r = await readResults(join(import.meta.dirname, '..', 'fixtures', 'results', 'quality-results.json'));
    const expected = new Map([['progressive', { passed: 2, n: 4, errors: 1, failed: 1 }], ['load-all', { passed: 3, n: 4, errors: 0, failed: 1 }]]);

    const [head, ...rows] = parseCsv(await renderOutput(r, '.csv'));
    for (const [mode, x] of expected) {
      const mine = rows.filter((row) => row[head!.indexOf('selector')] === mode);
      expect(mine.filter((row) => row[head!.indexOf('passed')] === 'true')).toHaveLength(x.passed);
      expect(mine).toHaveLength(x.n);
    }

    const md = await renderOutput(r, '.md');
    expect(md).toContain('| progressive | 50.0% (2/4) [');
    expect(md).toContain('| load-all | 75.0% (3/4) [');
    expect(md).toContain('Progressive / load-all input tokens per request: **0.28**');
    expect(md).toContain('<summary>Failing cases (3)</summary>');
    expect(md).not.toContain('wrong load');

    const junit = countsFromJunit(await renderOutput(r, '.xml'));
    for (const [mode, x] of expected) expect(junit.get(mode)).toEqual({ tests: x.n, failures: x.failed, errors: x.errors, failureElements: x.failed, errorElements: x.errors });

    const html = await renderOutput(r, '.html');
    for (const [mode, x] of expected) {
      expect(html).toMatch(new RegExp(`<tr data-selector="${mode}"><th scope="row">${mode}</th><td class="num rate" data-metric="pass" data-k="${x.passed}" data-n="${x.n}"`));
    }
    expect(html).toContain('<h2>Answer quality</h2>');
    expect(html).toContain('Triage: VPN down in Lyon, &quot;all users&quot; &lt;urgent&gt;');
    expect(html).toContain('missing &quot;37.50&quot;; no match for /P[12]/');
    expect(html).not.toContain('<h2>Summary</h2>');
  });
});

describe('eval-quality results with --judge: every format shows the judge', () => {
  it('the judge mean per mode, and the judge verdict of a failed case beside the checks it failed', async () => {
    const r = await readResults(join(import.meta.dirname, '..', 'fixtures', 'results', 'quality-results.json'));
    r.settings = { ...r.settings, judge: true, judgeThreshold: 0.7 };
    r.quality!.judged = true;
    r.quality!.modes[0]!.judge = { n: 2, mean: 0.55 };
    r.quality!.modes[1]!.judge = { n: 1, mean: 0.9 };
    const q1 = r.runs[0]!.decisions.find((d) => d.requestId === 'q1')!;
    // Checks passed, the judge did not: failed on the judge alone.
    q1.detail = { ...q1.detail, passed: false, judge: { score: 0.2, reason: 'omits the weekend rule' } };
    const q2 = r.runs[1]!.decisions.find((d) => d.requestId === 'q2')!;
    q2.detail = { ...q2.detail, judge: { error: 'judge answer is not JSON' } };

    const { renderQualityTerminal } = await import('../src/report/quality.js');
    const terminal = renderQualityTerminal(r);
    expect(terminal).toMatch(/judge mean \(n\) │/);
    expect(terminal).toMatch(/│ progressive │ 25\.0% \(1\/4\) .* │\s+0\.55 \(2\) │/);
    expect(terminal).toMatch(/│ load-all .* │\s+0\.90 \(1\) │/);
    expect(terminal).toContain('Failing cases (4):');
    expect(terminal).toContain('progressive  q1: checks passed; judge 0.20: omits the weekend rule');
    expect(terminal).toContain('load-all     q2: missing "37.50"; no match for /P[12]/; judge error: judge answer is not JSON');

    const md = await renderOutput(r, '.md');
    expect(md).toContain('| judge mean (n) |');
    expect(md).toMatch(/\| progressive \| 25\.0% \(1\/4\) .* \| 0\.55 \(2\) \|/);
    expect(md).toContain('| checks passed; judge 0.20: omits the weekend rule |');
    const html = await renderOutput(r, '.html');
    expect(html).toContain('<td class="num">0.55 (2)</td>');
    expect(html).toContain('checks passed; judge 0.20: omits the weekend rule');
    const junit = await renderOutput(r, '.xml');
    expect(junit).toContain('message="checks passed; judge 0.20: omits the weekend rule" type="quality-check"');
  });
});

describe('HTML report content', () => {
  it('is self-contained: no external script, style, image or font; charts are inline SVG', async () => {
    const html = await renderOutput(demo, '.html');
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link[^>]+href=/i);
    expect(html).not.toMatch(/<img[^>]+src=/i);
    expect(html).not.toMatch(/url\(\s*['"]?https?:/i);
    expect(html).not.toMatch(/@import/i);
    expect(html).toContain("default-src 'none'");
    // Rates, two score distributions, two sweeps, confusion, token audit.
    expect((html.match(/<svg /g) ?? []).length).toBe(7);
    // The only absolute URLs are SVG namespaces and the vega-lite schema id is not embedded.
    const urls = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0]);
    expect(new Set(urls)).toEqual(new Set(['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xlink']));
  });

  it('shows a tool roster\'s audit as its listing alone: no load-all figure, ratio or chart', async () => {
    const roster = clone(demo);
    roster.tokenAudit = { ...roster.tokenAudit!, roster: true };
    const html = await renderOutput(roster, '.html');
    const section = /<section id="tokens">[\s\S]*?<\/section>/.exec(html)![0];
    expect(section).toContain('level 1 (catalogue in every request)');
    expect(section).not.toMatch(/load-all|<svg /);
    expect(/<section id="tokens">[\s\S]*?<\/section>/.exec(await renderOutput(demo, '.html'))![0]).toContain('load-all ÷ level 1');
  });

  it('draws a ceiling arm differently, not by colour alone: dashed outline, hollow fill, and the word "ceiling"', async () => {
    const html = await renderOutput(threeArms(), '.html');
    const svg = /<figure class="chart">(<svg[\s\S]*?<\/svg>)<\/figure>/.exec(html)![1]!;
    expect(svg).toContain('oracle (ceiling)');
    expect(svg).toMatch(/stroke-dasharray="5,3"/);
    expect(html).toContain('<tr data-selector="oracle" class="ceiling">');
    const plain = await renderOutput(demo, '.html');
    const plainSvg = /<figure class="chart">(<svg[\s\S]*?<\/svg>)<\/figure>/.exec(plain)![1]!;
    expect(plainSvg).not.toMatch(/stroke-dasharray="5,3"/);
  });

  it('draws the threshold on the score distributions and the sweep', async () => {
    const html = await renderOutput(demo, '.html');
    expect(html).toContain('threshold 0.550 (optimistic)');
    expect(html).toContain('used 0.550');
    expect(html).toContain('threshold 0.450 (default)');
  });

  it('shows the gate, the flips and the baseline side by side', async () => {
    const r = repeatedWithGate();
    const html = await renderOutput(r, '.html', { baseline: { file: 'baseline.json', results: demo } });
    expect(html).toContain('✗ gate failed');
    expect(html).toContain('<h2>Against the baseline</h2>');
    for (const f of r.gate!.flips) expect(html).toContain(`<code>${f.requestId}</code>`);
    // Repeated runs: each matrix cell says how many runs were right.
    expect(html).toMatch(/<div class="sub">\d\/2 runs right<\/div>/);
  });

  it('escapes every piece of user text', async () => {
    const r = clone(demo);
    const evil = '</td><script>alert("x")</script><img src=x onerror=alert(1)>&amp;';
    r.requests[5]!.text = evil;
    r.catalogue.source = '<b>bold</b>';
    r.settings.note = '<iframe src="https://example.com">';
    const evilSkill = 'hr-policy-qa<svg onload=alert(1)>';
    for (const run of r.runs) for (const d of run.decisions) if (d.chosen === 'leave-balance-calculator') d.chosen = evilSkill;
    r.runs[0]!.decisions[0]!.error = '<script>boom()</script>';
    const html = await renderOutput(r, '.html');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>bold</b>');
    expect(html).not.toContain('<iframe');
    expect(html).not.toContain('<svg onload');
    expect(html).not.toContain('<script>boom');
    expect(html).toContain('&lt;/td&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html.match(/<script>/g)).toHaveLength(1);

    const md = await renderOutput(r, '.md');
    // Inside a code span GitHub shows markup as text; everywhere else it must be escaped.
    expect(md).toContain('(`<b>bold</b>`)');
    expect(md.replace(/`[^`\n]*`/g, '')).not.toMatch(/<script>|<img|<svg onload|<b>bold/);
    const xml = await renderOutput(r, '.xml');
    expect(xml).not.toMatch(/<script>|<img|<svg onload/);
    expect(xml).toContain('&lt;script&gt;boom()&lt;/script&gt;');
    const rows = parseCsv(await renderOutput(r, '.csv'));
    expect(rows.some((row) => row.includes(evil))).toBe(true);
  });

  it('defuses request text a spreadsheet would run as a formula, and leaves numbers alone', async () => {
    const r = JSON.parse(JSON.stringify(demo)) as ResultsFile;
    r.requests[0]!.text = '=HYPERLINK("http://evil.example","click")';
    r.requests[1]!.text = '@SUM(A1:A9)';
    const [head, ...rows] = parseCsv(await renderOutput(r, '.csv'));
    const texts = rows.map((row) => row[head!.indexOf('request_text')]);
    expect(texts).toContain('\'=HYPERLINK("http://evil.example","click")');
    expect(texts).toContain('\'@SUM(A1:A9)');
    expect(texts.some((t) => /^[=+\-@]/.test(t!))).toBe(false);
    const scores = rows.map((row) => row[head!.indexOf('top_score')]).filter(Boolean);
    expect(scores.every((x) => Number.isFinite(Number(x)))).toBe(true);
  });
});

describe('suggest --eval arms', () => {
  it('lists the requests the suggestion fixed and broke against the baseline arm, broken first', async () => {
    const r = threeArms();
    const md = await renderOutput(r, '.md');
    expect(md).toContain('#### Against the baseline arm: 1 fixed, 1 broken');
    const rows = md.split('\n').filter((l) => l.startsWith('| suggest | p0') && /(broken|fixed) \|$/.test(l));
    expect(rows).toEqual([
      '| suggest | p01: Profile this CSV export before I load it into the warehouse: types, nulls, dupl… | csv-data-profiler | csv-data-profiler | ticket-triage | ❌ broken |',
      '| suggest | p06: What does the parental leave policy say about adoption? | hr-policy-qa | leave-balance-calculator | hr-policy-qa | ✅ fixed |',
    ]);
    const html = await renderOutput(r, '.html');
    expect(html).toContain('<b>1 fixed</b>, <b>1 broken</b>');
    expect(html).toContain(`${r.requests.length} requests · 6 skills from <code>skills</code> · 3 arms`);
  });
});

describe('edge cases', () => {
  it('renders every format for a run with no selectors, and for selectors whose every call failed', async () => {
    const empty = clone(demo);
    empty.runs = [];
    delete empty.tokenAudit;
    const failed = clone(demo);
    for (const run of failed.runs) for (const d of run.decisions) Object.assign(d, { error: 'timeout', chosen: null });
    for (const r of [empty, failed]) {
      for (const ext of ['.html', '.md', '.xml', '.csv'] as const) expect(typeof (await renderOutput(r, ext))).toBe('string');
    }
    const html = await renderOutput(failed, '.html');
    expect(html).toContain('<span class="pct">n/a</span> <span class="kn">0/0</span>');
    expect(countsFromJunit(await renderOutput(failed, '.xml')).get('model')).toMatchObject({ failures: 0, errors: 24 });
  });

  it('keeps JUnit well-formed with characters XML cannot hold', async () => {
    const r = clone(demo);
    r.requests[1]!.text = 'bell\u0007 and NUL\u0000 and a lone surrogate \ud800 end';
    const xml = await renderOutput(r, '.xml');
    expect(xml).toContain('bell and NUL and a lone surrogate  end');
    expect(xml).not.toMatch(/[\u0000\u0007\ud800]/);
  });
});

describe('Markdown summary', () => {
  it('puts the gate verdict in the title and lists the requests that flipped, regressions first', async () => {
    const r = repeatedWithGate();
    const md = await renderOutput(r, '.md', { baseline: { file: 'baseline.json', results: demo } });
    expect(md.split('\n')[0]).toBe('### skillbench eval-trigger — gate failed ❌');
    expect(md).toContain('#### Against the baseline (`baseline.json`)');
    expect(md).toMatch(/\| model \| 7\.1% → 50\.0% \| 33\.3% → 33\.3% \| 0 \| 6 \| 0\.0313 \|/);
    const flipRows = md.split('\n').filter((l) => /^\| model \| p0\d: /.test(l) && l.endsWith('❌ wrong |'));
    expect(flipRows.map((l) => l.slice(10, 13))).toEqual(['p01', 'p02', 'p03', 'p05', 'p07', 'p09']);
  });

  it('shows the gate\'s notes (requests not compared) in the Markdown and the HTML', async () => {
    const r = repeatedWithGate();
    r.gate!.notes = ['the request sets differ: compared on the 20 requests in both files'];
    const md = await renderOutput(r, '.md');
    expect(md).toContain('- note: the request sets differ: compared on the 20 requests in both files');
    const html = await renderOutput(r, '.html');
    expect(html).toContain('<li>note: the request sets differ: compared on the 20 requests in both files</li>');
  });

  it('cannot ping anyone or break the table with a request text', async () => {
    const r = clone(demo);
    r.requests.find((q) => q.id === 'p06')!.text = 'ask @octocat | then *this* `code`\nnext line';
    const md = await renderOutput(r, '.md');
    const row = md.split('\n').find((l) => l.includes('p06: '))!;
    expect(row).toContain('ask @\u200boctocat \\| then \\*this\\* \\`code\\` next line');
    expect(row.split(' | ')).toHaveLength(5);
  });
});

describe('Markdown summary of a MetaTool-size run (1,040 requests x 3 selectors, every one failing and flipped)', () => {
  /** Worst case for a comment: long names, long ids, texts full of characters the table must escape. */
  function metatoolSize(allRight: boolean): ResultsFile {
    const skills = Array.from({ length: 199 }, (_, i) => `tool-${String(i).padStart(3, '0')}-${'x'.repeat(50)}`);
    const requests = Array.from({ length: 1040 }, (_, i) => ({
      id: `metatool-request-${String(i).padStart(4, '0')}-${'i'.repeat(2000)}`,
      text: `request ${i} ${'|*_`<>@'.repeat(60)}`,
      gold: skills[i % 199]!,
      kind: 'positive' as const,
    }));
    const run = (selector: string, kind: 'decision' | 'score') => ({
      selector,
      kind,
      decisions: requests.map((q, i) => {
        const chosen = allRight ? q.gold : skills[(i + 1) % 199]!;
        return { requestId: q.id, run: 0, chosen, ...(kind === 'score' ? { scores: [{ name: chosen, score: 0.5 }] } : {}) };
      }),
    });
    return {
      ...clone(demo),
      catalogue: { source: 'metatool', skills: skills.map((name) => ({ name, hash: '0'.repeat(16), category: '' })) },
      requests,
      runs: [run('model', 'decision'), run('similarity', 'score'), run('keyword', 'score')],
      tokenAudit: undefined,
    } as ResultsFile;
  }

  it("fits GitHub's 65,536-character comment limit and says how many rows were left out", async () => {
    const baseline = metatoolSize(true);
    const r = metatoolSize(false);
    r.gate = compareToBaseline(r, baseline, { alpha: 0.05, minRequests: 2, minRate: 0.05, baselineFile: 'baseline.json' });
    expect(r.gate.flips).toHaveLength(3 * 1040);
    const md = await renderOutput(r, '.md', { baseline: { file: 'baseline.json', results: baseline } });
    expect(md.length).toBeLessThanOrEqual(65_536);
    expect(md.length).toBeLessThan(65_536 / 2); // room for a longer gate or more selectors (docs/reports.md says so)
    expect(md).toContain('#### Requests that flipped against the baseline (3120: 3120 now wrong, 0 now right)');
    expect(md).toContain('<details><summary>Failures (3120)</summary>');
    const more = md.split('\n').filter((l) => /^… and \d+ more/.test(l));
    expect(more).toEqual([`… and ${3120 - 40} more (see the HTML or CSV report).`, `… and ${3120 - 30} more (see the HTML or CSV report).`]);
  });
});

describe('CSV', () => {
  it('quotes per RFC 4180 and ends records with CRLF', async () => {
    const r = clone(demo);
    r.requests[0]!.text = 'a, "quoted"\r\nmulti-line';
    const csv = await renderOutput(r, '.csv');
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv).toContain('"a, ""quoted""\r\nmulti-line"');
    const rows = parseCsv(csv);
    expect(rows[1]![4]).toBe('a, "quoted"\r\nmulti-line');
    expect(new Set(rows.map((row) => row.length)).size).toBe(1);
    expect(rows).toHaveLength(1 + demo.runs.reduce((a, run) => a + run.decisions.length, 0));
  });
});

describe('writeOutputs', () => {
  it('writes every format by extension; the .json output reads back identical', async () => {
    const files = ['r.json', 'r.html', 'r.md', 'r.xml', 'r.csv', 'sub/dir/r.htm'].map((f) => join(dir, 'out', f));
    await writeOutputs(demo, files);
    for (const f of files) expect(existsSync(f), f).toBe(true);
    expect(await readResults(files[0]!)).toEqual(demo);
    expect(await readFile(files[1]!, 'utf8')).toMatch(/^<!doctype html>/);
    expect(await readFile(files[3]!, 'utf8')).toMatch(/^<\?xml version="1.0"/);
  });

  it('rejects an unknown extension with a UserError naming the file and the accepted extensions, before writing anything', async () => {
    const ok = join(dir, 'before.md');
    const bad = join(dir, 'report.pdf');
    const err = await writeOutputs(demo, [ok, bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).message).toContain(bad);
    expect((err as UserError).fix).toContain('.json .html .md .xml .csv');
    expect(existsSync(ok)).toBe(false);
    expect(() => formatOf('results')).toThrow(/no extension/);
  });
});

describe('skillbench report', () => {
  async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const w = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(String(chunk)), true));
    const e = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
    try {
      const code = await main(['node', 'skillbench', 'report', ...args]);
      return { code, stdout: out.join(''), stderr: err.join('\n') };
    } finally {
      w.mockRestore();
      e.mockRestore();
      process.exitCode = undefined;
    }
  }

  it('prints the terminal report without -o', async () => {
    const { code, stdout } = await cli(DEMO);
    expect(code).toBe(0);
    for (const run of demo.runs) expect(stdout).toContain(run.selector);
    expect(stdout).toContain('7.1% 1/14 [1.3-31.5]');
  });

  it('prints pass rates, not load rates, for an eval-quality results file', async () => {
    const { code, stdout } = await cli(join(import.meta.dirname, '..', 'fixtures', 'results', 'quality-results.json'));
    expect(code).toBe(0);
    // mode, pass rate (k/n) [95% CI], no answer, input tokens / request, calls / request, output tokens / request, cost
    expect(stdout).toMatch(/│ progressive │ 50\.0% \(2\/4\) \[15\.0–85\.0\]\s+│\s+1 │\s+4,200 │\s+5\.0 │\s+120 │ \$0\.0160 │/);
    expect(stdout).toMatch(/│ load-all\s+│ 75\.0% \(3\/4\) \[30\.1–95\.4\]\s+│\s+0 │\s+15,100 │\s+3\.0 │\s+120 │ \$0\.0600 │/);
    expect(stdout).toContain('progressive / load-all input tokens per request: 0.28 (load-all costs 3.6x as much per request)');
    expect(stdout).toContain('Failing cases (3):');
    expect(stdout).toContain('progressive  q3: missing "37.50"; no match for /P[12]/');
    expect(stdout).toContain('progressive  q4: no answer: anthropic: HTTP 529 overloaded');
    expect(stdout).toContain('load-all     q2: missing "37.50"; no match for /P[12]/');
    expect(stdout).not.toContain('wrong load');
  });

  it('re-renders every format from a results file', async () => {
    const out = join(dir, 'cli');
    const files = ['a.html', 'a.md', 'a.xml', 'a.csv', 'a.json'].map((f) => join(out, f));
    const { code, stderr } = await cli(DEMO, ...files.flatMap((f) => ['-o', f]));
    expect(code).toBe(0);
    for (const f of files) {
      expect(existsSync(f)).toBe(true);
      expect(stderr).toContain(`wrote ${f}`);
    }
    for (const [f, ext] of [[files[0], '.html'], [files[1], '.md'], [files[2], '.xml'], [files[3], '.csv']] as const) {
      expect(await readFile(f!, 'utf8')).toBe(await renderOutput(demo, ext));
    }
  });

  it('compares with a baseline and fails the gate (exit 1) after writing the outputs', async () => {
    const worse = clone(demo);
    const model = worse.runs.find((r) => r.selector === 'model')!;
    for (const d of model.decisions) if (['p01', 'p02', 'p03', 'p05', 'p07', 'p09'].includes(d.requestId)) d.chosen = 'ticket-triage';
    const worseFile = join(dir, 'worse.json');
    await writeFile(worseFile, JSON.stringify(worse));
    const md = join(dir, 'gate', 'summary.md');
    const json = join(dir, 'gate', 'results.json');
    const { code, stderr } = await cli(worseFile, '--baseline', DEMO, '-o', md, '-o', json);
    expect(code).toBe(1);
    expect(stderr).toMatch(/gate failed: model: worse than .*demo-results\.json on 6 of 23 paired requests/);
    const text = await readFile(md, 'utf8');
    expect(text).toContain('gate failed ❌');
    expect(text).toContain('Requests that flipped against the baseline (6: 6 now wrong, 0 now right)');
    const written = await readResults(json);
    expect(written.gate?.passed).toBe(false);
    expect(written.gate?.flips.map((f) => f.requestId)).toEqual(['p01', 'p02', 'p03', 'p05', 'p07', 'p09']);

    const side = await cli(worseFile, '--baseline', DEMO);
    expect(side.code).toBe(1);
    expect(side.stdout).toMatch(/Against the baseline .*demo-results\.json/);
    expect(side.stdout).toMatch(/model\s+│\s+7\.1% 1\/14 │\s+50\.0% 7\/14 │ \+42\.9 pts/);
  });

  it('passes the gate against itself, and applies the rate gates', async () => {
    expect((await cli(DEMO, '--baseline', DEMO, '-o', join(dir, 'same.md'))).code).toBe(0);
    expect(await readFile(join(dir, 'same.md'), 'utf8')).toContain('gate passed ✅');
    const rate = await cli(DEMO, '--max-wrong-load', '0.5', '-o', join(dir, 'rate.md'));
    expect(rate.code).toBe(1);
    expect(rate.stderr).toContain('explicit: wrong load 85.7% (12/14) is above --max-wrong-load 0.5');
    expect(existsSync(join(dir, 'rate.md'))).toBe(true);
  });

  it('takes one file per -o (never the results file after it), and prints JSON with --json wherever it is written', async () => {
    const md = join(dir, 'order.md');
    const r = await runCli(['report', '-o', md, DEMO]); // -o before the positional argument: it takes one value only
    expect(r.code).toBe(0);
    expect(await readFile(md, 'utf8')).toContain('skillbench');
    for (const args of [[DEMO, '--json'], ['--json', DEMO]]) {
      const j = await runCli(['report', ...args]);
      expect(j.code, args.join(' ')).toBe(0);
      expect(JSON.parse(j.stdout)).toMatchObject({ schema: 'skillbench.results', command: 'eval-trigger' });
    }
    const old = await runCli(['report', DEMO, '--json', join(dir, 'old.json')]);
    expect(old.code).toBe(0);
    expect(old.stderr).toContain('is the old spelling: write `-o');
    expect((await readResults(join(dir, 'old.json'))).schema).toBe('skillbench.results');
  });

  it('turns a bad results file or output name into a clear error with exit code 2', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"schema": "something else"}');
    const r1 = await cli(bad);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain(`${bad}: field "schema"`);
    const r2 = await cli(join(dir, 'missing.json'));
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('cannot read the results file');
    const r3 = await cli(DEMO, '-o', join(dir, 'x.docx'));
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain('x.docx: unknown output format ".docx"');
  });
});

describe('the GitHub Actions workflow example', () => {
  const root = join(import.meta.dirname, '..');
  interface Step { id?: string; name?: string; uses?: string; run?: string; if?: string; with?: Record<string, string>; env?: Record<string, string> }
  interface Workflow { on: Record<string, { paths?: string[] }>; jobs: Record<string, { env?: Record<string, string>; steps: Step[] }> }

  async function workflow(): Promise<{ text: string; wf: Workflow }> {
    const text = await readFile(join(root, 'examples', 'github-workflow.yml'), 'utf8');
    // gray-matter (already a dependency) parses a YAML block with js-yaml; an invalid file throws here.
    const { default: matter } = await import('gray-matter');
    return { text, wf: matter(`---\n${text}\n---\n`).data as Workflow };
  }

  it('is valid YAML with the triggers, and steps that each run or use a pinned action', async () => {
    const { wf } = await workflow();
    expect(wf.on.pull_request!.paths).toContain('skills/**');
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    for (const step of steps) {
      expect(Boolean(step.uses) !== Boolean(step.run), JSON.stringify(step)).toBe(true);
      if (step.uses) expect(step.uses).toMatch(/^[\w-]+\/[\w-]+(\/[\w-]+)?@v\d+$/);
    }
    const uses = steps.map((s) => s.uses).filter(Boolean);
    expect(uses).toEqual(expect.arrayContaining(['actions/cache/restore@v4', 'actions/cache/save@v4']));
  });

  it('uses contexts only where GitHub allows them, and only step ids that exist', async () => {
    const { text, wf } = await workflow();
    for (const job of Object.values(wf.jobs)) {
      // A job-level env may not use runner, steps or hashFiles: the workflow would be rejected.
      for (const value of Object.values(job.env ?? {})) expect(value).not.toMatch(/runner\.|steps\.|hashFiles\(/);
      const ids = new Set(job.steps.map((s) => s.id).filter(Boolean));
      for (const [, id] of text.matchAll(/steps\.([\w-]+)\./g)) expect(ids.has(id!), `steps.${id}`).toBe(true);
    }
    const restore = Object.values(wf.jobs).flatMap((j) => j.steps).find((s) => s.uses === 'actions/cache/restore@v4')!;
    expect(restore.with!.key).toMatch(/hashFiles\('skills\/\*\*', 'requests\.json'\)/);
    const save = Object.values(wf.jobs).flatMap((j) => j.steps).find((s) => s.uses === 'actions/cache/save@v4')!;
    expect(save.with!.key).toBe(`\${{ steps.${restore.id}.outputs.cache-primary-key }}`);
  });

  it('calls eval-trigger with options that exist, gates on the baseline and posts the summary it writes', async () => {
    const { wf } = await workflow();
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    const run = steps.map((s) => s.run ?? '').find((r) => r.includes('skillbench eval-trigger'))!;
    const { buildProgram } = await import('../src/cli.js');
    const cmd = buildProgram().commands.find((c) => c.name() === 'eval-trigger')!;
    const known = new Set(cmd.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
    const invocation = /skillbench eval-trigger[^\n]*/.exec(run.replace(/\\\n/g, ' '))![0];
    const used = [...invocation.matchAll(/(?<=\s)(--?[a-z][\w-]*)/g)].map((m) => m[1]!);
    expect(used).toContain('--max-cost');
    expect(used).toContain('--github-annotations');
    for (const option of used) expect(known.has(option), option).toBe(true);
    expect(run).toMatch(/--baseline skillbench\/baseline\.json/);
    expect(steps.map((s) => s.run ?? '').join('\n')).toContain('git show FETCH_HEAD:.skillbench/baseline.json > skillbench/baseline.json');
    expect(run).toContain('-o skillbench/summary.md');
    const posted = steps.map((s) => s.run ?? '').join('\n');
    expect(posted).toContain('cat skillbench/summary.md >> "$GITHUB_STEP_SUMMARY"');
    expect(posted).toMatch(/gh pr comment "\$PR" --body-file skillbench\/comment\.md/);
  });

  it('runs on a supported Node line and installs skillbench from its git repository with npm ci', async () => {
    const { wf } = await workflow();
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    const node = steps.find((s) => s.uses === 'actions/setup-node@v4')!;
    expect(['22', '24']).toContain(String(node.with!['node-version']));
    const install = steps.find((s) => s.name === 'Install skillbench')!.run!;
    expect(install).toMatch(/git clone .*"\$SKILLBENCH_REPO"/);
    expect(install).toMatch(/npm ci --prefix "\$RUNNER_TEMP\/skillbench"/);
    expect(install).not.toMatch(/npm install[^\n]*skillbench@/); // not published yet
    const env = Object.values(wf.jobs)[0]!.env!;
    expect(env.SKILLBENCH_REPO).toMatch(/^https:\/\/github\.com\/.+\.git$/);
  });

  it('validates the skills with options that exist, strict, annotated on the diff', async () => {
    const { wf } = await workflow();
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    const validate = steps.find((s) => s.id === 'validate')!;
    const invocation = /skillbench validate [^\n]*/.exec(validate.run!)![0];
    const { buildProgram } = await import('../src/cli.js');
    const cmd = buildProgram().commands.find((c) => c.name() === 'validate')!;
    const known = new Set(cmd.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
    const used = [...invocation.matchAll(/(?<=\s)(--?[a-z][\w-]*)/g)].map((m) => m[1]!);
    expect(used).toEqual(expect.arrayContaining(['--strict', '--github-annotations']));
    for (const option of used) expect(known.has(option), option).toBe(true);
    const gate = steps.find((s) => s.name === 'Gate')!;
    expect(gate.if).toContain('steps.validate.outputs.exit-code');
  });

  describe.skipIf(!hasJq)('the pull-request comment (run with a stand-in for gh; skipped without jq)', () => {
    /** Runs the comment step's script with a fake `gh` that serves `comments` and records what it is asked. */
    async function comment(existing: { id: number; body: string }[]): Promise<{ log: string; patched?: string; created?: string }> {
      const { wf } = await workflow();
      const step = Object.values(wf.jobs).flatMap((j) => j.steps).find((s) => s.name === 'Pull-request comment')!;
      const work = await mkdtemp(join(tmpdir(), 'skillbench-comment-'));
      try {
        await writeFile(join(work, 'comments.json'), JSON.stringify(existing));
        await mkdir(join(work, 'bin'));
        await mkdir(join(work, 'skillbench'));
        await writeFile(join(work, 'skillbench', 'summary.md'), '## skillbench\n\ngate passed\n');
        const fake = [
          '#!/bin/bash',
          'echo "$*" >> "$WORK/log"',
          'if [ "$1" = api ] && [ "$2" = --method ]; then for a in "$@"; do case $a in body=@*) cp "${a#body=@}" "$WORK/patched";; esac; done; exit 0; fi',
          'if [ "$1" = api ]; then while [ $# -gt 0 ]; do if [ "$1" = --jq ]; then jq -r "$2" "$WORK/comments.json"; exit 0; fi; shift; done; fi',
          'if [ "$1" = pr ] && [ "$2" = comment ]; then cp "$5" "$WORK/created"; exit 0; fi',
          'exit 1',
        ].join('\n');
        await writeFile(join(work, 'bin', 'gh'), fake, { mode: 0o755 });
        const { spawnSync } = await import('node:child_process');
        const r = spawnSync('bash', ['-e', '-c', step.run!], {
          cwd: work,
          encoding: 'utf8',
          env: { PATH: `${join(work, 'bin')}:${process.env.PATH}`, WORK: work, PR: '7', GITHUB_REPOSITORY: 'acme/skills' },
        });
        expect(r.status, r.stderr).toBe(0);
        const read = (f: string) => readFile(join(work, f), 'utf8').catch(() => undefined);
        return { log: (await read('log')) ?? '', patched: await read('patched'), created: await read('created') };
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    }

    it('edits its own comment, found by its marker, and leaves the others alone', async () => {
      const r = await comment([
        { id: 11, body: 'LGTM' },
        { id: 12, body: '<!-- skillbench:eval-trigger -->\n## skillbench\n\ngate failed' },
        { id: 13, body: 'the last comment, by someone else' },
      ]);
      expect(r.log).toContain('api --method PATCH repos/acme/skills/issues/comments/12 -F body=@skillbench/comment.md');
      expect(r.patched).toBe('<!-- skillbench:eval-trigger -->\n## skillbench\n\ngate passed\n');
      expect(r.created).toBeUndefined();
    });

    it('posts a new comment, with the marker, when it has none yet', async () => {
      const r = await comment([{ id: 11, body: 'LGTM' }]);
      expect(r.log).not.toContain('PATCH');
      expect(r.created).toBe('<!-- skillbench:eval-trigger -->\n## skillbench\n\ngate passed\n');
    });
  });

  it('docs/ci.md gives setup commands whose options exist', async () => {
    const doc = await readFile(join(root, 'docs', 'ci.md'), 'utf8');
    const { buildProgram } = await import('../src/cli.js');
    const cmd = buildProgram().commands.find((c) => c.name() === 'eval-trigger')!;
    const known = new Set(cmd.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
    const lines = doc.split('\n').filter((l) => l.startsWith('npx skillbench eval-trigger'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) for (const [option] of line.matchAll(/(?<=\s)--?[a-z][\w-]*/g)) expect(known.has(option), option).toBe(true);
  });
});
