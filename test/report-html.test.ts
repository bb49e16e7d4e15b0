// The HTML report opened in headless Chromium (Debian's /usr/bin/chromium through playwright-core; no browser
// download): no console error, no network request but the file itself, the figures in the page equal
// computeMetrics, and the Requests section works: every request against every selector, the drill-down, the filters,
// search and sort, and the comparison with a baseline (changed descriptions, score moves). Skipped, with a message,
// where Chromium is not installed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { computeMetrics } from '../src/metrics.js';
import { compareToBaseline } from '../src/gate.js';
import { readResults } from '../src/results.js';
import { renderOutput, writeOutputs } from '../src/report/index.js';
import { outcomeOf } from '../src/report/format.js';
import { loadCatalogue } from '../src/catalogue.js';
import { runCli } from './support/cli.js';
import type { Decision, ResultsFile } from '../src/types.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`report-html.test.ts: skipped: ${CHROMIUM} not found (apt-get install chromium; .ci/run installs it)`);

const DEMO = join(import.meta.dirname, '..', 'fixtures', 'results', 'demo-results.json');

describe.skipIf(!haveChromium)('HTML report in headless Chromium', () => {
  let dir: string;
  let context: BrowserContext;
  let demo: ResultsFile;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-html-'));
    demo = await readResults(DEMO);
    const { chromium } = await import('playwright-core');
    // A fresh, empty profile; the flags stop Chromium's own background connections, which would count as requests.
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await context?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Opens a rendered report, recording console messages, page errors and every request the page makes. */
  async function open(results: ResultsFile, name: string, baseline?: ResultsFile) {
    const file = join(dir, name);
    await writeOutputs(results, [file], baseline ? { baseline: { file: 'baseline.json', results: baseline } } : {});
    return openFile(file);
  }

  /** Opens a file written by someone else (e.g. `eval-trigger -o`), recording the same things. */
  async function openFile(file: string) {
    const url = pathToFileURL(file).href;
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`${msg.type()}: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('request', (req) => requests.push(req.url()));
    await page.goto(url, { waitUntil: 'load' });
    return { page, url, problems, requests };
  }

  async function summaryFigures(page: Page) {
    return page.$$eval('table.summary tbody tr', (rows) =>
      rows.map((tr) => {
        const rate = (metric: string) => {
          const td = tr.querySelector(`td[data-metric="${metric}"]`) as HTMLElement;
          return [Number(td.dataset.k), Number(td.dataset.n), td.querySelector('.pct')!.textContent];
        };
        return {
          selector: (tr as HTMLElement).dataset.selector,
          wrong: rate('wrongLoad'),
          needless: rate('needlessLoad'),
          accuracy: rate('accuracy'),
          errors: Number((tr.querySelector('td[data-metric="errors"]') as HTMLElement).textContent),
        };
      }),
    );
  }

  it('opens the demo report with no console error and no request but the file itself', async () => {
    const { page, url, problems, requests } = await open(demo, 'demo.html');
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    expect(await page.title()).toBe('skillbench eval-trigger report');
    // Seven charts, each drawn (non-zero size) by the browser.
    const sizes = await page.$$eval('figure.chart svg', (svgs) => svgs.map((s) => s.getBoundingClientRect().width * s.getBoundingClientRect().height));
    expect(sizes).toHaveLength(7);
    expect(sizes.every((a) => a > 10_000)).toBe(true);

    const pct = (k: number, n: number) => (n ? `${((100 * k) / n).toFixed(1)}%` : 'n/a');
    const expected = demo.runs.map((run) => {
      const m = computeMetrics(run, demo.requests);
      return {
        selector: run.selector,
        wrong: [m.wrongLoad.k, m.wrongLoad.n, pct(m.wrongLoad.k, m.wrongLoad.n)],
        needless: [m.needlessLoad.k, m.needlessLoad.n, pct(m.needlessLoad.k, m.needlessLoad.n)],
        accuracy: [m.accuracy.k, m.accuracy.n, pct(m.accuracy.k, m.accuracy.n)],
        errors: m.errors,
      };
    });
    expect(await summaryFigures(page)).toEqual(expected);
    await page.close();
  });

  it('the checks can fail: a remote image, a blocked load and a script error are all caught (controls)', async () => {
    const file = join(dir, 'control.html');
    await writeOutputs(demo, [file]);
    const html = await readFile(file, 'utf8');
    const variant = async (name: string, text: string) => {
      await writeFile(join(dir, name), text);
      const opened = await openFile(join(dir, name));
      await opened.page.close();
      return opened;
    };
    const img = '<img src="http://127.0.0.1:9/leak.png" alt=""></body>';
    const csp = /<meta http-equiv="Content-Security-Policy"[^>]*>/;
    expect(html).toMatch(csp);
    // Without the page's Content-Security-Policy, the request itself is seen.
    const leak = await variant('leak.html', html.replace(csp, '').replace('</body>', img));
    expect(leak.requests).toContain('http://127.0.0.1:9/leak.png');
    // With it, the browser refuses the load and says so on the console.
    const blocked = await variant('blocked.html', html.replace('</body>', img));
    expect(blocked.problems.join('\n')).toMatch(/Content Security Policy/);
    const thrown = await variant('throws.html', html.replace('</body>', '<script>notDefinedAnywhere()</script></body>'));
    expect(thrown.problems.join('\n')).toMatch(/pageerror: .*notDefinedAnywhere/);
  });

  it('JUnit is well-formed XML for a real XML parser, whatever the request texts hold', async () => {
    const hostile = structuredClone(demo);
    hostile.requests[0]!.text = 'bell\u0007 NUL\u0000 esc\u001b lone \ud800 ]]> <script>x</script> & "q" \'a\' \ufffe\r\nnext';
    hostile.requests[1]!.id = 'id with "quotes" & <tags>';
    for (const run of hostile.runs) for (const d of run.decisions) if (d.requestId === demo.requests[1]!.id) d.requestId = hostile.requests[1]!.id;
    const quality = await readResults(join(import.meta.dirname, '..', 'fixtures', 'results', 'quality-results.json'));
    const page = await context.newPage();
    const parse = (text: string) =>
      page.evaluate((x) => {
        const doc = new DOMParser().parseFromString(x, 'application/xml');
        return { errors: doc.getElementsByTagName('parsererror').length, cases: doc.getElementsByTagName('testcase').length };
      }, text);
    for (const r of [demo, hostile, quality]) {
      const parsed = await parse(await renderOutput(r, '.xml'));
      expect(parsed).toEqual({ errors: 0, cases: r.runs.reduce((n, run) => n + run.decisions.length, 0) });
    }
    // The control: the same parser does reject what is not well-formed.
    expect((await parse('<testsuites><testcase name="a\u0007"/></testsuites>')).errors).toBeGreaterThan(0);
    await page.close();
  });

  it('opens the HTML report of a real offline eval-trigger run with no console error and no request', async () => {
    const root = join(import.meta.dirname, '..');
    const html = join(dir, 'real', 'report.html');
    const json = join(dir, 'real', 'results.json');
    const { code } = await runCli(['eval-trigger', '--skills', join(root, 'skills'), '--requests', join(root, 'requests.json'),
      '--selectors', 'similarity,keyword,explicit', '--cache-dir', join(dir, 'real', 'cache'), '--no-progress', '-o', json, '-o', html]);
    expect(code).toBe(0);
    const results = await readResults(json);
    const { page, url, problems, requests } = await openFile(html);
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    const figures = await summaryFigures(page);
    expect(figures.map((f) => f.selector)).toEqual(results.runs.map((r) => r.selector));
    results.runs.forEach((run, i) => {
      const m = computeMetrics(run, results.requests);
      expect(figures[i]!.wrong.slice(0, 2)).toEqual([m.wrongLoad.k, m.wrongLoad.n]);
      expect(figures[i]!.needless.slice(0, 2)).toEqual([m.needlessLoad.k, m.needlessLoad.n]);
    });
    expect(await page.locator('figure.chart svg').count()).toBeGreaterThanOrEqual(4);
    await page.close();
  });

  /** The demo results as version 2: the bundled skills' descriptions, the model's calls and answers, two French requests. */
  async function enriched(): Promise<ResultsFile> {
    const r = structuredClone(demo);
    r.version = 2;
    const catalogue = await loadCatalogue(join(import.meta.dirname, '..', 'skills'));
    const descriptions = new Map(catalogue.skills.map((s) => [s.name, s.description]));
    for (const s of r.catalogue.skills) s.description = descriptions.get(s.name);
    const model = r.runs.find((x) => x.selector === 'model')!;
    for (const d of model.decisions) {
      if (d.error) continue;
      const asked = d.chosen ?? d.rawChoice;
      if (asked) Object.assign(d, { calls: [{ name: 'activate_skill', args: { name: asked } }], stopReason: 'tool_use' });
      else Object.assign(d, { answer: `No skill is needed: here is the answer to ${d.requestId}.`, stopReason: 'end_turn' });
    }
    r.requests[2]!.text = 'Vérifie ma note de frais de mars par rapport à la politique et dis-moi ce qui est remboursé';
    r.requests[4]!.text = 'Combien de jours de télétravail par semaine ai-je le droit de faire, et puis-je travailler depuis l\'Espagne ?';
    return r;
  }

  const visibleIds = (page: Page) =>
    page.$$eval('#req-matrix tbody tr.req', (rows) => rows.filter((r) => !(r as HTMLElement).hidden).map((r) => r.querySelector('td.id')!.textContent));

  it('lists every request against every selector, each cell the outcome of its decision', async () => {
    const r = await enriched();
    const { page, url, problems, requests } = await open(r, 'matrix.html');
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    const cells = await page.$$eval('#req-matrix tbody tr.req', (rows) =>
      rows.map((tr) => [tr.querySelector('td.id')!.textContent, ...[...tr.querySelectorAll('td.cell')].map((td) => td.className.replace('cell ', ''))]));
    expect(cells).toHaveLength(r.requests.length);
    const expected = r.requests.map((q) => [q.id, ...r.runs.map((run) => outcomeOf(run.decisions.find((d) => d.requestId === q.id && d.run === 0)!, q.gold))]);
    expect(cells).toEqual(expected);
    expect(await page.locator('#req-matrix thead th.sel').allTextContents()).toEqual(r.runs.map((run) => run.selector));
    await page.close();
  });

  it('opens a drill-down per request: text, gold, each ranking with scores, the skill ranked first, the model\'s call or answer', async () => {
    const r = await enriched();
    const hostile = 'Profile this CSV </script><img src=x onerror="window.__pwned=1"> export <b>now</b>';
    r.requests[0]!.text = hostile;
    // p08 loads nothing under similarity: its best score is under the threshold.
    const p08 = r.runs.find((x) => x.selector === 'similarity')!.decisions.find((d) => d.requestId === 'p08')!;
    p08.chosen = null;
    p08.scores = p08.scores!.map((s) => ({ ...s, score: Number((s.score * 0.7).toFixed(4)) }));
    const { page, url, problems, requests } = await open(r, 'drill.html');
    const row = (id: string) => page.locator('#req-matrix tr.req', { has: page.locator(`td.id code:text-is("${id}")`) });
    const card = (selector: string) => page.locator(`tr.detail .card[data-selector="${selector}"]`);

    // The hostile text is text: shown as written, never run.
    await row('p01').click();
    await expect(page.locator('tr.detail blockquote').textContent()).resolves.toBe(hostile);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('tr.detail .card').count()).toBe(r.runs.length);
    await expect(card('model').textContent()).resolves.toContain('tool call: activate_skill {"name":"csv-data-profiler"}');
    await expect(card('model').textContent()).resolves.toContain('stop reason tool_use · 1,501 input tokens, 18 output · $0.000081');
    // The similarity ranking: every kept candidate with its score, in order, then the threshold.
    const sim = r.runs.find((x) => x.selector === 'similarity')!;
    const p01 = sim.decisions.find((d) => d.requestId === 'p01')!;
    const ranking = await card('similarity').locator('table.ranking tr').allTextContents();
    expect(ranking.slice(0, -1)).toEqual(p01.scores!.map((s, k) => `${k + 1}${s.name}${k === 0 ? ' gold loaded' : ''}${s.score.toFixed(3)} `));
    expect(ranking.at(-1)).toBe('threshold0.550 (optimistic)');
    // Enter closes it again (the rows are keyboard-reachable).
    await row('p01').focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('tr.detail').count()).toBe(0);

    // A "(none)" of a score selector names the skill ranked first and its score, under the threshold.
    const none = sim.decisions.find((d) => d.requestId === 'p08')!;
    const top = none.scores![0]!;
    await row('p08').click();
    await expect(card('similarity').textContent()).resolves.toContain(`loaded (none) wrong load; ranked first: ${top.name} ${top.score.toFixed(3)}, under the threshold 0.550 by ${(0.55 - top.score).toFixed(3)}`);
    await expect(row('p08').locator('td.cell.wrong-load').first().textContent()).resolves.toContain(`(none)top ${top.name} ${top.score.toFixed(3)}`);
    await row('p08').click();

    // A model answer without a tool call is shown as text, with its stop reason.
    const answered = r.runs.find((x) => x.selector === 'model')!.decisions.find((d) => d.answer)!;
    await row(answered.requestId).click();
    await expect(card('model').locator('pre').textContent()).resolves.toBe(answered.answer);
    await expect(card('model').textContent()).resolves.toContain('answer (no tool call):');
    await expect(card('model').textContent()).resolves.toContain('stop reason end_turn');
    await row(answered.requestId).click();

    // A near miss that loaded a skill: the words the request shares with it.
    const keyword = r.runs.find((x) => x.selector === 'keyword')!;
    const needless = keyword.decisions.find((d) => d.chosen && r.requests.find((q) => q.id === d.requestId)!.kind === 'near-miss')!;
    await row(needless.requestId).click();
    const words = await card('keyword').locator('p.words').textContent();
    expect(words).toMatch(new RegExp(`^words shared with ${needless.chosen}: \\S`));
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    await page.close();
  });

  it('filters by outcome, selector, skill, language and kind, searches, and sorts', async () => {
    const r = await enriched();
    const { page, problems } = await open(r, 'filters.html');
    const decisionsOf = (id: string, selector?: string) => r.runs.filter((run) => !selector || run.selector === selector).flatMap((run) => run.decisions.filter((d) => d.requestId === id));
    const outcome = (id: string, d: Decision) => outcomeOf(d, r.requests.find((q) => q.id === id)!.gold);
    const ids = (keep: (id: string) => boolean) => r.requests.map((q) => q.id).filter(keep);
    await expect(page.locator('#req-count').textContent()).resolves.toBe(`${r.requests.length} of ${r.requests.length} requests shown`);

    await page.selectOption('#req-outcome', 'fail');
    const failing = ids((id) => decisionsOf(id).some((d) => ['wrong-load', 'needless-load'].includes(outcome(id, d))));
    expect(await visibleIds(page)).toEqual(failing);
    await page.selectOption('#req-selector', String(r.runs.findIndex((x) => x.selector === 'keyword')));
    expect(await visibleIds(page)).toEqual(ids((id) => decisionsOf(id, 'keyword').some((d) => ['wrong-load', 'needless-load'].includes(outcome(id, d)))));
    await page.selectOption('#req-selector', '');
    await page.selectOption('#req-outcome', 'error');
    const erred = ids((id) => decisionsOf(id).some((d) => d.error !== undefined));
    expect(erred.length).toBeGreaterThan(0);
    expect(await visibleIds(page)).toEqual(erred);
    await page.selectOption('#req-outcome', '');

    await page.selectOption('#req-skill', 'ticket-triage');
    expect(await visibleIds(page)).toEqual(ids((id) => r.requests.find((q) => q.id === id)!.gold === 'ticket-triage' || decisionsOf(id).some((d) => d.chosen === 'ticket-triage')));
    await page.selectOption('#req-skill', '');
    await page.selectOption('#req-lang', 'French');
    expect(await visibleIds(page)).toEqual(['p03', 'p05']);
    await page.selectOption('#req-lang', '');
    await page.selectOption('#req-kind', 'near-miss');
    expect(await visibleIds(page)).toEqual(ids((id) => r.requests.find((q) => q.id === id)!.kind === 'near-miss'));
    await page.selectOption('#req-kind', '');
    await page.fill('#req-search', 'parental leave');
    expect(await visibleIds(page)).toEqual(['p06']);
    await page.fill('#req-search', '');

    await page.selectOption('#req-sort', 'id');
    expect(await visibleIds(page)).toEqual(r.requests.map((q) => q.id).sort());
    await page.selectOption('#req-sort', 'failing');
    const wrongCount = (id: string) => decisionsOf(id).filter((d) => outcome(id, d) !== 'correct').length;
    const sorted = (await visibleIds(page)) as string[];
    for (let k = 1; k < sorted.length; k++) expect(wrongCount(sorted[k - 1]!)).toBeGreaterThanOrEqual(wrongCount(sorted[k]!));
    expect(problems).toEqual([]);
    await page.close();
  });

  it('against a baseline: the skills whose description changed with a word diff, score moves without a flip, the changed filter', async () => {
    const before = await enriched();
    const now = await enriched();
    const skill = now.catalogue.skills.find((s) => s.name === 'leave-balance-calculator')!;
    skill.hash = 'changed0000000000';
    skill.description = skill.description!.replace(/^Computes how many paid-leave days/, 'Calculates how many days of paid leave or holiday');
    // p07's gold score rises by 0.2 without crossing the threshold's side it was on... or with it: either way it is listed.
    const sim = now.runs.find((x) => x.selector === 'similarity')!;
    const p07 = sim.decisions.find((d) => d.requestId === 'p07')!;
    const gold07 = p07.scores!.find((s) => s.name === 'leave-balance-calculator')!;
    const before07 = gold07.score;
    gold07.score = Number((gold07.score + 0.2).toFixed(4));
    // The model now loads another skill on p03: a flip.
    const flip = now.runs.find((x) => x.selector === 'model')!.decisions.find((d) => d.requestId === 'p03')!;
    flip.chosen = 'hr-policy-qa';
    flip.calls = [{ name: 'activate_skill', args: { name: 'hr-policy-qa' } }];
    const { page, url, problems, requests } = await open(now, 'baseline.html', before);

    const change = page.locator('li.skill-change[data-skill="leave-balance-calculator"]');
    expect(await page.locator('li.skill-change').count()).toBe(1);
    await expect(change.locator('del').first().textContent()).resolves.toBe('Computes ');
    await expect(change.locator('ins').first().textContent()).resolves.toBe('Calculates ');
    await expect(change.locator('ins').nth(1).textContent()).resolves.toBe('of paid leave or holiday ');
    const move = page.locator('tr.score-move[data-selector="similarity"][data-request="p07"]');
    await expect(move.textContent()).resolves.toContain(`${before07.toFixed(3)}${gold07.score.toFixed(3)}+0.200`);

    await page.selectOption('#req-outcome', 'changed');
    expect(await visibleIds(page)).toEqual(['p03']);
    await page.selectOption('#req-outcome', 'moved');
    expect(await visibleIds(page)).toEqual(['p07']);
    await page.locator('#req-matrix tr.req:not([hidden])').first().click();
    await expect(page.locator('tr.detail .card[data-selector="similarity"] p.baseline').textContent()).resolves.toMatch(
      new RegExp(`^baseline: loaded .+; deciding score ${before07.toFixed(3)} → ${gold07.score.toFixed(3)} \\(\\+0\\.200\\)`),
    );
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    await page.close();

    // Against a version-1 baseline (no descriptions stored), a changed skill is named and the reason given.
    const old = await open(now, 'baseline-v1.html', demo);
    await expect(old.page.locator('li.skill-change[data-skill="leave-balance-calculator"]').textContent()).resolves.toContain('cannot be compared');
    expect(old.problems).toEqual([]);
    await old.page.close();
  });

  it('opens an eval-quality report: pass rates, cases, and the filter, with no console error and no request', async () => {
    const quality = await readResults(join(import.meta.dirname, '..', 'fixtures', 'results', 'quality-results.json'));
    const { page, url, problems, requests } = await open(quality, 'quality.html');
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    const pass = await page.$$eval('td[data-metric="pass"]', (tds) => tds.map((td) => [(td as HTMLElement).dataset.k, (td as HTMLElement).dataset.n]));
    expect(pass).toEqual([['2', '4'], ['3', '4']]);
    await page.fill('#failure-filter', 'missing "37.50"');
    expect(await page.$$eval('table.failures tbody tr', (rows) => rows.filter((r) => !(r as HTMLElement).hidden).length)).toBe(2);
    await page.close();
  });

  it('opens a report with a baseline, a failed gate and repeated runs, still with no request', async () => {
    const current = structuredClone(demo);
    for (const run of current.runs) run.decisions.push(...run.decisions.map((d) => ({ ...structuredClone(d), run: 1 })));
    const model = current.runs.find((r) => r.selector === 'model')!;
    for (const d of model.decisions) if (['p01', 'p02', 'p03', 'p05', 'p07', 'p09'].includes(d.requestId)) d.chosen = 'ticket-triage';
    current.gate = compareToBaseline(current, demo, { alpha: 0.05, minRequests: 2, minRate: 0.05, baselineFile: 'baseline.json' });
    expect(current.gate.passed).toBe(false);
    const { page, url, problems, requests } = await open(current, 'gate.html', demo);
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    await expect(page.locator('.badge.fail').textContent()).resolves.toBe('✗ gate failed');
    expect(await page.locator('table.flips tbody tr').count()).toBe(current.gate.flips.length);
    await page.close();
  });
});
