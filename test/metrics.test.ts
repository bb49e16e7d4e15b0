import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  candidateThresholds,
  chooseThreshold,
  clusteredWilson,
  computeMetrics,
  intraclassCorrelation,
  flaky,
  pessimisticRank,
  pointAt,
  separability,
  sweep,
  triggerRate,
  wilson,
  type ScoredItem,
} from '../src/metrics.js';
import { readResults, writeResults } from '../src/results.js';
import type { Decision, EvalRequest, Rate, ResultsFile, SelectorRun } from '../src/types.js';

const usage = (inputTokens: number) => ({ inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 3, thinkingTokens: 0 });

describe('wilson', () => {
  it('matches hand-computed 95% intervals', () => {
    // 3/4: p = .75, z^2 = 3.8415; centre = (.75 + .4802)/1.9604 = .6275; half = 1.96*sqrt(.046875 + .0600)/1.9604 = .3269
    const r = wilson(3, 4);
    expect(r.rate).toBe(0.75);
    expect(r.low).toBeCloseTo(0.3006, 3);
    expect(r.high).toBeCloseTo(0.9544, 3);
    // 0/10: [0, z^2/(n + z^2)] = [0, 3.8415/13.8415]
    const z = wilson(0, 10);
    expect(z.low).toBe(0);
    expect(z.high).toBeCloseTo(0.2775, 3);
    expect(wilson(10, 10).high).toBe(1);
    expect(wilson(10, 10).low).toBeCloseTo(0.7225, 3);
  });
  it('has no rate or interval for n = 0', () => {
    expect(wilson(0, 0)).toEqual({ k: 0, n: 0, rate: null, low: null, high: null });
  });
});

// Four covered requests (gold A, A, B, B), three uncovered.
const requests: EvalRequest[] = [
  { id: 'p1', text: 'one', gold: 'A' },
  { id: 'p2', text: 'two', gold: 'A' },
  { id: 'p3', text: 'three', gold: 'B' },
  { id: 'p4', text: 'four', gold: 'B' },
  { id: 'n1', text: 'five', gold: null },
  { id: 'n2', text: 'six', gold: null },
  { id: 'n3', text: 'seven', gold: null },
];

describe('computeMetrics on a decision selector', () => {
  const decisions: Decision[] = [
    { requestId: 'p1', run: 0, chosen: 'A', usage: usage(100), costUsd: 0.001 }, // right
    { requestId: 'p2', run: 0, chosen: 'B', usage: usage(200), costUsd: 0.002 }, // wrong skill
    { requestId: 'p3', run: 0, chosen: null, usage: usage(300), costUsd: 0.003 }, // nothing: wrong
    { requestId: 'p4', run: 0, chosen: null, rawChoice: 'Z', usage: usage(400) }, // outside the enum: wrong
    { requestId: 'n1', run: 0, chosen: null, usage: usage(500) }, // right
    { requestId: 'n2', run: 0, chosen: 'A', usage: usage(600) }, // needless
    { requestId: 'n3', run: 0, chosen: null, error: 'HTTP 500' }, // error: apart, never "none"
  ];
  const run: SelectorRun = { selector: 'model', kind: 'decision', decisions, extraCostUsd: 0.01 };
  const m = computeMetrics(run, requests);

  it('counts accuracy, wrong load and needless load with errors left out', () => {
    expect(m.decisions).toBe(7);
    expect(m.errors).toBe(1);
    expect([m.accuracy.k, m.accuracy.n]).toEqual([2, 6]);
    expect([m.wrongLoad.k, m.wrongLoad.n]).toEqual([3, 4]);
    expect([m.needlessLoad.k, m.needlessLoad.n]).toEqual([1, 2]);
    expect(m.wrongLoad.low).toBeCloseTo(0.3006, 3);
  });
  it('averages input tokens over decisions with usage and adds up dollars', () => {
    expect(m.meanInputTokens).toBe(350); // (100+...+600)/6
    expect(m.costUsd).toBeCloseTo(0.016, 10);
  });
  it('lists confusion pairs and failures, the error among them', () => {
    expect(m.confusion).toHaveLength(3);
    expect(m.confusion).toEqual(expect.arrayContaining([
      { gold: 'A', got: 'B', count: 1 },
      { gold: 'B', got: null, count: 1 },
      { gold: 'B', got: 'Z', count: 1 },
    ]));
    expect(m.failures.map((f) => f.requestId)).toEqual(['p2', 'p3', 'p4', 'n2', 'n3']);
    expect(m.failures.find((f) => f.requestId === 'n3')!.error).toBe('HTTP 500');
    expect(m.failures.find((f) => f.requestId === 'p4')!.got).toBe('Z');
    expect(m.separability).toBeUndefined();
    expect(m.recall).toBeUndefined();
    expect(m.flaky).toBeUndefined();
  });
});

// Top scores: a 0.9 (A, gold A), b 0.6 (A, gold A), c 0.7 (A, gold B: misranked), d 0.65 (uncovered), e 0.3 (uncovered)
const scored: ScoredItem[] = [
  { gold: 'A', top: { name: 'A', score: 0.9 } },
  { gold: 'A', top: { name: 'A', score: 0.6 } },
  { gold: 'B', top: { name: 'A', score: 0.7 } },
  { gold: null, top: { name: 'A', score: 0.65 } },
  { gold: null, top: { name: 'B', score: 0.3 } },
];

describe('threshold sweep and separability', () => {
  it('takes every midpoint between distinct top scores plus both ends', () => {
    const t = candidateThresholds(scored);
    expect(t.map((x) => Number(x.toFixed(4)))).toEqual([0.299, 0.45, 0.625, 0.675, 0.8, 0.901]);
  });
  it('computes wrong and needless load at each threshold (hand-worked)', () => {
    const points = sweep(scored);
    const rows = points.map((p) => [p.wrongLoad, p.needlessLoad]);
    expect(rows).toEqual([
      [1 / 3, 1], // everything loads: c wrong, d and e needless
      [1 / 3, 1 / 2], // e refused
      [2 / 3, 1 / 2], // b (0.6) refused too
      [2 / 3, 0], // d (0.65) refused
      [2 / 3, 0], // c refused (still wrong: nothing loaded)
      [1, 0], // nothing loads
    ]);
    expect(pointAt(scored, 0.675).mean).toBeCloseTo(1 / 3, 10);
  });
  it('chooses the lowest threshold of the best mean', () => {
    expect(chooseThreshold(scored)).toBeCloseTo(0.675, 10);
  });
  it('reports the weakest correct positive and the strongest negative', () => {
    const s = separability(scored);
    expect(s.lowestCorrectPositive).toBe(0.6);
    expect(s.highestNegative).toBe(0.65);
    expect(s.separable).toBe(false);
    expect(s.bestMean).toBeCloseTo(1 / 3, 10);
    const apart = separability([scored[0]!, scored[1]!, { gold: null, top: { name: 'B', score: 0.5 } }]);
    expect(apart.separable).toBe(true);
    expect(apart.bestThreshold).toBeCloseTo(0.55, 10);
    expect(apart.bestMean).toBe(0);
  });
});

describe('computeMetrics on a score selector', () => {
  const reqs: EvalRequest[] = [
    { id: 'a', text: 'a', gold: 'A' },
    { id: 'b', text: 'b', gold: 'A' },
    { id: 'c', text: 'c', gold: 'B' },
    { id: 'd', text: 'd', gold: null },
    { id: 'e', text: 'e', gold: null },
  ];
  const ranking = (top: string, s: number, other: string, s2: number) => [{ name: top, score: s }, { name: other, score: s2 }];
  const run: SelectorRun = {
    selector: 'similarity',
    kind: 'score',
    threshold: { value: 0.675, source: 'optimistic' },
    decisions: [
      { requestId: 'a', run: 0, chosen: 'A', scores: ranking('A', 0.9, 'B', 0.1) },
      { requestId: 'b', run: 0, chosen: null, scores: ranking('A', 0.6, 'B', 0.2) },
      { requestId: 'c', run: 0, chosen: 'A', scores: ranking('A', 0.7, 'B', 0.5) },
      { requestId: 'd', run: 0, chosen: null, scores: ranking('A', 0.65, 'B', 0.2) },
      { requestId: 'e', run: 0, chosen: null, scores: ranking('B', 0.3, 'A', 0.1) },
    ],
  };
  const m = computeMetrics(run, reqs);
  it('has separability, sweep and recall', () => {
    expect(m.separability!.lowestCorrectPositive).toBe(0.6);
    expect(m.separability!.sweep).toHaveLength(6);
    expect([m.recall!.top1.k, m.recall!.top1.n]).toEqual([2, 3]);
    expect([m.recall!.top3.k, m.recall!.top3.n]).toEqual([3, 3]);
    expect([m.wrongLoad.k, m.wrongLoad.n]).toEqual([2, 3]);
    expect(m.failures.find((f) => f.requestId === 'c')!.score).toBe(0.7);
  });
});

describe('repeated runs', () => {
  it('finds requests whose choice flips and their trigger rate', () => {
    const reqs: EvalRequest[] = [
      { id: 'x', text: 'x', gold: 'A' },
      { id: 'y', text: 'y', gold: null },
    ];
    const d = (requestId: string, run: number, chosen: string | null, error?: string): Decision => ({ requestId, run, chosen, ...(error ? { error } : {}) });
    const pairs = [d('x', 0, 'A'), d('x', 1, null), d('x', 2, 'A'), d('y', 0, null), d('y', 1, null), d('y', 2, null, 'timeout')];
    const run: SelectorRun = { selector: 'model', kind: 'decision', decisions: pairs };
    const m = computeMetrics(run, reqs);
    expect(m.flaky).toEqual([{ requestId: 'x', text: 'x', choices: ['A', null, 'A'] }]);
    expect(triggerRate(['A', null, 'A'], 'A')).toBeCloseTo(2 / 3, 10);
    expect([m.accuracy.k, m.accuracy.n]).toEqual([4, 5]);
    expect(flaky([])).toEqual([]);
  });
});

describe('ties in a ranking', () => {
  it('are no decision and no correct ranking: a tie is not broken by name', () => {
    const tied = [{ name: 'A', score: 0 }, { name: 'B', score: 0 }];
    const reqs: EvalRequest[] = [
      { id: 't', text: 't', gold: 'A' },
      { id: 'u', text: 'u', gold: 'B' },
    ];
    const run: SelectorRun = {
      selector: 'keyword',
      kind: 'score',
      decisions: [
        { requestId: 't', run: 0, chosen: null, scores: tied },
        { requestId: 'u', run: 0, chosen: 'B', scores: [{ name: 'B', score: 0.4 }, { name: 'A', score: 0.4 }, { name: 'C', score: 0.1 }] },
      ],
    };
    const m = computeMetrics(run, reqs);
    expect(m.recall!.top1.k).toBe(0);
    expect(m.recall!.top3.k).toBe(2); // both golds are within the first three, ties counted against them
    expect(m.separability!.lowestCorrectPositive).toBeNull();
    expect(m.separability!.sweep).toEqual([]); // no single top anywhere: nothing to threshold
  });
  it('push the gold out of the top 3 when three others score as high', () => {
    const four = ['B', 'C', 'D', 'A'].map((name) => ({ name, score: 0.5 })); // A sorted last among equals
    expect(pessimisticRank(four, 'A')).toBe(3);
    expect(pessimisticRank([{ name: 'B', score: 0.6 }, { name: 'A', score: 0.5 }, { name: 'C', score: 0.5 }], 'A')).toBe(2);
    expect(pessimisticRank(four, 'Z')).toBeNull();
    const run: SelectorRun = { selector: 'keyword', kind: 'score', decisions: [{ requestId: 't', run: 0, chosen: null, scores: four }] };
    const m = computeMetrics(run, [{ id: 't', text: 't', gold: 'A' }]);
    expect([m.recall!.top1.k, m.recall!.top3.k, m.recall!.top3.n]).toEqual([0, 0, 1]);
  });
});

// ---------------------------------------------------------------- repeats: the design effect of --runs N

/** The 95% Wilson bounds written out again, apart from src/metrics.ts: p and n may be non-integer. */
function wilsonBounds(p: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const centre = p + (z * z) / (2 * n);
  const half = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [(centre - half) / (1 + (z * z) / n), (centre + half) / (1 + (z * z) / n)];
}

/** The rates as computed before the design effect (one Wilson interval over every decision), for comparison. */
function legacyRates(run: SelectorRun, reqs: EvalRequest[]): { accuracy: Rate; wrongLoad: Rate; needlessLoad: Rate } {
  const gold = new Map(reqs.map((r) => [r.id, r.gold]));
  let [correct, n, covered, wrong, uncovered, needless] = [0, 0, 0, 0, 0, 0];
  for (const d of run.decisions) {
    if (d.error !== undefined || !gold.has(d.requestId)) continue;
    const g = gold.get(d.requestId)!;
    const ok = g === null ? d.chosen === null && !d.rawChoice : d.chosen === g;
    n++;
    if (ok) correct++;
    if (g !== null) {
      covered++;
      if (!ok) wrong++;
    } else {
      uncovered++;
      if (!ok) needless++;
    }
  }
  return { accuracy: wilson(correct, n), wrongLoad: wilson(wrong, covered), needlessLoad: wilson(needless, uncovered) };
}

const repeat = (decisions: Decision[], runs: number): Decision[] =>
  Array.from({ length: runs }, (_, run) => decisions.map((d) => ({ ...d, run }))).flat();

describe('repeated runs: Wilson intervals on the effective sample size (Kish design effect)', () => {
  // The first fixture above: 7 requests, one of them an error (left out of every denominator).
  const once: Decision[] = [
    { requestId: 'p1', run: 0, chosen: 'A' },
    { requestId: 'p2', run: 0, chosen: 'B' },
    { requestId: 'p3', run: 0, chosen: null },
    { requestId: 'p4', run: 0, chosen: null, rawChoice: 'Z' },
    { requestId: 'n1', run: 0, chosen: null },
    { requestId: 'n2', run: 0, chosen: 'A' },
    { requestId: 'n3', run: 0, chosen: null, error: 'HTTP 500' },
  ];

  it('(1) identical repeats (rho = 1) give exactly the single-run interval: n_eff = number of requests', () => {
    const single = computeMetrics({ selector: 'model', kind: 'decision', decisions: once }, requests);
    const thrice = computeMetrics({ selector: 'model', kind: 'decision', decisions: repeat(once, 3) }, requests);
    // accuracy 6/18 over 6 requests: m = 3, rho = 1, deff = 3, n_eff = 6, k_eff = 2: Wilson(2, 6).
    expect(thrice.accuracy).toEqual({ k: 6, n: 18, rate: 1 / 3, low: single.accuracy.low, high: single.accuracy.high, effectiveN: 6, designEffect: 3 });
    expect(thrice.wrongLoad).toEqual({ k: 9, n: 12, rate: 0.75, low: single.wrongLoad.low, high: single.wrongLoad.high, effectiveN: 4, designEffect: 3 });
    expect(thrice.needlessLoad).toEqual({ k: 3, n: 6, rate: 0.5, low: single.needlessLoad.low, high: single.needlessLoad.high, effectiveN: 2, designEffect: 3 });
    expect(thrice.errors).toBe(3);
    // ... whereas counting the 18 decisions as independent would have narrowed it:
    expect(wilson(6, 18).high! - wilson(6, 18).low!).toBeLessThan(thrice.accuracy.high! - thrice.accuracy.low! - 0.1);
  });

  it('(2) repeats that disagree at random within requests (rho < 0, clipped to 0): plain Wilson over every decision', () => {
    // 4 covered requests x 2 runs, correct: (1,0) (1,0) (1,0) (1,1). N = 8, a = 4, K = 5, grand mean 5/8.
    // sum k_i^2/n_i = 3 * 1/2 + 4/2 = 3.5; SSW = K - 3.5 = 1.5, MSW = 1.5 / (8 - 4) = 0.375;
    // SSB = 3.5 - 25/8 = 0.375, MSB = 0.375 / 3 = 0.125; n0 = 2 (balanced);
    // rho = (0.125 - 0.375) / (0.125 + 1 * 0.375) = -0.5 -> clipped to 0: deff = 1.
    const reqs: EvalRequest[] = ['a', 'b', 'c', 'd'].map((id) => ({ id, text: id, gold: 'A' }));
    const outcomes: Record<string, [boolean, boolean]> = { a: [true, false], b: [false, true], c: [true, false], d: [true, true] };
    const decisions: Decision[] = Object.entries(outcomes).flatMap(([requestId, runs]) =>
      runs.map((ok, run) => ({ requestId, run, chosen: ok ? 'A' : null })));
    expect(intraclassCorrelation([{ k: 1, n: 2 }, { k: 1, n: 2 }, { k: 1, n: 2 }, { k: 2, n: 2 }])).toBe(0);
    const m = computeMetrics({ selector: 'model', kind: 'decision', decisions }, reqs);
    expect(m.accuracy).toEqual({ ...wilson(5, 8), effectiveN: 8, designEffect: 1 });
    expect(m.wrongLoad).toEqual({ ...wilson(3, 8), effectiveN: 8, designEffect: 1 });
    expect(m.needlessLoad).toEqual(wilson(0, 0)); // no uncovered request: no rate, no extra field
  });

  it('(3) an intermediate correlation, balanced: rho = 7/16 by the one-way ANOVA, n_eff = 6.4', () => {
    // 4 covered requests x 3 runs, correct: a 1,1,1; b 1,1,0; c 0,0,0; d 1,0,0. N = 12, a = 4, K = 6, mean 1/2.
    // Request means 1, 2/3, 0, 1/3. SSB = 3 * (1/4 + 1/36 + 1/4 + 1/36) = 5/3, MSB = (5/3) / 3 = 5/9.
    // SSW = 0 + (2 * 1/9 + 4/9) + 0 + (4/9 + 2 * 1/9) = 4/3, MSW = (4/3) / (12 - 4) = 1/6. n0 = 3 (balanced).
    // rho = (5/9 - 1/6) / (5/9 + 2 * 1/6) = (7/18) / (16/18) = 7/16.
    // deff = 1 + (3 - 1) * 7/16 = 15/8; n_eff = 12 / (15/8) = 6.4; k_eff = 6 / (15/8) = 3.2 (= 0.5 * 6.4).
    const reqs: EvalRequest[] = ['a', 'b', 'c', 'd'].map((id) => ({ id, text: id, gold: 'A' }));
    const outcomes: Record<string, number[]> = { a: [1, 1, 1], b: [1, 1, 0], c: [0, 0, 0], d: [1, 0, 0] };
    const decisions: Decision[] = Object.entries(outcomes).flatMap(([requestId, runs]) =>
      runs.map((ok, run) => ({ requestId, run, chosen: ok ? 'A' : 'B' })));
    expect(intraclassCorrelation([{ k: 3, n: 3 }, { k: 2, n: 3 }, { k: 0, n: 3 }, { k: 1, n: 3 }])).toBeCloseTo(7 / 16, 12);
    const m = computeMetrics({ selector: 'model', kind: 'decision', decisions }, reqs);
    // Wilson on p = 0.5, n = 6.4: centre 0.5; half = z * sqrt(0.25/6.4 + z^2/163.84) / (1 + z^2/6.4)
    // = 1.96 * sqrt(0.0390625 + 0.0234467) / 1.6002 = 0.3062: [0.1938, 0.8062].
    const [low, high] = wilsonBounds(0.5, 6.4);
    expect(low).toBeCloseTo(0.1938, 4);
    expect(high).toBeCloseTo(0.8062, 4);
    for (const r of [m.accuracy, m.wrongLoad]) { // wrong load is 1 - correct here: the same rho
      expect([r.k, r.n, r.rate]).toEqual([6, 12, 0.5]);
      expect(r.designEffect).toBeCloseTo(15 / 8, 12);
      expect(r.effectiveN).toBeCloseTo(6.4, 9);
      expect(r.low).toBeCloseTo(low, 9);
      expect(r.high).toBeCloseTo(high, 9);
    }
    // Over the 12 decisions as if independent it was [0.2538, 0.7462]: narrower than the repeats support.
    expect(wilson(6, 12).low).toBeCloseTo(0.2538, 4);
  });

  it('(3b) an intermediate correlation, unbalanced by an error: rho = 32/53 with n0 = 21/8', () => {
    // 3 uncovered requests x 3 runs, needless load: u1 1,1,1; u2 0,0 (its third call failed); u3 1,0,0.
    // N = 8, a = 3, K = 4. sum k_i^2/n_i = 9/3 + 0 + 1/3 = 10/3.
    // SSW = K - 10/3 = 2/3, MSW = (2/3) / (8 - 3) = 2/15. SSB = 10/3 - 16/8 = 4/3, MSB = (4/3) / 2 = 2/3.
    // n0 = (N - sum n_i^2 / N) / (a - 1) = (8 - 22/8) / 2 = 21/8.
    // rho = (2/3 - 2/15) / (2/3 + (13/8) * (2/15)) = (8/15) / (53/60) = 32/53.
    // m = 8/3; deff = 1 + (5/3) * (32/53) = 319/159; n_eff = 8 * 159/319 = 1272/319 = 3.9875...; p = 1/2.
    const reqs: EvalRequest[] = ['u1', 'u2', 'u3'].map((id) => ({ id, text: id, gold: null }));
    const d = (requestId: string, run: number, chosen: string | null, error?: string): Decision => ({ requestId, run, chosen, ...(error ? { error } : {}) });
    const decisions = [
      d('u1', 0, 'A'), d('u1', 1, 'A'), d('u1', 2, 'B'),
      d('u2', 0, null), d('u2', 1, null), d('u2', 2, null, 'timeout'),
      d('u3', 0, 'A'), d('u3', 1, null), d('u3', 2, null),
    ];
    const m = computeMetrics({ selector: 'model', kind: 'decision', decisions }, reqs);
    expect(m.errors).toBe(1);
    const [low, high] = wilsonBounds(0.5, 1272 / 319);
    for (const r of [m.needlessLoad, m.accuracy]) {
      expect([r.k, r.n, r.rate]).toEqual([4, 8, 0.5]);
      expect(r.designEffect).toBeCloseTo(319 / 159, 12);
      expect(r.effectiveN).toBeCloseTo(1272 / 319, 9);
      expect(r.low).toBeCloseTo(low, 9);
      expect(r.high).toBeCloseTo(high, 9);
    }
    expect(m.wrongLoad).toEqual(wilson(0, 0));
  });

  it('(4) one decision per request: the same metrics as before, byte for byte, through a results file', async () => {
    const scoredRun: SelectorRun = {
      selector: 'keyword',
      kind: 'score',
      decisions: requests.map((r, i) => ({ requestId: r.id, run: 0, chosen: i % 3 ? 'A' : null, scores: [{ name: 'A', score: i / 10 }] })),
    };
    const file: ResultsFile = {
      schema: 'skillbench.results', version: 1, command: 'eval-trigger', createdAt: '', skillbenchVersion: '0', settings: {},
      catalogue: { source: 's', skills: [{ name: 'A', hash: 'h', category: '' }, { name: 'B', hash: 'h', category: '' }] },
      requests,
      runs: [{ selector: 'model', kind: 'decision', decisions: once }, scoredRun],
    };
    const path = join(mkdtempSync(join(tmpdir(), 'skillbench-metrics-')), 'results.json');
    await writeResults(path, file);
    const read = await readResults(path);
    for (const run of read.runs) {
      const m = computeMetrics(run, read.requests);
      const before = legacyRates(run, read.requests);
      expect(m.accuracy).toStrictEqual(before.accuracy);
      expect(m.wrongLoad).toStrictEqual(before.wrongLoad);
      expect(m.needlessLoad).toStrictEqual(before.needlessLoad);
      expect(JSON.stringify(m)).not.toMatch(/effectiveN|designEffect/);
    }
    expect(readFileSync(path, 'utf8')).not.toMatch(/effectiveN/);
    // The figures of the first fixture above, unchanged: wrong load 3/4 [0.3006, 0.9544].
    const m = computeMetrics(read.runs[0]!, read.requests);
    expect(m.wrongLoad.low).toBeCloseTo(0.3006, 3);
    expect(m.wrongLoad.high).toBeCloseTo(0.9544, 3);
    // And those of docs/eval-trigger.md (bundled demo, keyword): 9/24 [21.2-57.3], 2/6 [9.7-70.0].
    const pct = (r: Rate) => [(100 * r.low!).toFixed(1), (100 * r.high!).toFixed(1)];
    expect(pct(clusteredWilson(Array.from({ length: 24 }, (_, i) => ({ k: i < 9 ? 1 : 0, n: 1 }))))).toEqual(['21.2', '57.3']);
    expect(pct(clusteredWilson(Array.from({ length: 6 }, (_, i) => ({ k: i < 2 ? 1 : 0, n: 1 }))))).toEqual(['9.7', '70.0']);
  });

  it('edge cases: identical outcomes, a single request, nothing at all', () => {
    // Every outcome identical: ANOVA is 0/0; rho = 1, so repeating never narrows the interval (5 requests x 4 runs = Wilson(5, 5)).
    const allRight = Array.from({ length: 5 }, () => ({ k: 4, n: 4 }));
    expect(intraclassCorrelation(allRight)).toBe(1);
    expect(clusteredWilson(allRight)).toEqual({ ...wilson(5, 5), k: 20, n: 20, effectiveN: 5, designEffect: 4 });
    // One request repeated: no between-request variance to estimate; it counts once (rho = 1, n_eff = 1).
    const one = clusteredWilson([{ k: 3, n: 5 }]);
    expect([one.rate, one.effectiveN, one.designEffect]).toEqual([0.6, 1, 5]);
    const [low, high] = wilsonBounds(0.6, 1);
    expect(one.low).toBeCloseTo(low, 12);
    expect(one.high).toBeCloseTo(high, 12);
    // Some requests repeated, others not (e.g. an error): m is the mean, here 5/4 over (2/2, 0/1, 1/1, 0/1).
    // K = 3, N = 5, a = 4; sum k^2/n = 2 + 1 = 3 -> SSW = 0: rho = 1, deff = 1 + (1/4) = 5/4, n_eff = 4.
    expect(clusteredWilson([{ k: 2, n: 2 }, { k: 0, n: 1 }, { k: 1, n: 1 }, { k: 0, n: 1 }])).toEqual({ ...wilson(2.4, 4), k: 3, n: 5, rate: 0.6, effectiveN: 4, designEffect: 1.25 });
    expect(clusteredWilson([])).toStrictEqual(wilson(0, 0));
  });
});
