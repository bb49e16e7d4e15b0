// The offline selectors of one eval-trigger run (fused, similarity, keyword), ranked once each, and the ranking hybrid
// shortlists from (--prefilter, default fused). fused and similarity share one embedder, so each text is embedded
// once. A request a selector cannot read is an error row of that selector (language.ts); a failed embedding provider
// makes the fused, similarity and (when it is their prefilter) hybrid runs all errors, not a crash.
import { ProviderError } from '../errors.js';
import type { EmbeddingProvider, EvalRequest, Lane, LanguageSummary, ScoredSkill, SelectorRun, Skill, TextLanguage } from '../types.js';
import { useReads } from '../language.js';
import type { Prefilter, SelectorName } from './index.js';
import { hasCandidates, keepTop, restrictRankings, sharedEmbedder } from './index.js';
import { fusedRun, thresholdRun, type RankingOrError, type ScoreSelector, type ThresholdPlan } from './thresholds.js';
import type { FusedItem } from './fused.js';

export interface OfflineContext {
  skills: Skill[];
  requests: EvalRequest[];
  calibration?: EvalRequest[];
  languages: LanguageSummary;
  /** Languages of the --calibrate requests (by id). */
  calibrationLanguages?: LanguageSummary['requests'];
  embedder: () => Promise<EmbeddingProvider>;
  lanes: Map<string, Lane>;
  plans: Partial<Record<ScoreSelector, ThresholdPlan>>;
  /** Candidates kept per ranking (at least hybrid's k). */
  keep: number;
  /** hybrid's shortlist source, when hybrid runs. */
  prefilter?: Prefilter;
}

export interface OfflineOutcome {
  runs: SelectorRun[];
  /** The prefilter's ranking of every request (errors where it could not rank), when hybrid runs. */
  prefilter?: RankingOrError[];
  /** Set when the embedding provider failed and hybrid's prefilter needs it. */
  prefilterError?: string;
}

/**
 * Requests with their own candidates (issue 12): every skill is ranked (catalogue-wide scores, so a threshold means
 * the same with and without candidates), then each ranking is cut to its request's candidates.
 */
function withCandidates(rankings: RankingOrError[], requests: EvalRequest[], keep: number | undefined): RankingOrError[] {
  if (!hasCandidates(requests)) return rankings;
  const cut = (count: number) => Math.max(keepTop(count), Math.min(keep ?? 0, count));
  return rankings.map((r, i) => (Array.isArray(r) ? restrictRankings([r], [requests[i]!], cut)[0]! : r));
}

/** The keep to rank with: every skill when some request has its own candidates (they are cut afterwards). */
function rankKeep(requests: EvalRequest[], keep: number | undefined, skills: number): number | undefined {
  return hasCandidates(requests) ? skills : keep;
}

function langs(requests: EvalRequest[], by: LanguageSummary['requests'] | undefined): (TextLanguage | undefined)[] {
  return requests.map((r) => by?.[r.id]);
}

export async function runOfflineSelectors(ctx: OfflineContext, selectors: SelectorName[]): Promise<OfflineOutcome> {
  const wants = (s: ScoreSelector) => selectors.includes(s) || ctx.prefilter === s;
  const out: OfflineOutcome = { runs: [] };
  const keep = (s: ScoreSelector) => (ctx.prefilter === s ? ctx.keep : undefined);
  if (wants('keyword')) {
    const { rankByKeyword, keywordUnreadable, KEYWORD_SCORING } = await import('./keyword.js');
    const rank = (requests: EvalRequest[], by: LanguageSummary['requests'] | undefined, lane?: Lane, k?: number): RankingOrError[] =>
      withCandidates(
        rankByKeyword(ctx.skills, requests, lane, rankKeep(requests, k, ctx.skills.length), by).map((r, i) => r ?? { error: keywordUnreadable(by?.[requests[i]!.id]) }),
        requests, k,
      );
    const rankings = rank(ctx.requests, ctx.languages.requests, ctx.lanes.get('keyword'), keep('keyword'));
    if (selectors.includes('keyword')) {
      const calibration = ctx.plans.keyword?.kind === 'calibrated' ? { requests: ctx.calibration!, rankings: rank(ctx.calibration!, ctx.calibrationLanguages) } : undefined;
      out.runs.push(thresholdRun('keyword', ctx.requests, rankings, ctx.plans.keyword!, calibration, { model: KEYWORD_SCORING }));
    }
    if (ctx.prefilter === 'keyword') out.prefilter = rankings;
  }
  if (wants('similarity') || wants('fused')) await runEmbedded(ctx, selectors, out);
  return out;
}

/** similarity and fused, which need the embedder. */
async function runEmbedded(ctx: OfflineContext, selectors: SelectorName[], out: OfflineOutcome): Promise<void> {
  let fusedItems: FusedItem[] | undefined;
  const embedder = sharedEmbedder(await ctx.embedder());
  const source = { provider: embedder.id, model: embedder.model };
  const wants = (s: ScoreSelector) => selectors.includes(s) || ctx.prefilter === s;
  try {
    if (wants('fused')) {
      const { createFusedRanker } = await import('./fused.js');
      const ranker = await createFusedRanker(embedder, ctx.skills, { skillLanguages: ctx.languages.skills });
      const rank = (requests: EvalRequest[], by: LanguageSummary['requests'] | undefined, lane?: Lane, keep?: number) =>
        ranker.rank(requests.map((r) => r.text), { lane, keep, languages: langs(requests, by), candidates: requests.map((r) => r.candidates) });
      const items = await rank(ctx.requests, ctx.languages.requests, ctx.lanes.get('fused'), ctx.prefilter === 'fused' ? ctx.keep : undefined);
      fusedItems = items;
      if (selectors.includes('fused')) {
        const plan = ctx.plans.fused!;
        const calibration = plan.kind === 'calibrated' ? { requests: ctx.calibration!, fused: await rank(ctx.calibration!, ctx.calibrationLanguages) } : undefined;
        out.runs.push(fusedRun(ctx.requests, items, plan, calibration, source));
      }
      if (ctx.prefilter === 'fused') out.prefilter = items.map(fusedRanking);
    }
    if (wants('similarity')) {
      const { createSimilarityRanker } = await import('./similarity.js');
      const ranker = await createSimilarityRanker(embedder, ctx.skills);
      const rank = async (requests: EvalRequest[], by: LanguageSummary['requests'] | undefined, lane?: Lane, keep?: number, fused?: FusedItem[]): Promise<RankingOrError[]> => {
        // Texts the embedding model cannot read are not embedded: their decisions are error rows.
        const unreadable = requests.map((r) => (embedder.id === 'use' && by?.[r.id] && useReads(by[r.id]!) === 'no' ? by[r.id]!.script : null));
        const readable = requests.flatMap((r, i) => (unreadable[i] === null ? [i] : []));
        // The cosines fused already computed with the same vectors are reused, not computed twice.
        const known = fused ? readable.map((i) => fused[i]!.descriptionCosines) : undefined;
        const ranked = await ranker.rank(readable.map((i) => requests[i]!.text), { lane, keep: rankKeep(requests, keep, ctx.skills.length), known });
        if (lane) lane.done += requests.length - readable.length;
        let k = 0;
        const all = unreadable.map((script) => (script === null ? ranked[k++]! : { error: `similarity: the embedding model (use) cannot read ${script} script` }));
        return withCandidates(all, requests, keep);
      };
      const rankings = await rank(ctx.requests, ctx.languages.requests, ctx.lanes.get('similarity'), ctx.prefilter === 'similarity' ? ctx.keep : undefined, fusedItems);
      if (selectors.includes('similarity')) {
        const plan = ctx.plans.similarity!;
        const calibration = plan.kind === 'calibrated' ? { requests: ctx.calibration!, rankings: await rank(ctx.calibration!, ctx.calibrationLanguages) } : undefined;
        out.runs.push(thresholdRun('similarity', ctx.requests, rankings, plan, calibration, source));
      }
      if (ctx.prefilter === 'similarity') out.prefilter = rankings;
    }
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    const error = `embeddings: ${err.message}`;
    for (const s of ['fused', 'similarity'] as const) {
      if (selectors.includes(s) && !out.runs.some((r) => r.selector === s)) {
        out.runs.push({ selector: s, kind: 'score', ...source, decisions: ctx.requests.map((r) => ({ requestId: r.id, run: 0, chosen: null, error })) });
      }
    }
    if (ctx.prefilter === 'fused' || ctx.prefilter === 'similarity') out.prefilterError = error;
  }
}

/** A fused item as hybrid's ranking: the ranked skills, or the error when no signal could read the request. */
function fusedRanking(item: FusedItem): ScoredSkill[] | { error: string } {
  return item.unreadable ? { error: item.unreadable } : item.ranking;
}
