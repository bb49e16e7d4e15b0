#!/usr/bin/env node
// Takes a screenshot of the HTML report in headless Chromium (Debian's /usr/bin/chromium through playwright-core;
// no browser is downloaded). Run after `npm run build`:
//
//   node scripts/screenshot.mjs                      # the demo: an offline eval-trigger run on skills/ + requests.json
//   node scripts/screenshot.mjs results.json out.png # any results file
//
// Two shots: the top of the report (default docs/report-screenshot.png) and the Requests section filtered to the
// failures with the first one's drill-down open (the same name with -requests: docs/report-screenshot-requests.png).
// CHROMIUM=/path overrides the browser; HEIGHT=px the height of the first shot.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const given = process.argv[2] && process.argv[2] !== '-' ? resolve(process.argv[2]) : undefined;
const output = resolve(process.argv[3] ?? join(root, 'docs/report-screenshot.png'));
const requestsOutput = output.replace(/(\.png)?$/i, '-requests.png');
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  console.error(`screenshot: ${executablePath} not found (apt-get install chromium, or set CHROMIUM=/path/to/chrome)`);
  process.exit(2);
}
if (!existsSync(join(root, 'dist/report/index.js'))) {
  console.error('screenshot: dist/ is missing; run `npm run build` first');
  process.exit(2);
}

const { readResults } = await import(pathToFileURL(join(root, 'dist/results.js')).href);
const { writeOutputs } = await import(pathToFileURL(join(root, 'dist/report/index.js')).href);
const { chromium } = await import('playwright-core');

const work = await mkdtemp(join(tmpdir(), 'skillbench-shot-'));
try {
  let input = given;
  if (!input) {
    // The demo report: the default offline selectors (fused, similarity, keyword) on the bundled catalogue, with a throwaway cache (nothing is paid for).
    input = join(work, 'results.json');
    execFileSync(process.execPath, [join(root, 'bin/skillbench.js'), 'eval-trigger', '--skills', join(root, 'skills'),
      '--requests', join(root, 'requests.json'), '--cache-dir', join(work, 'cache'),
      '--no-progress', '-o', input], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const html = join(work, 'report.html');
  await writeOutputs(await readResults(input), [html]);
  // A fresh, empty profile each time; the flags keep Chromium from reaching for the network on its own.
  const browser = await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
  });
  try {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(html).href);
    // The top of the report: header, summary table and the load chart, and the start of the score section.
    await page.screenshot({ path: output, clip: { x: 0, y: 0, width: 1280, height: Number(process.env.HEIGHT ?? 1480) }, fullPage: true });
    // The Requests section: the first selector's failures, the first one opened (its ranking, threshold, matched words).
    await page.selectOption('#req-outcome', 'fail');
    await page.selectOption('#req-selector', '0');
    await page.locator('#req-matrix tr.req:not([hidden])').first().click();
    // Bounding boxes are relative to the viewport; the clip of a full-page shot is relative to the page.
    const scrolled = await page.evaluate(() => window.scrollY);
    const section = await page.locator('#requests').boundingBox();
    const detail = await page.locator('tr.detail').boundingBox();
    const top = Math.round(section.y + scrolled);
    const bottom = Math.round(detail.y + scrolled + detail.height + 16);
    await page.screenshot({ path: requestsOutput, clip: { x: 0, y: top, width: 1280, height: Math.min(1400, bottom - top) }, fullPage: true });
  } finally {
    await browser.close();
  }
  console.log(`screenshot: ${given ?? 'offline eval-trigger on skills/ and requests.json'} -> ${output}, ${requestsOutput}`);
} finally {
  await rm(work, { recursive: true, force: true });
}
