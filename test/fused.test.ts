// The fused selector's pieces, each checked against an independent computation written here: BM25 by its formula
// (no inverted index), the tokenisers, the z-scores, the fused ranking and its features with a deterministic
// embedder, and the logistic decision (its gradient is zero at the fit, by finite differences of the objective).
import { describe, expect, it } from 'vitest';
import { createBm25Index } from '../src/text/bm25.js';
import { charGrams, nameWords, splitExclusions, wordTokens } from '../src/text/tokens.js';
import { FUSED_FEATURES, FUSED_WEIGHTS, createFusedRanker, fusedDocument, standardise } from '../src/selectors/fused.js';
import { assignFolds, canCrossValidate, chooseProbability, crossValidate, fitLogistic, probability, sigmoid, solve, type DecisionExample } from '../src/selectors/decision.js';
import { sharedEmbedder } from '../src/selectors/index.js';
import { fusedRun, thresholdRun, foldPlan } from '../src/selectors/thresholds.js';
import { computeMetrics } from '../src/metrics.js';
import type { EmbeddingProvider, EvalRequest, Skill } from '../src/types.js';

function skill(name: string, description: string): Skill {
  return {
    name, description, body: '', category: '', file: `/cat/${name}/SKILL.md`, location: `${name}/SKILL.md`, hash: name.slice(0, 4),
    resources: [], state: 'available', toolProfiles: [], frontmatter: {},
  };
}

/** BM25 straight from the formula: every document, every query term, no index. */
function referenceBm25(docs: string[][], query: string[], k1 = 1.2, b = 0.75): number[] {
  const n = docs.length;
  const avgdl = docs.reduce((s, d) => s + d.length, 0) / n;
  const terms = [...new Set(query)];
  return docs.map((d) => {
    let score = 0;
    for (const t of terms) {
      const qtf = query.filter((x) => x === t).length;
      const df = docs.filter((x) => x.includes(t)).length;
      const tf = d.filter((x) => x === t).length;
      if (!tf) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (qtf * idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.length) / avgdl));
    }
    return score;
  });
}

describe('BM25 index', () => {
  const docs = [
    ['pdf', 'merg', 'split', 'pdf'],
    ['git', 'merg', 'conflict'],
    ['weather', 'forecast', 'citi', 'weather', 'weather'],
    [],
  ];
  it('gives the formula\'s scores for every document and query', () => {
    const index = createBm25Index(docs);
    for (const q of [['pdf'], ['merg'], ['merg', 'merg', 'pdf'], ['weather', 'citi', 'unknown'], ['nothing'], []]) {
      const got = Array.from(index.scores(q));
      const want = referenceBm25(docs, q);
      got.forEach((x, i) => expect(x, `${q.join(' ')} / doc ${i}`).toBeCloseTo(want[i]!, 12));
    }
    expect(index.selfScore(['pdf', 'unknown'])).toBeCloseTo(Math.log(1 + 3.5 / 1.5) + Math.log(1 + 4.5 / 0.5), 12);
  });
  it('never scores a document negatively, even for a word in every document', () => {
    const index = createBm25Index([['a', 'x'], ['a', 'y'], ['a']]);
    expect(Math.min(...index.scores(['a']))).toBeGreaterThan(0);
  });
});

describe('tokenisers', () => {
  it('words: lower case, accents folded, stop-words and elisions dropped, stemmed; CJK as unigrams and bigrams', () => {
    expect(wordTokens("Écris l'export des dépenses")).toEqual(['ecri', 'export', 'depens']);
    expect(wordTokens('The reports are running')).toEqual(['report', 'run']);
    expect(wordTokens('帮我查航班')).toEqual(['帮', '帮我', '我', '我查', '查', '查航', '航', '航班', '班']);
    expect(wordTokens('2 + 2 = 4')).toEqual(['2', '2', '4']);
  });
  it('character n-grams: 3 to 5 characters of each word padded with spaces', () => {
    const grams = charGrams('Congés');
    // " conges " has 8 characters: 6 trigrams, 5 four-grams, 4 five-grams.
    expect(grams).toHaveLength(15);
    expect(grams.slice(0, 3)).toEqual([' co', 'con', 'ong']);
    expect(grams).toContain('ges ');
    expect(charGrams('a b')).toEqual([' a ', ' b ']);
  });
  it('splits names into words and descriptions into what the skill is for and what it is not for', () => {
    expect(nameWords('csv-data-profiler')).toBe('csv data profiler');
    expect(nameWords('SummarizeAnything_pr')).toBe('Summarize Anything pr');
    expect(splitExclusions('Profiles CSV files. Use it for exports. Not for: charts or code. Do not use for SQL.')).toEqual({
      kept: 'Profiles CSV files. Use it for exports.',
      exclusions: 'Not for: charts or code. Do not use for SQL.',
    });
  });
  it('standardises to z-scores, over a subset when asked', () => {
    const z = standardise([1, 2, 3, 10], [true, true, true, false]);
    expect(z[0]).toBeCloseTo(-Math.sqrt(3 / 2), 12);
    expect(z[1]).toBeCloseTo(0, 12);
    expect(z[3]).toBe(0);
    expect(standardise([5, 5, 5])).toEqual([0, 0, 0]);
  });
});

/** A deterministic embedder: counts of the letters a-z (so cosines are easy to compute here), with its calls recorded. */
function letterEmbedder(id: EmbeddingProvider['id'] = 'use'): EmbeddingProvider & { calls: number } {
  const e = {
    id,
    model: 'letters',
    calls: 0,
    async embed(inputs: { text: string }[]) {
      e.calls++;
      return inputs.map((x) => letters(x.text));
    },
  };
  return e;
}
function letters(text: string): number[] {
  const v = new Array<number>(26).fill(0);
  for (const c of text.toLowerCase()) if (c >= 'a' && c <= 'z') v[c.charCodeAt(0) - 97]!++;
  return v;
}
function cos(a: number[], b: number[]): number {
  const d = a.reduce((s, x, i) => s + x * b[i]!, 0);
  const n = Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));
  return n ? d / n : 0;
}
function z(values: number[]): number[] {
  const mean = values.reduce((s, x) => s + x, 0) / values.length;
  const sd = Math.sqrt(values.reduce((s, x) => s + (x - mean) ** 2, 0) / values.length);
  return values.map((x) => (sd ? (x - mean) / sd : 0));
}

const catalogue = [
  skill('pdf-tools', 'Extract text and tables from PDF files, merge and split PDF documents. Not for: spreadsheets.'),
  skill('git-helper', 'Explain git errors, resolve merge conflicts and manage branches.'),
  skill('weather-report', 'Give the current weather and a five-day forecast for a city.'),
];

describe('fused ranking', () => {
  it('ranks by the weighted sum of z-scored signals, each computed independently here, with the top candidate\'s features', async () => {
    const embedder = letterEmbedder();
    const ranker = await createFusedRanker(embedder, catalogue);
    const text = 'merge two PDF files with spreadsheets';
    const [item] = await ranker.rank([text]);
    const docs = catalogue.map(fusedDocument);
    expect(docs[0]).toBe('pdf tools: Extract text and tables from PDF files, merge and split PDF documents.');
    const words = referenceBm25(docs.map(wordTokens), wordTokens(text));
    const chars = referenceBm25(docs.map((d) => charGrams(d)), charGrams(text));
    const named = docs.map((d) => cos(letters(text), letters(d)));
    const plain = catalogue.map((s) => cos(letters(text), letters(s.description)));
    const signals = [z(words), z(chars), z(named), z(plain)];
    const weights = [FUSED_WEIGHTS.words, FUSED_WEIGHTS.chars, FUSED_WEIGHTS.cosine, FUSED_WEIGHTS.cosineDescription];
    const fused = catalogue.map((_, j) => signals.reduce((s, sig, k) => s + weights[k]! * sig[j]!, 0));
    const order = [...fused.keys()].sort((a, b) => fused[b]! - fused[a]!);
    expect(item!.ranking.map((s) => s.name)).toEqual(order.map((j) => catalogue[j]!.name));
    item!.ranking.forEach((s, k) => expect(s.score).toBeCloseTo(fused[order[k]!]!, 9));

    const t = order[0]!;
    const f = Object.fromEntries(FUSED_FEATURES.map((name, k) => [name, item!.features[k]!]));
    expect(f.fused).toBeCloseTo(fused[t]!, 9);
    expect(f.margin).toBeCloseTo(fused[t]! - fused[order[1]!]!, 9);
    expect(f.cosine).toBeCloseTo(named[t]!, 9);
    expect(f.cosineDescription).toBeCloseTo(plain[t]!, 9);
    expect(f.words).toBeCloseTo(words[t]! / wordTokens(text).reduce((s, w) => s + Math.log(1 + (3 - docs.filter((d) => wordTokens(d).includes(w)).length + 0.5) / (docs.filter((d) => wordTokens(d).includes(w)).length + 0.5)), 0), 9);
    const tops = [words, chars, named, plain].map((sig) => sig.indexOf(Math.max(...sig)));
    expect(f.agreement).toBeCloseTo(tops.filter((x) => x === t).length / 4, 12);
    expect(f.length).toBeCloseTo(Math.log(1 + wordTokens(text).length), 12);
    expect(f.semantic).toBe(1);
    // pdf-tools is "Not for: spreadsheets" and the request asks for spreadsheets.
    expect(catalogue[t]!.name).toBe('pdf-tools');
    expect(f.exclusion).toBeGreaterThan(0);
  });

  it('leaves the semantic signals out for a request the embedding model cannot read, and ranks only skills with evidence', async () => {
    const embedder = letterEmbedder();
    const ranker = await createFusedRanker(embedder, catalogue);
    const before = embedder.calls;
    const [fr, zh, none] = await ranker.rank(['Fusionner deux fichiers PDF', '请合并两个文件', 'Zzyzx qwqw'], {
      languages: [{ language: 'fr', script: 'Latin' }, { language: 'zh', script: 'Han' }, { language: 'fr', script: 'Latin' }],
    });
    expect(embedder.calls).toBe(before); // none of them was embedded
    expect(fr!.ranking[0]!.name).toBe('pdf-tools'); // by words ("pdf") and n-grams alone
    expect(fr!.features[FUSED_FEATURES.indexOf('semantic')]).toBe(0);
    expect(fr!.features[FUSED_FEATURES.indexOf('cosine')]).toBe(0);
    expect(zh!.ranking).toEqual([]);
    expect(zh!.unreadable).toMatch(/Han script, no description is/);
    // Readable (Latin) but sharing no word or n-gram with any skill: no candidate at all, a real "none".
    expect(none!.ranking).toEqual([]);
    expect(none!.unreadable).toBeUndefined();
  });

  it('embeds each text once when fused and similarity share the embedder', async () => {
    const inner = letterEmbedder();
    const shared = sharedEmbedder(inner);
    const a = await shared.embed([{ text: 'x' }, { text: 'y' }, { text: 'x' }], 'query');
    const b = await shared.embed([{ text: 'y' }], 'query');
    expect(a).toEqual([letters('x'), letters('y'), letters('x')]);
    expect(b).toEqual([letters('y')]);
    expect(inner.calls).toBe(1);
    await shared.embed([{ text: 'y' }], 'document'); // another role is another vector
    expect(inner.calls).toBe(2);
  });
});

/** The objective fitLogistic minimises, written out: class-weighted log-loss plus (lambda/2) |w|^2 (no intercept). */
function objective(examples: DecisionExample[], beta: number[], mean: number[], sd: number[]): number {
  const used = examples.filter((e) => e.loadIsRight !== null && e.hasTop);
  const pos = used.filter((e) => e.loadIsRight).length;
  const neg = used.length - pos;
  let loss = 0;
  for (const e of used) {
    const x = e.features.map((v, k) => (v - mean[k]!) / sd[k]!);
    const p = sigmoid(beta[0]! + x.reduce((s, v, k) => s + v * beta[k + 1]!, 0));
    const w = e.loadIsRight ? used.length / (2 * pos) : used.length / (2 * neg);
    loss -= w * (e.loadIsRight ? Math.log(p) : Math.log(1 - p));
  }
  return loss + 0.5 * beta.slice(1).reduce((s, b) => s + b * b, 0);
}

function example(features: number[], kind: 'right' | 'needless' | 'wrong'): DecisionExample {
  return { features, loadIsRight: kind === 'right' ? true : kind === 'needless' ? false : null, covered: kind !== 'needless', topIsGold: kind === 'right', hasTop: true };
}

describe('the fitted "none" decision', () => {
  const data = [
    example([2.0, 0.9], 'right'), example([1.6, 0.2], 'right'), example([1.1, 0.8], 'right'), example([0.4, 0.1], 'right'),
    example([0.2, 0.3], 'needless'), example([1.3, 0.1], 'needless'), example([-0.5, 0.6], 'needless'),
    example([3.0, 3.0], 'wrong'), // a covered request whose top is wrong: left out of the fit
  ];
  it('minimises its objective: the gradient is zero (finite differences), and the wrong-top request is left out', () => {
    const fit = fitLogistic(data, ['a', 'b']);
    expect(fit.fittedOn).toEqual({ covered: 4, uncovered: 3 });
    const beta = [fit.intercept, ...fit.weights];
    const h = 1e-6;
    beta.forEach((_, k) => {
      const up = beta.map((b, i) => (i === k ? b + h : b));
      const down = beta.map((b, i) => (i === k ? b - h : b));
      const grad = (objective(data, up, fit.mean, fit.sd) - objective(data, down, fit.mean, fit.sd)) / (2 * h);
      expect(Math.abs(grad), `d/dbeta${k}`).toBeLessThan(1e-5);
    });
    // Standardised on the examples it used (not the left-out one).
    expect(fit.mean[0]).toBeCloseTo((2 + 1.6 + 1.1 + 0.4 + 0.2 + 1.3 - 0.5) / 7, 12);
    expect(probability(fit, [2.5, 1])).toBeGreaterThan(probability(fit, [-1, 0]));
  });
  it('with one class only, moves the intercept and no weight', () => {
    const fit = fitLogistic(data.filter((e) => e.loadIsRight !== false), ['a', 'b']);
    expect(fit.weights).toEqual([0, 0]);
    expect(probability(fit, [0, 0])).toBeGreaterThan(0.9);
  });
  it('chooses the probability with the lowest mean of wrong and needless load', () => {
    const fit = fitLogistic(data, ['a', 'b']);
    const threshold = chooseProbability(data, fit);
    const mean = (t: number) => {
      const covered = data.filter((e) => e.covered);
      const wrong = covered.filter((e) => !(e.topIsGold && probability(fit, e.features) >= t)).length / covered.length;
      const uncovered = data.filter((e) => !e.covered);
      const needless = uncovered.filter((e) => probability(fit, e.features) >= t).length / uncovered.length;
      return (wrong + needless) / 2;
    };
    for (const t of [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1]) expect(mean(threshold)).toBeLessThanOrEqual(mean(t) + 1e-12);
  });
  it('solves linear systems', () => {
    expect(solve([[2, 1], [1, 3]], [3, 5]).map((x) => +x.toFixed(12))).toEqual([0.8, 1.4]);
  });
});

describe('folds', () => {
  it('splits covered and uncovered requests apart, round-robin in file order', () => {
    expect(assignFolds([true, false, true, true, false, false, true], 2)).toEqual([0, 0, 1, 0, 1, 0, 1]);
    expect(canCrossValidate([true, false, true, false], 2)).toBe(true);
    expect(canCrossValidate([true, true, true, false], 2)).toBe(false);
  });
  it('decides each index with what was fitted on the other folds only', () => {
    const folds = [0, 1, 2, 0, 1, 2];
    const seen: number[][] = [];
    const out = crossValidate(folds, 3, (train) => {
      seen.push(train);
      return (i) => train.includes(i);
    });
    expect(out.every((x) => x === false)).toBe(true);
    expect(seen).toEqual([[1, 2, 4, 5], [0, 2, 3, 5], [0, 1, 3, 4]]);
  });
  it('plans 5 folds when every fold gets both classes, optimistic otherwise, and refuses an impossible --cv', () => {
    const reqs = (covered: number, uncovered: number): EvalRequest[] => [
      ...Array.from({ length: covered }, (_, i) => ({ id: `c${i}`, text: 'x', gold: 'a' })),
      ...Array.from({ length: uncovered }, (_, i) => ({ id: `u${i}`, text: 'x', gold: null })),
    ];
    expect(foldPlan(undefined, reqs(5, 5), 'r.json')).toEqual({ kind: 'cross-validated', folds: 5 });
    expect(foldPlan(undefined, reqs(9, 4), 'r.json')).toMatchObject({ kind: 'optimistic' });
    expect(foldPlan('off', reqs(9, 9), 'r.json')).toMatchObject({ kind: 'optimistic' });
    expect(() => foldPlan(3, reqs(9, 2), 'r.json')).toThrow(/--cv 3: r\.json has 9 covered, 2 uncovered requests/);
  });
});

describe('cross-validated runs', () => {
  const requests: EvalRequest[] = [
    { id: 'a', text: 'a', gold: 'x' }, { id: 'b', text: 'b', gold: null }, { id: 'c', text: 'c', gold: 'x' },
    { id: 'd', text: 'd', gold: null }, { id: 'e', text: 'e', gold: 'x' }, { id: 'f', text: 'f', gold: null },
  ];
  it('similarity/keyword: each request decided at the threshold chosen on the other fold', () => {
    // Fold 0 = a, b, e; fold 1 = c, d, f. Scores chosen so the two folds pick different thresholds.
    const top = [0.9, 0.2, 0.6, 0.5, 0.4, 0.7];
    const rankings = top.map((score) => [{ name: 'x', score }, { name: 'y', score: 0 }]);
    const run = thresholdRun('keyword', requests, rankings, { kind: 'cross-validated', folds: 2 });
    expect(run.threshold!.source).toBe('cross-validated');
    expect(run.threshold!.folds).toBe(2);
    // Folds: covered a, c, e -> 0, 1, 0; uncovered b, d, f -> 0, 1, 0.
    expect(run.decisions.map((d) => d.detail!.fold)).toEqual([0, 0, 1, 1, 0, 0]);
    for (const d of run.decisions) expect(d.chosen === 'x').toBe(d.scores![0]!.score >= (d.detail!.threshold as number));
    // Fold 0 is decided by fold 1 (c 0.6 right, d 0.5 needless): 0.55. Fold 1 by fold 0 (a 0.9 and e 0.4 right,
    // b 0.2 and f 0.7 needless): 0.3 and 0.8 both give a mean of 25%, ties go to the lowest.
    expect(run.decisions.find((d) => d.requestId === 'a')!.detail!.threshold).toBeCloseTo(0.55, 12);
    expect(run.decisions.find((d) => d.requestId === 'c')!.detail!.threshold).toBeCloseTo(0.3, 12);
    expect(run.decisions.map((d) => d.chosen)).toEqual(['x', null, 'x', 'x', null, 'x']);
  });
  it('fused: held-out probabilities, the fit on every request written out, errors for unreadable requests', () => {
    const items = requests.map((r, i) => ({
      ranking: [{ name: 'x', score: 1 + i }, { name: 'y', score: 0 }],
      features: FUSED_FEATURES.map((_, k) => (r.gold ? 1 : -1) * (k + 1) + i * 0.01),
    }));
    items[5] = { ...items[5]!, unreadable: 'fused: cannot read it' } as (typeof items)[number];
    const run = fusedRun(requests, items, { kind: 'cross-validated', folds: 2 });
    expect(run.fit!.features).toEqual([...FUSED_FEATURES]);
    expect(run.fit!.fittedOn).toEqual({ covered: 3, uncovered: 2 });
    expect(run.decisions[5]).toMatchObject({ error: 'fused: cannot read it', chosen: null });
    for (const d of run.decisions.slice(0, 5)) {
      expect(d.confidence).toBeGreaterThanOrEqual(0);
      expect(d.chosen === 'x').toBe(d.confidence! >= (d.detail!.threshold as number));
    }
    const m = computeMetrics(run, requests);
    expect(m.errors).toBe(1);
    expect(m.separability!.sweep.length).toBeGreaterThan(1); // swept on the confidences
  });
});
