// The train/test split of `improve`: the rewriter sees the train requests' failures, never the test requests.
// Stratified, so that both parts hold the skill's positives and each kind of request it must not take: near misses
// and off-topic requests (gold null, by kind) and every other skill's requests (by gold skill). Seeded, so that the
// same seed gives the same split on every machine (the seed is written to the results).
import type { EvalRequest } from '../types.js';
import { seededRandom } from '../random.js';
export { seededRandom };

export interface Split {
  seed: number;
  /** Share of each stratum held out for the test part (rounded per stratum). */
  holdout: number;
  train: string[];
  test: string[];
}

/** The stratum of a request for one skill: its positives, each other skill's requests, and no-skill requests by kind. */
export function stratumOf(r: EvalRequest, skill: string): string {
  if (r.gold === skill) return 'positive';
  if (r.gold !== null) return `other:${r.gold}`;
  return `none:${r.kind ?? 'unlabelled'}`;
}


/** How many of a stratum of n go to test: n × holdout rounded, at least one on each side when n >= 2. */
export function testCount(n: number, holdout: number): number {
  if (n < 2) return 0;
  return Math.min(n - 1, Math.max(1, Math.round(n * holdout)));
}

/**
 * Splits the requests per stratum (strata in name order, requests in file order, then shuffled with the seed). A
 * stratum of one request goes to train: the rewriter can learn from it; no test figure can rest on it alone.
 */
export function splitRequests(requests: EvalRequest[], skill: string, opts: { seed: number; holdout: number }): Split {
  const random = seededRandom(opts.seed);
  const strata = new Map<string, EvalRequest[]>();
  for (const r of requests) {
    const key = stratumOf(r, skill);
    strata.set(key, [...(strata.get(key) ?? []), r]);
  }
  const test = new Set<string>();
  for (const key of [...strata.keys()].sort()) {
    const members = [...strata.get(key)!];
    for (let i = members.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [members[i], members[j]] = [members[j]!, members[i]!];
    }
    for (const r of members.slice(0, testCount(members.length, opts.holdout))) test.add(r.id);
  }
  // Both lists in file order: the reports read like the request file.
  return {
    seed: opts.seed,
    holdout: opts.holdout,
    train: requests.filter((r) => !test.has(r.id)).map((r) => r.id),
    test: requests.filter((r) => test.has(r.id)).map((r) => r.id),
  };
}
