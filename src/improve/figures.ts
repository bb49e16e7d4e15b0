// The figures of an `improve` run: pure functions of the decisions and the split, like metrics.ts, so the loop
// (choosing) and every report format (showing) compute them the same way from the results file alone.
// - accuracy: the whole catalogue's accuracy on the part (metrics.ts `rates`): a request is right when the skill that
//   loaded is its gold one, or none loaded for a no-skill request; errors are counted apart;
// - hits: the skill's own requests that loaded it; false loads: the other requests that loaded it;
// - lost to: the skill's requests that loaded another skill (or none); took from: the gold of the requests it took.
import { isCorrect, loaded, rates, wilson } from '../metrics.js';
import { mcnemarExact } from '../gate.js';
import type { Decision, EvalRequest, ImproveCandidate, ImproveSummary, Rate, ResultsFile, SelectorRun } from '../types.js';

export type Part = 'train' | 'test';

export interface Count {
  /** A skill name, or null for "no skill". */
  skill: string | null;
  count: number;
}

export interface PartScore {
  accuracy: Rate;
  errors: number;
  hits: Rate;
  falseLoads: Rate;
  lostTo: Count[];
  tookFrom: Count[];
}

/** Decisions of a run on the requests of one part (run 0 only), each with its request. */
function pairsOf(run: SelectorRun, requests: Map<string, EvalRequest>, ids: string[]): { d: Decision; r: EvalRequest }[] {
  const wanted = new Set(ids);
  return run.decisions.filter((d) => d.run === 0 && wanted.has(d.requestId) && requests.has(d.requestId)).map((d) => ({ d, r: requests.get(d.requestId)! }));
}

function counts(values: (string | null)[]): Count[] {
  const m = new Map<string | null, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m].map(([skill, count]) => ({ skill, count })).sort((a, b) => b.count - a.count || String(a.skill).localeCompare(String(b.skill)));
}

export function partScore(run: SelectorRun, requests: Map<string, EvalRequest>, ids: string[], skill: string): PartScore {
  const pairs = pairsOf(run, requests, ids);
  const { accuracy, errors } = rates(pairs);
  const answered = pairs.filter(({ d }) => d.error === undefined);
  const own = answered.filter(({ r }) => r.gold === skill);
  const others = answered.filter(({ r }) => r.gold !== skill);
  const took = others.filter(({ d }) => loaded(d) === skill);
  return {
    accuracy,
    errors,
    hits: wilson(own.filter(({ d }) => d.chosen === skill).length, own.length),
    falseLoads: wilson(took.length, others.length),
    lostTo: counts(own.filter(({ d }) => d.chosen !== skill).map(({ d }) => loaded(d))),
    tookFrom: counts(took.map(({ r }) => r.gold)),
  };
}

/** A request whose outcome differs between two runs. */
export interface Flip {
  requestId: string;
  text: string;
  gold: string | null;
  before: string | null;
  after: string | null;
  /** fixed: wrong before, right now; broken: the reverse. */
  change: 'fixed' | 'broken';
}

/** Requests of a part that one run gets right and the other wrong (both answered), in request order. */
export function flips(run: SelectorRun, against: SelectorRun, requests: Map<string, EvalRequest>, ids: string[]): Flip[] {
  const before = new Map(pairsOf(against, requests, ids).map(({ d }) => [d.requestId, d]));
  const out: Flip[] = [];
  for (const { d, r } of pairsOf(run, requests, ids)) {
    const b = before.get(r.id);
    if (!b || b.error !== undefined || d.error !== undefined) continue;
    const was = isCorrect(b, r);
    const now = isCorrect(d, r);
    if (was !== now) out.push({ requestId: r.id, text: r.text, gold: r.gold, before: loaded(b), after: loaded(d), change: now ? 'fixed' : 'broken' });
  }
  return out;
}

/** Paired comparison on a part: requests better and worse with `run` than with `against`, exact McNemar p-value. */
export function pairedComparison(run: SelectorRun, against: SelectorRun, requests: Map<string, EvalRequest>, ids: string[]): { better: number; worse: number; pValue: number } {
  const f = flips(run, against, requests, ids);
  const better = f.filter((x) => x.change === 'fixed').length;
  const worse = f.length - better;
  return { better, worse, pValue: mcnemarExact(better, worse) };
}

/** A candidate's train and test scores, when it has a run (scored, or a duplicate of a scored one). */
export interface CandidateFigures {
  candidate: ImproveCandidate;
  run?: SelectorRun;
  train?: PartScore;
  test?: PartScore;
}

/** Every candidate of an improve results file with its figures, in the order they were proposed. */
export function candidateFigures(results: ResultsFile): CandidateFigures[] {
  return results.improve ? figuresOf(results.improve, results.requests, results.runs) : [];
}

/** The same, from the pieces of a run in progress. */
export function figuresOf(summary: Pick<ImproveSummary, 'candidates' | 'split' | 'skill'>, requestList: EvalRequest[], runList: SelectorRun[]): CandidateFigures[] {
  const requests = new Map(requestList.map((r) => [r.id, r]));
  const runs = new Map(runList.map((r) => [r.selector, r]));
  return summary.candidates.map((candidate) => {
    const run = runs.get(candidate.status === 'duplicate' && candidate.duplicateOf ? candidate.duplicateOf : candidate.id);
    if (!run || (candidate.status !== 'scored' && candidate.status !== 'duplicate')) return { candidate };
    return {
      candidate,
      run,
      train: partScore(run, requests, summary.split.train, summary.skill),
      test: partScore(run, requests, summary.split.test, summary.skill),
    };
  });
}

/** True when a candidate's runs answered every request of both parts (only those can be compared fairly). */
export function fullyScored(f: CandidateFigures): boolean {
  return Boolean(f.train && f.test && f.train.errors === 0 && f.test.errors === 0 && f.candidate.status === 'scored');
}

/**
 * The candidate to keep: the best test accuracy among the fully scored candidates; ties go to the better train
 * accuracy, then to the earlier candidate (the original first: a change needs evidence).
 */
export function bestOnTest(figures: CandidateFigures[]): CandidateFigures | undefined {
  let best: CandidateFigures | undefined;
  for (const f of figures.filter(fullyScored)) {
    if (!best) {
      best = f;
      continue;
    }
    const dt = (f.test!.accuracy.rate ?? 0) - (best.test!.accuracy.rate ?? 0);
    const dr = (f.train!.accuracy.rate ?? 0) - (best.train!.accuracy.rate ?? 0);
    if (dt > 1e-12 || (Math.abs(dt) <= 1e-12 && dr > 1e-12)) best = f;
  }
  return best;
}

/** The candidate the next iteration rewrites: the best train accuracy so far (the test part never steers the rewriter). */
export function bestOnTrain(figures: CandidateFigures[]): CandidateFigures | undefined {
  let best: CandidateFigures | undefined;
  for (const f of figures.filter(fullyScored)) {
    if (!best || (f.train!.accuracy.rate ?? 0) > (best.train!.accuracy.rate ?? 0) + 1e-12) best = f;
  }
  return best;
}

/** `lost 2 to hr-policy-qa; 1 missed (none loaded); took 1 from ticket-triage; loaded on 2 no-skill requests`, or ''. */
export function confusionText(score: PartScore): string {
  const parts: string[] = [];
  const lost = score.lostTo.filter((x) => x.skill !== null);
  const missed = score.lostTo.find((x) => x.skill === null)?.count ?? 0;
  const took = score.tookFrom.filter((x) => x.skill !== null);
  const needless = score.tookFrom.find((x) => x.skill === null)?.count ?? 0;
  if (lost.length) parts.push(`lost ${lost.map((x) => `${x.count} to ${x.skill}`).join(', ')}`);
  if (missed) parts.push(`${missed} missed (none loaded)`);
  if (took.length) parts.push(`took ${took.map((x) => `${x.count} from ${x.skill}`).join(', ')}`);
  if (needless) parts.push(`loaded on ${needless} no-skill request${needless === 1 ? '' : 's'}`);
  return parts.join('; ');
}
