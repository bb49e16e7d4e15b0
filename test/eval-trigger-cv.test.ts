// eval-trigger's thresholds end to end: --cv K (held-out decisions, the fit on every request written out), the default
// (5 folds when the requests allow it), --threshold baseline reusing fused's fitted decision, and the refusals (exit 2
// before any work) of combinations that would say two things at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readResults } from '../src/results.js';
import { probability } from '../src/selectors/decision.js';
import { runCli } from './support/cli.js';
import { clearProviderEnv, THREE_SKILLS } from './support/fixtures.js';

clearProviderEnv();

const catalogue = THREE_SKILLS;
const requests = [
  { id: 'pdf-1', text: 'Extract the tables from this PDF report', gold: 'doc-extractor' },
  { id: 'pdf-2', text: 'Merge these three PDF files into one', gold: 'doc-extractor' },
  { id: 'pdf-3', text: 'Split the PDF into separate pages', gold: 'doc-extractor' },
  { id: 'git-1', text: 'How do I resolve a merge conflict in git?', gold: 'git-helper' },
  { id: 'git-2', text: 'Rewrite the commit history of my branch', gold: 'git-helper' },
  { id: 'mail-1', text: 'Draft a professional email reply to my manager', gold: 'email-writer' },
  { id: 'mail-2', text: 'Polish this follow-up email to a client', gold: 'email-writer' },
  { id: 'neg-1', text: 'What is the capital of Peru?', gold: null },
  { id: 'neg-2', text: 'Tell me a joke about penguins', gold: null },
  { id: 'neg-3', text: 'How many legs does a spider have?', gold: null },
  { id: 'neg-4', text: 'Write a haiku about autumn leaves', gold: null },
];

let dir: string;
const file = (name: string) => path.join(dir, name);
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillbench-cv-'));
  await writeFile(file('catalogue.json'), JSON.stringify(catalogue));
  await writeFile(file('requests.json'), JSON.stringify(requests));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const cli = (...args: string[]) =>
  runCli(['eval-trigger', '--no-progress', '--cache-dir', file('cache'), '--skills', file('catalogue.json'), '--requests', file('requests.json'), ...args]);

describe('--cv', () => {
  it('decides each request with what the other folds fitted, and writes the fit on every request', async () => {
    const r = await cli('--selectors', 'fused,similarity,keyword', '--cv', '2', '--json', file('cv.json'));
    expect(r.code).toBe(0);
    const results = await readResults(file('cv.json'));
    expect(results.settings.cv).toBe(2);
    for (const run of results.runs) {
      expect(run.threshold, run.selector).toMatchObject({ source: 'cross-validated', folds: 2 });
      expect(new Set(run.decisions.map((d) => d.detail!.fold))).toEqual(new Set([0, 1]));
    }
    const fused = results.runs.find((x) => x.selector === 'fused')!;
    expect(fused.fit!.threshold).toBe(fused.threshold!.value);
    expect(fused.fit!.fittedOn.uncovered).toBe(4);
    for (const d of fused.decisions) {
      if (d.confidence === undefined) continue;
      expect(d.chosen !== null).toBe(d.confidence >= (d.detail!.threshold as number));
    }
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/fused: decision: a logistic model on 10 features of the ranking; loads the top skill at probability >= \d\.\d{3} \(cross-validated in 2 folds/);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/keyword: threshold applied: \d+\.\d{3} \(cross-validated in 2 folds: each request decided by the threshold fitted on the other folds/);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/│ selector\s+│\s+recall@1 │\s+recall@3 │\s+recall@5 │\s+recall@10 │/);
  });

  it('is the default when every one of 5 folds can hold a covered and an uncovered request, and off with --cv off', async () => {
    const more = [...requests, ...['What year is it?', 'Recommend a novel', 'Who painted the Mona Lisa?'].map((text, i) => ({ id: `neg-x${i}`, text, gold: null }))];
    await writeFile(file('more.json'), JSON.stringify(more));
    const run = (...args: string[]) => runCli(['eval-trigger', '--no-progress', '--cache-dir', file('cache'), '--skills', file('catalogue.json'), '--requests', file('more.json'), '--selectors', 'keyword', ...args]);
    const byDefault = await run('--json', file('default.json'));
    expect(byDefault.code).toBe(0);
    expect((await readResults(file('default.json'))).runs[0]!.threshold).toMatchObject({ source: 'cross-validated', folds: 5 });
    const off = await run('--cv', 'off', '--json', file('off.json'));
    expect(off.code).toBe(0);
    expect((await readResults(file('off.json'))).runs[0]!.threshold!.source).toBe('optimistic');
  });

  it('refuses, with exit 2 and before any work, folds the requests cannot fill and combinations that say two things', async () => {
    const five = await cli('--selectors', 'keyword', '--cv', '5');
    expect(five.code).toBe(2);
    expect(five.stderr).toMatch(/--cv 5: .*requests\.json has 7 covered, 4 uncovered requests; each of 5 folds needs a covered and an uncovered one/);
    expect((await cli('--selectors', 'keyword', '--cv', '1')).stderr).toMatch(/--cv: cannot read "1"/);
    const both = await cli('--selectors', 'keyword', '--cv', '2', '--calibrate', file('requests.json'));
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--calibrate and --cv both choose the thresholds/);
    const number = await cli('--selectors', 'fused', '--threshold', 'fused=0.5');
    expect(number.code).toBe(2);
    expect(number.stderr).toMatch(/fused decides with a fitted model, not a fixed number/);
  });
});

describe('--threshold baseline with fused', () => {
  it('applies the decision the baseline fitted, not one fitted here', async () => {
    const main = await cli('--selectors', 'fused,keyword', '--cv', '2', '--json', file('main.json'));
    expect(main.code).toBe(0);
    const baseline = (await readResults(file('main.json'))).runs.find((x) => x.selector === 'fused')!;
    // The change: fewer requests, so a fit here would differ.
    await writeFile(file('fewer.json'), JSON.stringify(requests.filter((r) => r.id !== 'neg-4' && r.id !== 'pdf-3')));
    const pr = await runCli(['eval-trigger', '--no-progress', '--cache-dir', file('cache'), '--skills', file('catalogue.json'), '--requests', file('fewer.json'),
      '--selectors', 'fused,keyword', '--baseline', file('main.json'), '--threshold', 'baseline', '--json', file('pr.json')]);
    expect(pr.code).toBe(0);
    const run = (await readResults(file('pr.json'))).runs.find((x) => x.selector === 'fused')!;
    expect(run.fit).toEqual(baseline.fit);
    expect(run.threshold).toEqual({ value: baseline.fit!.threshold, source: 'fixed', calibrationFile: file('main.json') });
    expect(pr.stdout.replace(/\s+/g, ' ')).toContain(`fused: decision: a logistic model on 10 features of the ranking; loads the top skill at probability >= ${baseline.fit!.threshold.toFixed(3)} (fixed by --threshold baseline: the decision ${file('main.json')} applied)`);
    // Applied: the same requests get the same probability under the same fit.
    for (const d of run.decisions) {
      const then = baseline.decisions.find((b) => b.requestId === d.requestId)!;
      if (d.confidence === undefined) continue;
      expect(d.chosen !== null).toBe(d.confidence >= baseline.fit!.threshold);
      expect(then.scores).toBeDefined();
    }
    expect(probability(run.fit!, run.fit!.mean)).toBeCloseTo(1 / (1 + Math.exp(-run.fit!.intercept)), 12);
  });

  it('names the file when the baseline has no fused run, or a fit with other features', async () => {
    await cli('--selectors', 'keyword', '--json', file('keyword-only.json'));
    const r = await cli('--selectors', 'fused', '--baseline', file('keyword-only.json'), '--threshold', 'baseline');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/keyword-only\.json: --threshold baseline: the baseline has no fused run to take its decision from \(it has keyword\)/);
    const results = await readResults(file('main.json'));
    const fused = results.runs.find((x) => x.selector === 'fused')!;
    fused.fit = { ...fused.fit!, features: ['fused', 'margin'], mean: [0, 0], sd: [1, 1], weights: [1, 1] };
    await writeFile(file('old-fit.json'), JSON.stringify(results));
    const old = await cli('--selectors', 'fused', '--baseline', file('old-fit.json'), '--threshold', 'baseline');
    expect(old.code).toBe(2);
    expect(old.stderr).toMatch(/old-fit\.json: --threshold baseline: the baseline's fused decision uses the features fused, margin; this skillbench computes fused, margin, cosine/);
    // A keyword baseline from before the scores stopped saturating (no scoring recorded): its threshold is refused.
    const old2 = await readResults(file('main.json'));
    delete old2.runs.find((x) => x.selector === 'keyword')!.model;
    await writeFile(file('old-keyword.json'), JSON.stringify(old2));
    const k = await cli('--selectors', 'keyword', '--baseline', file('old-keyword.json'), '--threshold', 'baseline');
    expect(k.code).toBe(2);
    expect(k.stderr).toMatch(/old-keyword\.json: --threshold baseline: the baseline's keyword scores were computed another way/);
    expect((await readResults(file('main.json'))).runs.find((x) => x.selector === 'keyword')!.model).toBe('bm25-raw-over-sqrt-self');
    fused.fit = { ...fused.fit!, sd: [0, 1] };
    await writeFile(file('bad-fit.json'), JSON.stringify(results));
    const bad = await cli('--selectors', 'fused', '--baseline', file('bad-fit.json'), '--threshold', 'baseline');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad-fit\.json: field "runs\[0\]\.fit\.sd" must be positive numbers/);
  });
});
