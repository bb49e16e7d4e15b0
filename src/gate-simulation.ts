// A/A simulation of the baseline gate: how often does it fail when nothing changed? Two runs of the same noisy
// selector on the same catalogue and requests are drawn, compared with the real gate (compareToBaseline), many times;
// the share that fails is the false-alarm rate, split into the global test and the per-skill gate. The same with a
// changed catalogue for the current run gives the detection rate (power).
//
// A noisy selector is a distribution over choices per request: either a softmax over a score selector's ranking with
// the threshold as the "load nothing" option (temperature -> 0 gives the deterministic thresholded selector back), or
// the choices a results file recorded over its repeats (--runs N), resampled. Seeded: a rerun gives the same figures.
import { compareToBaseline, DEFAULT_GATE, type BaselineGateOptions } from './gate.js';
import { isCorrect, wilson } from './metrics.js';
import type { Decision, EvalRequest, Rate, ResultsFile, ScoredSkill } from './types.js';

/** One request's choices (a skill name, or null for none) with their probabilities (summing to 1). */
export type ChoiceDistribution = { choice: string | null; p: number }[];

/** mulberry32: a small, fast, seeded generator of uniform numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A noisy score selector: P(skill) proportional to exp(score / T) over the ranking, P(none) to exp(threshold / T). At
 * T -> 0 it loads the top skill exactly when its score passes the threshold; higher T makes borderline requests flaky
 * (those whose top scores are close to each other or to the threshold), as a sampled model is.
 */
export function softmaxChoices(ranking: ScoredSkill[], threshold: number, temperature: number): ChoiceDistribution {
  const options: { choice: string | null; logit: number }[] = [...ranking.map((s) => ({ choice: s.name, logit: s.score })), { choice: null, logit: threshold }];
  const max = Math.max(...options.map((o) => o.logit));
  const weights = options.map((o) => Math.exp((o.logit - max) / temperature));
  const total = weights.reduce((a, b) => a + b, 0);
  return options.map((o, i) => ({ choice: o.choice, p: weights[i]! / total })).filter((o) => o.p > 0);
}

/** The choices a results file recorded for each request of one selector (every repeat, errors left out). */
export function empiricalChoices(results: ResultsFile, selector: string): Map<string, ChoiceDistribution> {
  const run = results.runs.find((r) => r.selector === selector);
  if (!run) throw new Error(`no ${selector} run in the results`);
  const counts = new Map<string, Map<string | null, number>>();
  for (const d of run.decisions) {
    if (d.error !== undefined) continue;
    const c = counts.get(d.requestId) ?? new Map<string | null, number>();
    const got = d.chosen ?? d.rawChoice ?? null;
    c.set(got, (c.get(got) ?? 0) + 1);
    counts.set(d.requestId, c);
  }
  const out = new Map<string, ChoiceDistribution>();
  for (const [id, c] of counts) {
    const n = [...c.values()].reduce((a, b) => a + b, 0);
    out.set(id, [...c].map(([choice, k]) => ({ choice, p: k / n })));
  }
  return out;
}

export function drawChoice(dist: ChoiceDistribution, random: () => number): string | null {
  let u = random();
  for (const o of dist) {
    u -= o.p;
    if (u < 0) return o.choice;
  }
  return dist[dist.length - 1]?.choice ?? null;
}

/** P(a request's outcome is right) under its distribution. */
export function rightProbability(dist: ChoiceDistribution, r: EvalRequest): number {
  return dist.reduce((sum, o) => sum + (isCorrect({ requestId: r.id, run: 0, chosen: o.choice }, r) ? o.p : 0), 0);
}

/** P(the majority of `runs` draws is right) given one draw is right with probability p (ties count as wrong, as the gate does). */
export function majorityRight(p: number, runs: number): number {
  let total = 0;
  for (let k = Math.floor(runs / 2) + 1; k <= runs; k++) total += choose(runs, k) * p ** k * (1 - p) ** (runs - k);
  return total;
}

function choose(n: number, k: number): number {
  let out = 1;
  for (let i = 1; i <= k; i++) out = (out * (n - k + i)) / i;
  return out;
}

export interface NoiseLevel {
  /** Expected share of requests whose outcome (right/wrong, majority of `runs`) differs between two A/A runs. */
  discordance: number;
  /** Requests right in fewer than 90% and more than 10% of single draws. */
  flaky: number;
}

export function noiseLevel(requests: EvalRequest[], dists: ChoiceDistribution[], runs: number): NoiseLevel {
  let discordance = 0;
  let flaky = 0;
  requests.forEach((r, i) => {
    const p1 = rightProbability(dists[i]!, r);
    const p = majorityRight(p1, runs);
    discordance += 2 * p * (1 - p);
    if (p1 > 0.1 && p1 < 0.9) flaky++;
  });
  return { discordance: discordance / requests.length, flaky };
}

export interface GateSimulationSpec {
  requests: EvalRequest[];
  /** Per request (in order): the baseline run's choice distribution. */
  baseline: ChoiceDistribution[];
  /** The current run's (default: the baseline's, an A/A run). */
  current?: ChoiceDistribution[];
  /** Repeats per run (--runs): the gate compares each request's majority outcome. */
  runs: number;
  trials: number;
  seed: number;
  gate?: BaselineGateOptions;
}

export interface GateSimulationOutcome {
  trials: number;
  /** Trials the gate failed: at all, by the global test, by the per-skill gate. */
  any: Rate;
  global: Rate;
  perSkill: Rate;
  /** How often each skill failed the per-skill gate. */
  skillFailures: Record<string, number>;
}

/** Runs `trials` pairs of runs through the real gate and counts the failures. */
export function simulateGate(spec: GateSimulationSpec): GateSimulationOutcome {
  const random = seededRandom(spec.seed);
  const gate = spec.gate ?? DEFAULT_GATE;
  let any = 0;
  let global = 0;
  let perSkill = 0;
  const skillFailures: Record<string, number> = {};
  for (let t = 0; t < spec.trials; t++) {
    const baseline = simulatedResults(spec.requests, spec.baseline, spec.runs, random);
    const current = simulatedResults(spec.requests, spec.current ?? spec.baseline, spec.runs, random);
    const verdict = compareToBaseline(current, baseline, gate);
    const failedSkills = (verdict.skills ?? []).filter((l) => l.failed);
    if (!verdict.passed) any++;
    if (failedSkills.length) perSkill++;
    // Every failed skill adds one reason; any other reason is the global test's (one selector here).
    if (verdict.reasons.length > failedSkills.length) global++;
    for (const l of failedSkills) skillFailures[l.skill] = (skillFailures[l.skill] ?? 0) + 1;
  }
  return { trials: spec.trials, any: wilson(any, spec.trials), global: wilson(global, spec.trials), perSkill: wilson(perSkill, spec.trials), skillFailures };
}

/** A results file holding one `noisy` run: `runs` draws per request. */
function simulatedResults(requests: EvalRequest[], dists: ChoiceDistribution[], runs: number, random: () => number): ResultsFile {
  const decisions: Decision[] = [];
  for (let run = 0; run < runs; run++) {
    requests.forEach((r, i) => decisions.push({ requestId: r.id, run, chosen: drawChoice(dists[i]!, random) }));
  }
  return {
    schema: 'skillbench.results',
    version: 1,
    command: 'eval-trigger',
    createdAt: '',
    skillbenchVersion: 'simulation',
    settings: {},
    catalogue: { source: 'simulation', skills: [] },
    requests,
    runs: [{ selector: 'noisy', kind: 'decision', decisions }],
  };
}
