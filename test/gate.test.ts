import { describe, expect, it } from 'vitest';
import { baselineThresholds, compareToBaseline, mcnemarExact, rateGateReasons, DEFAULT_GATE } from '../src/gate.js';
import { computeMetrics } from '../src/metrics.js';
import { UserError } from '../src/errors.js';
import type { EvalRequest, ResultsFile, SelectorRun } from '../src/types.js';

describe('exact McNemar', () => {
  it('matches the binomial tail by hand', () => {
    expect(mcnemarExact(0, 6)).toBeCloseTo(2 / 64, 12); // 2 * 0.5^6
    expect(mcnemarExact(1, 5)).toBeCloseTo((2 * 7) / 64, 12); // 2 * (C(6,0) + C(6,1)) / 2^6
    expect(mcnemarExact(0, 5)).toBeCloseTo(2 / 32, 12);
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
  });
  it('stays finite for large counts', () => {
    const p = mcnemarExact(0, 1500);
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThan(1e-100);
    expect(mcnemarExact(600, 600)).toBe(1);
    expect(mcnemarExact(40, 60)).toBeCloseTo(0.0569, 3); // two-sided binomial test, n = 100, k = 40
  });
});

const requests: EvalRequest[] = Array.from({ length: 20 }, (_, i) => ({ id: `r${i}`, text: `request ${i}`, gold: i < 10 ? 'A' : null }));

function results(correctUntil: number): ResultsFile {
  // Requests below `correctUntil` (covered ones) choose A; the rest of the covered ones choose nothing.
  const run: SelectorRun = {
    selector: 'keyword',
    kind: 'decision',
    decisions: requests.map((r, i) => ({ requestId: r.id, run: 0, chosen: r.gold && i < correctUntil ? 'A' : null })),
  };
  return {
    schema: 'skillbench.results', version: 1, command: 'eval-trigger', createdAt: '', skillbenchVersion: '0', settings: {},
    catalogue: { source: 's', skills: [{ name: 'A', hash: 'h', category: '' }] }, requests, runs: [run],
  };
}

describe('baseline gate', () => {
  it('passes an identical run with no flips', () => {
    const v = compareToBaseline(results(10), results(10));
    expect(v.passed).toBe(true);
    expect(v.flips).toEqual([]);
    expect(v.mcnemar).toEqual([{ selector: 'keyword', better: 0, worse: 0, pValue: 1 }]);
  });
  it('fails a significant regression and names the flipped requests', () => {
    const v = compareToBaseline(results(2), results(10)); // r2..r9 now wrong: 8 worse, p = 2/256
    expect(v.passed).toBe(false);
    expect(v.flips.map((f) => f.requestId)).toEqual(['r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9']);
    expect(v.flips[0]).toMatchObject({ before: 'A', after: null, nowCorrect: false });
    expect(v.reasons[0]).toMatch(/keyword: worse .* on 8 of 20 paired requests/);
  });
  it('does not fail a change too small for the test, or below the minimum effect', () => {
    expect(compareToBaseline(results(5), results(10)).passed).toBe(true); // 5 worse: p = 0.0625
    // (the per-skill gate is off here, maxSkillLoss 1: A alone lost 8 of its 10 correct loads, see below)
    const strict = { ...DEFAULT_GATE, minRate: 0.5, maxSkillLoss: 1 };
    expect(compareToBaseline(results(2), results(10), strict).passed).toBe(true); // 8/20 = 40 points < 50
    const loose = { ...DEFAULT_GATE, alpha: 0.1 };
    expect(compareToBaseline(results(5), results(10), loose).passed).toBe(false);
  });
  it('passes an improvement', () => {
    expect(compareToBaseline(results(10), results(0)).passed).toBe(true);
  });
  it('matches requests by id and text', () => {
    const changed = results(2);
    changed.requests = changed.requests.map((r) => ({ ...r, text: `${r.text}!` }));
    expect(() => compareToBaseline(changed, results(10))).toThrow(UserError);
  });
  it('says when the request sets differ and compares only the common ones', () => {
    const fewer = results(10);
    fewer.requests = fewer.requests.slice(0, 15); // r15..r19 only in the baseline
    fewer.runs[0]!.decisions = fewer.runs[0]!.decisions.slice(0, 15);
    fewer.requests.push({ id: 'new', text: 'a new request', gold: null });
    fewer.runs[0]!.decisions.push({ requestId: 'new', run: 0, chosen: null });
    const v = compareToBaseline(fewer, results(10), { ...DEFAULT_GATE, baselineFile: 'b.json' });
    expect(v.passed).toBe(true);
    expect(v.notes).toEqual([
      'the request sets differ: compared on the 15 requests with the same id and text in both; ' +
        'not compared: 1 only in this run (new), 5 only in b.json (r15, r16, r17, r18, r19)',
    ]);
    expect(compareToBaseline(results(10), results(10)).notes).toEqual([]);
  });
  it('never counts a failed call as a wrong decision in the pairing', () => {
    const failing = results(10);
    // r0..r7 were right in the baseline and are now errors: not worse, just not compared.
    failing.runs[0]!.decisions.forEach((d, i) => {
      if (i < 8) Object.assign(d, { chosen: null, error: 'HTTP 500' });
    });
    const v = compareToBaseline(failing, results(10));
    expect(v.mcnemar).toEqual([{ selector: 'keyword', better: 0, worse: 0, pValue: 1 }]);
    expect(v.flips).toEqual([]);
    expect(v.passed).toBe(true);
    expect(v.notes).toEqual(['keyword: 8 of 20 common requests not compared: every call failed (errors) in this run or in the baseline']);
  });
  it('fails when every call failed: a regression cannot be ruled out', () => {
    const failing = results(10);
    for (const d of failing.runs[0]!.decisions) Object.assign(d, { chosen: null, error: 'HTTP 401' });
    const v = compareToBaseline(failing, results(10));
    expect(v.passed).toBe(false);
    expect(v.reasons[0]).toMatch(/keyword: no request could be compared .* every call failed/);
  });
  it('refuses a baseline without a common selector', () => {
    const other = results(10);
    other.runs[0]!.selector = 'model';
    expect(() => compareToBaseline(results(10), other, { ...DEFAULT_GATE, baselineFile: 'b.json' })).toThrow(/b\.json: no selector in common/);
  });
});

describe('rate gates', () => {
  it('fails a selector above the maximum', () => {
    const r = results(7); // wrong load 3/10, needless 0/10
    const m = r.runs.map((run) => computeMetrics(run, r.requests));
    expect(rateGateReasons(m, r.runs, { maxWrongLoad: 0.3 })).toEqual([]);
    expect(rateGateReasons(m, r.runs, { maxWrongLoad: 0.25 })[0]).toMatch(/keyword: wrong load 30\.0% \(3\/10\) is above --max-wrong-load 0\.25/);
    expect(rateGateReasons(m, r.runs, { maxNeedlessLoad: 0 })).toEqual([]);
  });
  it('fails a selector whose every call failed instead of passing it on no data', () => {
    const r = results(10);
    for (const d of r.runs[0]!.decisions) Object.assign(d, { chosen: null, error: 'HTTP 401' });
    const m = r.runs.map((run) => computeMetrics(run, r.requests));
    expect(m[0]!.wrongLoad.n).toBe(0);
    expect(rateGateReasons(m, r.runs, { maxWrongLoad: 0.5, maxNeedlessLoad: 0.5 })).toEqual([
      'keyword: wrong load cannot be checked against --max-wrong-load: every call on a covered request failed (10 errors)',
      'keyword: needless load cannot be checked against --max-needless-load: every call on an uncovered request failed (10 errors)',
    ]);
    expect(rateGateReasons(m, r.runs, {})).toEqual([]);
    // Only the covered requests failed: the needless-load gate still has its data and passes.
    const half = results(10);
    half.runs[0]!.decisions.forEach((d, i) => {
      if (i < 10) Object.assign(d, { chosen: null, error: 'HTTP 500' });
    });
    const mh = half.runs.map((run) => computeMetrics(run, half.requests));
    expect(rateGateReasons(mh, half.runs, { maxNeedlessLoad: 0.5 })).toEqual([]);
    expect(rateGateReasons(mh, half.runs, { maxWrongLoad: 0.5 })).toHaveLength(1);
  });
});

describe('--threshold baseline', () => {
  function scored(): ResultsFile {
    const file = results(10);
    const decisions = file.runs[0]!.decisions;
    file.runs = [
      { selector: 'similarity', kind: 'score', provider: 'use', model: 'use-lite', threshold: { value: 0.42, source: 'optimistic' }, decisions },
      { selector: 'keyword', kind: 'score', threshold: { value: 0.17, source: 'optimistic' }, decisions },
      // A ceiling arm is a reference, never the baseline's own run.
      { selector: 'keyword', kind: 'score', ceiling: true, threshold: { value: 0.99, source: 'fixed' }, decisions },
    ];
    return file;
  }
  const use = { provider: 'use' };

  it('gives each score selector that runs the threshold its baseline run applied', () => {
    expect(baselineThresholds(scored(), 'b.json', ['model', 'similarity', 'keyword', 'explicit'], use)).toEqual({ similarity: 0.42, keyword: 0.17 });
    expect(baselineThresholds(scored(), 'b.json', ['keyword'], use)).toEqual({ keyword: 0.17 });
    expect(baselineThresholds(scored(), 'b.json', ['similarity'], { provider: 'use', model: 'use-lite' })).toEqual({ similarity: 0.42 });
  });
  it('names the file and the selector when the baseline cannot give a threshold', () => {
    const noKeyword = scored();
    noKeyword.runs = noKeyword.runs.filter((r) => r.selector !== 'keyword' || r.ceiling);
    expect(() => baselineThresholds(noKeyword, 'b.json', ['similarity', 'keyword'], use)).toThrow(/^b\.json: --threshold baseline: the baseline has no keyword run to take a threshold from \(it has similarity, keyword\)$/);
    const failed = scored();
    delete failed.runs[0]!.threshold;
    expect(() => baselineThresholds(failed, 'b.json', ['similarity'], use)).toThrow(/b\.json: .*the baseline's similarity run has no threshold/);
    expect(() => baselineThresholds(scored(), 'b.json', ['model', 'explicit'], use)).toThrow(/no score selector \(similarity, keyword\) runs/);
  });
  it('refuses a similarity threshold from another embedding model', () => {
    expect(() => baselineThresholds(scored(), 'b.json', ['similarity'], { provider: 'openai' })).toThrow(/b\.json: .*from use\/use-lite embeddings, this run uses openai\/default/);
    expect(() => baselineThresholds(scored(), 'b.json', ['similarity'], { provider: 'use', model: 'other' })).toThrow(UserError);
    // keyword has no embeddings: the embedding settings do not matter to it.
    expect(baselineThresholds(scored(), 'b.json', ['keyword'], { provider: 'openai' })).toEqual({ keyword: 0.17 });
  });
});
