import { describe, expect, it } from 'vitest';
import {
  candidateThresholds,
  chooseThreshold,
  computeMetrics,
  flaky,
  pessimisticRank,
  pointAt,
  separability,
  sweep,
  triggerRate,
  wilson,
  type ScoredItem,
} from '../src/metrics.js';
import type { Decision, EvalRequest, SelectorRun } from '../src/types.js';

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
