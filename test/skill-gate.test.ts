// The per-skill baseline gate (a skill that lost most of its correct loads fails, unless noise explains the loss) and
// the A/A simulation that measures the gate's false-alarm rate (src/gate-simulation.ts, bench/gate-aa.bench.mjs).
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { binomialTail, compareToBaseline, DEFAULT_GATE } from '../src/gate.js';
import {
  drawChoice, empiricalChoices, majorityRight, noiseLevel, rightProbability, seededRandom, simulateGate, softmaxChoices,
} from '../src/gate-simulation.js';
import { loadCatalogue } from '../src/catalogue.js';
import { loadRequests } from '../src/requests.js';
import { rankByKeyword } from '../src/selectors/keyword.js';
import { chooseThreshold, scoredItem, topOf } from '../src/metrics.js';
import type { EvalRequest, ResultsFile } from '../src/types.js';

const root = path.resolve(__dirname, '..');

function choose(n: number, k: number): number {
  let out = 1;
  for (let i = 1; i <= k; i++) out = (out * (n - k + i)) / i;
  return out;
}

describe('binomial tail', () => {
  it('matches the sum of the pmf by hand', () => {
    for (const [n, p, k] of [[4, 0.1, 4], [10, 0.3, 3], [20, 0.05, 5], [6, 0.5, 0], [5, 0.2, 6]] as const) {
      let want = 0;
      for (let i = k; i <= n; i++) want += choose(n, i) * p ** i * (1 - p) ** (n - i);
      expect(binomialTail(n, p, k), `${n} ${p} ${k}`).toBeCloseTo(want, 12);
    }
    expect(binomialTail(4, 0, 1)).toBe(0);
    expect(binomialTail(4, 1, 4)).toBe(1);
  });
});

// Two skills' worth of covered requests plus uncovered ones; `correct` says which requests a run gets right.
const skills = ['A', 'B', 'C'];
const requests: EvalRequest[] = [
  ...skills.flatMap((s) => Array.from({ length: 6 }, (_, i) => ({ id: `${s}${i}`, text: `${s} request ${i}`, gold: s }))),
  ...Array.from({ length: 6 }, (_, i) => ({ id: `n${i}`, text: `nothing ${i}`, gold: null })),
];
function results(correct: (r: EvalRequest) => boolean): ResultsFile {
  return {
    schema: 'skillbench.results', version: 1, command: 'eval-trigger', createdAt: '', skillbenchVersion: '0', settings: {},
    catalogue: { source: 's', skills: skills.map((name) => ({ name, hash: 'h', category: '' })) },
    requests,
    runs: [{ selector: 'model', kind: 'decision', decisions: requests.map((r) => ({ requestId: r.id, run: 0, chosen: correct(r) ? r.gold : r.gold ? null : 'A' })) }],
  };
}
const all = results(() => true);

describe('per-skill gate', () => {
  it('fails a skill that lost most of its correct loads, naming it, when the global test passes', () => {
    // A loses 4 of its 6: 4 discordant pairs of 24 cannot reach p < 0.05 globally.
    const v = compareToBaseline(results((r) => !(r.gold === 'A' && Number(r.id[1]) < 4)), all, { ...DEFAULT_GATE, baselineFile: 'b.json' });
    expect(v.mcnemar![0]).toMatchObject({ better: 0, worse: 4 });
    expect(v.mcnemar![0]!.pValue).toBeGreaterThan(0.05);
    expect(v.passed).toBe(false);
    expect(v.reasons).toHaveLength(1);
    expect(v.reasons[0]).toMatch(/^model: skill A lost 4 of the 6 requests it loaded correctly in b\.json \(now right on 2 of its 6; lost 4, regained 0\)/);
    // noise: nothing lost elsewhere, (0 + 1/2) / (12 + 1); p = P(Binomial(6, noise) >= 4), by hand.
    const noise = 0.5 / 13;
    let p = 0;
    for (let i = 4; i <= 6; i++) p += choose(6, i) * noise ** i * (1 - noise) ** (6 - i);
    const a = v.skills!.find((l) => l.skill === 'A')!;
    expect(a).toMatchObject({ before: 6, after: 2, lost: 4, gained: 0, paired: 6, failed: true });
    expect(a.noise).toBeCloseTo(noise, 12);
    expect(a.pValue).toBeCloseTo(p, 12);
  });

  it('passes a skill that lost half or less, or lost less than --gate-min-requests, or when turned off', () => {
    expect(compareToBaseline(results((r) => !(r.gold === 'A' && Number(r.id[1]) < 3)), all).passed).toBe(true); // 3 of 6: not most
    expect(compareToBaseline(results((r) => !(r.id === 'A0')), all, { ...DEFAULT_GATE, minRequests: 2 }).passed).toBe(true); // 1 lost
    const dead = results((r) => r.gold !== 'A');
    expect(compareToBaseline(dead, all).passed).toBe(false);
    expect(compareToBaseline(dead, all, { ...DEFAULT_GATE, maxSkillLoss: 1 }).passed).toBe(false); // the global test: 6 of 24, p = 0.031
    const four = results((r) => !(r.gold === 'A' && Number(r.id[1]) < 4));
    expect(compareToBaseline(four, all, { ...DEFAULT_GATE, maxSkillLoss: 1 }).passed).toBe(true); // per-skill gate off
  });

  it('lets noise explain a loss when the other skills lose as much', () => {
    // Every skill loses 4 of 6 requests, and regains none: the run got worse everywhere, which the global test judges.
    const noisy = results((r) => !(r.gold !== null && Number(r.id[1]) < 4));
    const v = compareToBaseline(noisy, all, { ...DEFAULT_GATE, maxSkillLoss: 0.5 });
    expect(v.skills!.every((l) => !l.failed)).toBe(true);
    for (const l of v.skills!) expect(l.noise).toBeCloseTo((8 + 0.5) / (12 + 1), 12);
    expect(v.passed).toBe(false); // 12 of 24 worse: the global test fails it
    expect(v.reasons.every((r) => !r.includes(': skill '))).toBe(true);
  });
});

describe('A/A simulation', () => {
  it('draws choices with their probabilities, and a majority of runs as the gate counts it', () => {
    const dist = softmaxChoices([{ name: 'A', score: 0.6 }, { name: 'B', score: 0.5 }], 0.4, 0.1);
    expect(dist.reduce((s, o) => s + o.p, 0)).toBeCloseTo(1, 12);
    const e = [Math.exp(6), Math.exp(5), Math.exp(4)];
    expect(dist.map((o) => o.p)).toEqual(e.map((x) => expect.closeTo(x / (e[0]! + e[1]! + e[2]!), 12)));
    expect(dist.map((o) => o.choice)).toEqual(['A', 'B', null]);
    // A cold softmax is the thresholded selector.
    expect(softmaxChoices([{ name: 'A', score: 0.6 }, { name: 'B', score: 0.5 }], 0.4, 1e-4)[0]!.p).toBeCloseTo(1, 12);
    expect(softmaxChoices([{ name: 'A', score: 0.3 }], 0.4, 1e-4).find((o) => o.choice === null)!.p).toBeCloseTo(1, 12);
    const random = seededRandom(7);
    const counts = { A: 0, B: 0, none: 0 };
    for (let i = 0; i < 20000; i++) {
      const c = drawChoice(dist, random);
      counts[c === null ? 'none' : (c as 'A' | 'B')]++;
    }
    expect(counts.A / 20000).toBeCloseTo(dist[0]!.p, 1);
    // majority of 3: P(2 or 3 right), by hand
    expect(majorityRight(0.7, 3)).toBeCloseTo(3 * 0.49 * 0.3 + 0.343, 12);
    expect(majorityRight(0.7, 2)).toBeCloseTo(0.49, 12); // a tie is not a majority
    expect(rightProbability(dist, { id: 'x', text: 'x', gold: 'A' })).toBeCloseTo(dist[0]!.p, 12);
    expect(rightProbability(dist, { id: 'x', text: 'x', gold: null, target: 'B' })).toBeCloseTo(1 - dist[1]!.p, 12);
  });

  it('resamples the choices a results file recorded over its repeats', () => {
    const r = results(() => true);
    r.runs[0]!.decisions.push({ requestId: 'A0', run: 1, chosen: 'B' }, { requestId: 'A0', run: 2, chosen: 'A' }, { requestId: 'A1', run: 1, chosen: null, error: 'x' });
    const byId = empiricalChoices(r, 'model');
    expect(byId.get('A0')).toEqual([{ choice: 'A', p: 2 / 3 }, { choice: 'B', p: 1 / 3 }]);
    expect(byId.get('A1')).toEqual([{ choice: 'A', p: 1 }]);
  });

  it('never fails a deterministic selector, and fails a dead one every time', () => {
    const sure = requests.map((q) => [{ choice: q.gold, p: 1 }]);
    const aa = simulateGate({ requests, baseline: sure, runs: 1, trials: 50, seed: 1 });
    expect(aa.any.k).toBe(0);
    const deadA = requests.map((q) => [{ choice: q.gold === 'A' ? null : q.gold, p: 1 }]);
    const power = simulateGate({ requests, baseline: sure, current: deadA, runs: 1, trials: 50, seed: 1 });
    expect(power.perSkill.k).toBe(50);
    expect(power.skillFailures).toEqual({ A: 50 });
  });

  it('keeps false alarms at or under 5% for a noisy selector on the bundled catalogue, and still catches the dead skill', async () => {
    // The setting of docs/eval-trigger.md: keyword scores through a softmax at T = 0.01 (about 1 request in 6 changes
    // outcome between two runs). Fewer trials than the bench: the figure's interval is wider, the claim the same.
    const catalogue = await loadCatalogue(path.join(root, 'skills'));
    const rs = await loadRequests(path.join(root, 'requests.json'));
    const rankings = rankByKeyword(catalogue.skills, rs);
    const threshold = chooseThreshold(rs.map((r, i) => scoredItem(r, topOf(rankings[i]))))!;
    const base = rankings.map((r) => softmaxChoices(r, threshold, 0.01));
    expect(noiseLevel(rs, base, 1).discordance).toBeGreaterThan(0.1);
    const aa = simulateGate({ requests: rs, baseline: base, runs: 1, trials: 600, seed: 1 });
    expect(aa.any.rate!).toBeLessThanOrEqual(0.05);
    const dead = catalogue.skills.map((s) => (s.name === 'leave-balance-calculator' ? { ...s, description: 'Internal helper. Use when asked.' } : s));
    const current = rankByKeyword(dead, rs).map((r) => softmaxChoices(r, threshold, 0.01));
    const power = simulateGate({ requests: rs, baseline: base, current, runs: 1, trials: 300, seed: 2 });
    expect(power.perSkill.rate!).toBeGreaterThan(0.5);
    expect(Object.keys(power.skillFailures)).toContain('leave-balance-calculator');
  });
});
