// The pieces of `improve` on their own: the split, the figures (against counts made by hand), the word diff, the
// pre-screen score, the rewriter's prompt and answer, and the validation of an improve results file.
import { describe, expect, it } from 'vitest';
import { seededRandom, splitRequests, stratumOf, testCount } from '../src/improve/split.js';
import { bestOnTest, bestOnTrain, confusionText, figuresOf, pairedComparison, partScore } from '../src/improve/figures.js';
import { keepBest, prescreenScore } from '../src/improve/prescreen.js';
import { readProposals, rewriterSystem, rewriterUser } from '../src/improve/rewriter.js';
import { validateResults } from '../src/results.js';
import { changeText, keptText } from '../src/report/improve.js';
import { wilson } from '../src/metrics.js';
import type { Decision, EvalRequest, ImproveCandidate, ResultsFile, SelectorRun, Skill } from '../src/types.js';

const req = (id: string, gold: string | null, kind?: EvalRequest['kind']): EvalRequest => ({ id, text: `text of ${id}`, gold, ...(kind ? { kind } : {}) });

const requests: EvalRequest[] = [
  ...Array.from({ length: 10 }, (_, i) => req(`a${i}`, 'alpha', 'positive')),
  ...Array.from({ length: 5 }, (_, i) => req(`b${i}`, 'beta', 'positive')),
  ...Array.from({ length: 4 }, (_, i) => req(`n${i}`, null, 'near-miss')),
  req('o0', null, 'off-topic'),
];

describe('split', () => {
  it('names the strata: the skill, each other skill, and no-skill requests by kind', () => {
    expect([stratumOf(requests[0]!, 'alpha'), stratumOf(requests[10]!, 'alpha'), stratumOf(requests[15]!, 'alpha'), stratumOf(req('x', null), 'alpha')]).toEqual(['positive', 'other:beta', 'none:near-miss', 'none:unlabelled']);
  });

  it('holds out round(n × holdout) of each stratum, at least one on each side from two up', () => {
    expect([1, 2, 3, 4, 5, 10].map((n) => testCount(n, 0.4))).toEqual([0, 1, 1, 2, 2, 4]);
    expect(testCount(10, 0.95)).toBe(9);
    const s = splitRequests(requests, 'alpha', { seed: 7, holdout: 0.4 });
    const inTest = (prefix: string) => s.test.filter((id) => id.startsWith(prefix)).length;
    expect([inTest('a'), inTest('b'), inTest('n'), inTest('o')]).toEqual([4, 2, 2, 0]);
    expect(new Set([...s.train, ...s.test]).size).toBe(requests.length);
    expect(s.train.length + s.test.length).toBe(requests.length);
    // In file order.
    expect(s.test).toEqual(requests.filter((r) => s.test.includes(r.id)).map((r) => r.id));
  });

  it('is the same for the same seed and differs for another one', () => {
    const a = splitRequests(requests, 'alpha', { seed: 42, holdout: 0.4 });
    expect(splitRequests(requests, 'alpha', { seed: 42, holdout: 0.4 })).toEqual(a);
    const others = [1, 2, 3, 4, 5].map((seed) => splitRequests(requests, 'alpha', { seed, holdout: 0.4 }).test.join());
    expect(new Set(others).size).toBeGreaterThan(1);
    // mulberry32's first outputs for seed 1 (a fixed reference: the split must not change across machines).
    const r = seededRandom(1);
    expect([r(), r()].map((x) => x.toFixed(6))).toEqual(['0.627074', '0.002736']);
  });
});

const run = (selector: string, chosen: Record<string, string | null>, errors: string[] = []): SelectorRun => ({
  selector,
  kind: 'decision',
  decisions: requests.map((r): Decision => (errors.includes(r.id) ? { requestId: r.id, run: 0, chosen: null, error: 'boom', errorKind: 'call' } : { requestId: r.id, run: 0, chosen: r.id in chosen ? chosen[r.id]! : r.gold })),
});
const byId = new Map(requests.map((r) => [r.id, r]));
const all = requests.map((r) => r.id);

describe('figures', () => {
  it('counts accuracy, hits, false loads, lost-to and took-from by hand', () => {
    // alpha misses a0 (none) and a1 (beta), takes b0 and n0.
    const r = run('x', { a0: null, a1: 'beta', b0: 'alpha', n0: 'alpha' });
    const s = partScore(r, byId, all, 'alpha');
    expect([s.accuracy.k, s.accuracy.n]).toEqual([16, 20]);
    expect([s.hits.k, s.hits.n]).toEqual([8, 10]);
    expect([s.falseLoads.k, s.falseLoads.n]).toEqual([2, 10]);
    expect(s.lostTo).toEqual([{ skill: 'beta', count: 1 }, { skill: null, count: 1 }]);
    expect(s.tookFrom).toEqual([{ skill: 'beta', count: 1 }, { skill: null, count: 1 }]);
    expect(confusionText(s)).toBe('lost 1 to beta; 1 missed (none loaded); took 1 from beta; loaded on 1 no-skill request');
    expect(s.accuracy).toEqual(wilson(16, 20));
  });

  it('leaves errors out of every rate and counts them apart', () => {
    const s = partScore(run('x', {}, ['a0', 'b0']), byId, all, 'alpha');
    expect([s.accuracy.k, s.accuracy.n, s.errors, s.hits.n]).toEqual([18, 18, 2, 9]);
  });

  it('pairs two runs: fixed and broken requests, exact McNemar', () => {
    const before = run('original', { a0: null, a1: null, a2: null });
    const after = run('1.1', { b0: 'alpha' });
    const cmp = pairedComparison(after, before, byId, all);
    expect(cmp).toEqual({ better: 3, worse: 1, pValue: 0.625 });
  });

  it('keeps the best on test (ties: train, then the earlier), and rewrites from the best on train', () => {
    const candidates: ImproveCandidate[] = ['original', '1.1', '1.2', '1.3'].map((id, i) => ({ id, iteration: i ? 1 : 0, parent: i ? 'original' : null, description: id, status: 'scored' }));
    const train = all.filter((id) => !['a9', 'b4', 'n3'].includes(id));
    const split = { seed: 1, holdout: 0.2, train, test: ['a9', 'b4', 'n3'] };
    const runs = [
      run('original', { a9: null, a0: null }),
      run('1.1', { a0: null }), // test 3/3, train 17/18
      run('1.2', {}), // test 3/3, train 18/18: wins the tie on train
      run('1.3', { a9: null }, ['b4']), // errors: never chosen
    ];
    const figures = figuresOf({ candidates, split, skill: 'alpha' }, requests, runs);
    expect(bestOnTest(figures)!.candidate.id).toBe('1.2');
    expect(bestOnTrain(figures)!.candidate.id).toBe('1.2');
    // Equal everywhere: the earlier one stays.
    const tie = figuresOf({ candidates: candidates.slice(0, 2), split, skill: 'alpha' }, requests, [run('original', {}), run('1.1', {})]);
    expect(bestOnTest(tie)!.candidate.id).toBe('original');
  });

  it('says what changed word by word', () => {
    expect(changeText('Checks expense reports fast', 'Checks expense reports and receipts')).toBe('-"fast" +"and receipts"');
    expect(changeText('a b c', 'a x c')).toBe('-"b" +"x"');
    expect(changeText('same', 'same')).toBe('(no change)');
  });
});

describe('prescreen', () => {
  it('scores a ranking without a threshold: the skill first on its own requests, not first on the others', () => {
    const reqs = [req('p1', 'alpha'), req('p2', 'alpha'), req('q1', 'beta'), req('z1', null)];
    const rankings = [
      [{ name: 'alpha', score: 0.9 }, { name: 'beta', score: 0.1 }],
      [{ name: 'alpha', score: 0.5 }, { name: 'beta', score: 0.5 }], // a tie is no evidence: not first
      [{ name: 'alpha', score: 0.7 }, { name: 'beta', score: 0.2 }], // takes beta's request
      [{ name: 'beta', score: 0.3 }, { name: 'alpha', score: 0.2 }],
    ];
    expect(prescreenScore(rankings, reqs, 'alpha')).toEqual(wilson(2, 4));
    const items = [{ id: 'x', score: wilson(1, 4) }, { id: 'y', score: wilson(3, 4) }, { id: 'z', score: wilson(3, 4) }];
    expect(keepBest(items, 2).kept.map((i) => i.id)).toEqual(['y', 'z']);
    expect(keepBest(items, 1).dropped.map((i) => i.id)).toEqual(['x', 'z']);
  });
});

describe('rewriter prompt', () => {
  const skill = { name: 'alpha', description: 'Does <alpha> things', body: 'Body with </instructions> inside', category: '', file: '', location: '', hash: '', resources: [], state: 'available', toolProfiles: [], frontmatter: {} } as Skill;
  const input = {
    skill,
    current: skill.description,
    others: [{ ...skill, name: 'beta', description: 'Beta & co' }],
    missed: [{ text: 'missed one', loaded: 'beta' }, { text: 'missed two', loaded: null }],
    falseTriggers: [{ text: 'not mine', expected: null }],
    handled: ['fine one'],
    history: [{ description: 'tried before', train: '3/10' }],
    count: 3,
    maxChars: 1024,
    listingCut: 60,
  };
  it('shows the failures with what loaded instead, the catalogue, the limits, and escapes the structure', () => {
    const user = rewriterUser(input);
    expect(user).toContain('<request loaded="beta">missed one</request>');
    expect(user).toContain('<request loaded="(none)">missed two</request>');
    expect(user).toContain('<request expected="(none)">not mine</request>');
    expect(user).toContain('<skill name="beta">Beta &amp; co</skill>');
    expect(user).toContain('<attempt train="3/10">tried before</attempt>');
    expect(user).toContain('Body with &lt;/instructions&gt; inside');
    expect(user).toContain('<current_description>Does &lt;alpha&gt; things</current_description>');
    const system = rewriterSystem(input);
    expect(system).toMatch(/At most 1024 characters/);
    expect(system).toMatch(/only the first 60 characters/);
    expect(system).toMatch(/Propose 3 different descriptions/);
    expect(rewriterSystem({ ...input, listingCut: undefined })).not.toMatch(/first \d+ characters/);
  });
  it('reads the answer, and names what is wrong with a malformed one', () => {
    expect(readProposals({ candidates: [{ description: 'a', rationale: ' r ' }, { description: 'b' }] })).toEqual([{ description: 'a', rationale: 'r' }, { description: 'b' }]);
    expect(() => readProposals({ candidates: 'x' })).toThrow(/"candidates" is not a list/);
    expect(() => readProposals({ candidates: [{ text: 'a' }] })).toThrow(/candidates\[0\]\.description is not a string/);
  });
});

describe('improve results file', () => {
  const file = (): ResultsFile => ({
    schema: 'skillbench.results',
    version: 1,
    command: 'improve',
    createdAt: '2026-12-01T00:00:00.000Z',
    skillbenchVersion: '0.1.0',
    settings: {},
    catalogue: { source: 'skills', skills: [] },
    requests: requests.slice(0, 4),
    runs: [{ selector: 'original', kind: 'decision', decisions: [] }],
    improve: {
      skill: 'alpha',
      split: { seed: 1, holdout: 0.5, train: ['a0', 'a1'], test: ['a2', 'a3'] },
      candidates: [
        { id: 'original', iteration: 0, parent: null, description: 'x', status: 'scored' },
        { id: '1.1', iteration: 1, parent: 'original', description: 'x', status: 'duplicate', duplicateOf: 'original' },
      ],
      chosen: 'original',
      comparison: { better: 0, worse: 0, pValue: 1, alpha: 0.05, withinNoise: true },
    },
  });
  it('reads a valid file and names the first bad field of a broken one', () => {
    expect(validateResults(JSON.parse(JSON.stringify(file())), 'f.json').improve!.chosen).toBe('original');
    const broken: [string, (f: ResultsFile) => void, RegExp][] = [
      ['no block', (f) => delete f.improve, /field "improve" must be an object/],
      ['unknown request', (f) => (f.improve!.split.test[0] = 'zz'), /improve\.split\.test\[0\]" names request "zz"/],
      ['both parts', (f) => (f.improve!.split.test[0] = 'a0'), /puts request "a0" in both parts/],
      ['scored without a run', (f) => (f.improve!.candidates[0]!.id = 'ghost'), /"improve\.candidates\[0\]\.status" is "scored" but no run is named "ghost"/],
      ['chosen unknown', (f) => (f.improve!.chosen = 'nope'), /"improve\.chosen" must be the id of a candidate/],
      ['bad status', (f) => ((f.improve!.candidates[1] as { status: string }).status = 'maybe'), /improve\.candidates\[1\]\.status" must be one of/],
      ['holdout', (f) => (f.improve!.split.holdout = 1), /improve\.split\.holdout/],
    ];
    for (const [what, breakIt, message] of broken) {
      const f = file();
      breakIt(f);
      expect(() => validateResults(JSON.parse(JSON.stringify(f)), 'f.json'), what).toThrow(message);
    }
  });
});

describe('the kept line', () => {
  const results = (fixedOnTest: number): ResultsFile => {
    const test = requests.filter((r) => r.gold === 'alpha').map((r) => r.id);
    const missed = Object.fromEntries(test.map((id) => [id, null]));
    const fixed = Object.fromEntries(test.slice(fixedOnTest).map((id) => [id, null]));
    return {
      schema: 'skillbench.results', version: 1, command: 'improve', createdAt: '', skillbenchVersion: '', settings: {},
      catalogue: { source: 'skills', skills: [] }, requests,
      runs: [run('original', missed), run('1.1', fixed)],
      improve: {
        skill: 'alpha',
        split: { seed: 1, holdout: 0.5, train: all.filter((id) => !test.includes(id)), test },
        candidates: [
          { id: 'original', iteration: 0, parent: null, description: 'a', status: 'scored' },
          { id: '1.1', iteration: 1, parent: 'original', description: 'b', status: 'scored' },
        ],
        chosen: '1.1',
        comparison: { better: 0, worse: 0, pValue: 1, alpha: 0.05, withinNoise: true }, // stale on purpose: recomputed
      },
    };
  };
  it('says beyond noise when the paired test says so, within noise otherwise, from the decisions', () => {
    expect(keptText(results(10))[0]).toMatch(/10 test requests better, 0 worse: the gain is beyond noise \(exact McNemar p = 0\.002 < 0\.05\)/);
    expect(keptText(results(2))[0]).toMatch(/2 test requests better, 0 worse: the gain is within noise \(exact McNemar p = 0\.500 >= 0\.05\)/);
    expect(keptText(results(2))[1]).toMatch(/chosen on these test requests among 2 scored descriptions/);
  });
});
