// The HTML report opened in headless Chromium (Debian's /usr/bin/chromium through playwright-core; no browser
// download): no console error, no network request but the file itself, the figures in the page equal
// computeMetrics, and the failure filter works. Skipped, with a message, where Chromium is not installed.
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
import { runCli } from './support/cli.js';
import type { ResultsFile } from '../src/types.js';

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

  it('filters the failures by text and by selector', async () => {
    const { page, problems } = await open(demo, 'filter.html');
    const failures = demo.runs.flatMap((run) => computeMetrics(run, demo.requests).failures.map((f) => ({ selector: run.selector, ...f })));
    const visible = () => page.$$eval('table.failures tbody tr', (rows) => rows.filter((r) => !(r as HTMLElement).hidden).length);
    expect(await visible()).toBe(failures.length);
    await expect(page.locator('#failure-count').textContent()).resolves.toBe(`${failures.length} of ${failures.length} shown`);

    await page.fill('#failure-filter', 'parental leave');
    const parental = failures.filter((f) => f.text.toLowerCase().includes('parental leave')).length;
    expect(parental).toBeGreaterThan(0);
    expect(await visible()).toBe(parental);

    await page.fill('#failure-filter', '');
    await page.selectOption('#failure-selector', 'keyword');
    expect(await visible()).toBe(failures.filter((f) => f.selector === 'keyword').length);
    expect(problems).toEqual([]);
    await page.close();
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
