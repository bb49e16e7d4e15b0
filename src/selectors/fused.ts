// The fused selector: lexical and semantic evidence together, and "none" decided from evidence.
// Signals, for each request and skill (skill text: its name as words, then its description without the sentences
// that list what it is not for, see splitExclusions):
//   words   BM25 over word tokens (stemmed, stop-words dropped, any script)        weight 0.5
//   chars   BM25 over character 3-5-grams (French inflections, CJK)                 weight 0.25
//   cosine  embedding cosine of the request and "name: description"               weight 1
//   cosineDescription  embedding cosine of the request and the description alone (the similarity selector's vectors,
//           shared with it)                                                        weight 0.5
// Each signal is standardised over the catalogue for the request (z-score: its distance from the mean skill in standard
// deviations), and the ranking is the weighted sum. The weights were chosen on MetaTool's 995 extra positive requests
// (requests_selection_sample.json), not on the request sets the benchmarks report (docs/benchmarks.md).
// The semantic signals are left out for a request the embedding model cannot read (use: English only; see
// language.ts), and a skill whose description it cannot read counts as average for them. A skill with no evidence at
// all (no semantic signal and no word or n-gram in common) is not ranked: a score of zero is never a candidate.
// The decision: features of the top candidate (below) go into a logistic model fitted on labelled requests
// (decision.ts); the top skill loads when its probability reaches the fitted threshold.
import type { EmbeddingProvider, Lane, ScoredSkill, Skill, TextLanguage } from '../types.js';
import { createBm25Index, type Bm25Index } from '../text/bm25.js';
import { charGrams, nameWords, splitExclusions, wordTokens } from '../text/tokens.js';
import { useReads } from '../language.js';
import { dot, unit } from './similarity.js';
import { keepTop } from './index.js';

/** Requests embedded per call: the progress lane moves between calls, and each call is large enough for use to split it between threads. */
const CHUNK = 128;

export const FUSED_WEIGHTS = { words: 0.5, chars: 0.25, cosine: 1, cosineDescription: 0.5 } as const;
type Signal = keyof typeof FUSED_WEIGHTS;
const SIGNALS = Object.keys(FUSED_WEIGHTS) as Signal[];

/**
 * Features of a ranking's top candidate, in this order:
 * fused      its fused score
 * margin     fused score minus the second candidate's (0 without a second)
 * cosine, cosineDescription   its raw cosines (0 when the semantic signals are left out)
 * words, chars   its raw BM25 over the request's self-score (the share of the request's weight it matched)
 * agreement  share of the signals used whose own best skill is this one
 * length     ln(1 + the request's word tokens)
 * semantic   1 when the semantic signals were used
 * exclusion  BM25 of the request against its "Not for" sentences over the request's self-score (0 without them)
 */
export const FUSED_FEATURES = ['fused', 'margin', 'cosine', 'cosineDescription', 'words', 'chars', 'agreement', 'length', 'semantic', 'exclusion'] as const;

export interface FusedItem {
  /** Skills with some evidence, best first, the top `keep`. */
  ranking: ScoredSkill[];
  /** FUSED_FEATURES of the top candidate (zeros when the ranking is empty). */
  features: number[];
  /** Set when no signal could compare this request with the catalogue: the decision is an error row, not "none". */
  unreadable?: string;
  /** The cosine with every description (the similarity selector's scores), when the request was embedded. */
  descriptionCosines?: number[];
}

export interface FusedRankOptions {
  lane?: Lane;
  keep?: number;
  /** Language of each text (same order); without it every text counts as readable by the embedding model. */
  languages?: (TextLanguage | undefined)[];
  /** Each text's own candidate skills (a request's `candidates`), or undefined: the whole catalogue. */
  candidates?: (string[] | undefined)[];
}

export interface FusedRanker {
  rank(texts: string[], opts?: FusedRankOptions): Promise<FusedItem[]>;
}

/** The text each skill is matched on: its name as words, then its description without its exclusions. */
export function fusedDocument(skill: Skill): string {
  return `${nameWords(skill.name)}: ${splitExclusions(skill.description).kept}`;
}

/** z-scores of `values` over the indices in `over` (0 elsewhere, and 0 everywhere when they do not vary). */
export function standardise(values: ArrayLike<number>, over?: boolean[]): number[] {
  let n = 0;
  let sum = 0;
  for (let i = 0; i < values.length; i++) if (!over || over[i]) (n++, (sum += values[i]!));
  const mean = sum / (n || 1);
  let ss = 0;
  for (let i = 0; i < values.length; i++) if (!over || over[i]) ss += (values[i]! - mean) ** 2;
  const sd = Math.sqrt(ss / (n || 1));
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = sd > 0 && (!over || over[i]) ? (values[i]! - mean) / sd : 0;
  return out;
}

function argmax(values: ArrayLike<number>): number {
  let best = -1;
  for (let i = 0; i < values.length; i++) if (best < 0 || values[i]! > values[best]!) best = i;
  return best;
}

interface Indexes {
  words: Bm25Index;
  chars: Bm25Index;
  exclusions: Bm25Index;
  hasExclusions: boolean[];
  /** Scripts of the skill texts (Latin, Han, ...): a request in none of them can only be read semantically. */
  scripts: Set<string>;
}

function buildIndexes(skills: Skill[], skillLanguages?: Record<string, TextLanguage>): Indexes {
  const docs = skills.map(fusedDocument);
  const exclusions = skills.map((s) => splitExclusions(s.description).exclusions);
  const scripts = new Set(skills.map((s) => skillLanguages?.[s.name]?.script ?? 'Latin'));
  scripts.add('none');
  return {
    words: createBm25Index(docs.map(wordTokens)),
    chars: createBm25Index(docs.map((d) => charGrams(d))),
    exclusions: createBm25Index(exclusions.map(wordTokens)),
    hasExclusions: exclusions.map((e) => e.length > 0),
    scripts,
  };
}

export interface FusedRankerOptions {
  /** Languages of the descriptions, by skill name (from detectLanguages). */
  skillLanguages?: Record<string, TextLanguage>;
}

export async function createFusedRanker(embedder: EmbeddingProvider, skills: Skill[], opts: FusedRankerOptions = {}): Promise<FusedRanker> {
  const indexes = buildIndexes(skills, opts.skillLanguages);
  const englishOnly = embedder.id === 'use';
  const descReadable = skills.map((s) => !englishOnly || !opts.skillLanguages || useReads(opts.skillLanguages[s.name]!) !== 'no');
  const [named, plain] = (await Promise.all([
    embedder.embed(skills.map((s) => ({ text: fusedDocument(s), title: s.name })), 'document'),
    // The similarity selector's document vectors (same inputs, so the same cache entries).
    embedder.embed(skills.map((s) => ({ text: s.description, title: s.name })), 'document'),
  ])).map((vs) => vs.map(unit));
  return {
    async rank(texts, rankOpts = {}) {
      const keep = rankOpts.keep ?? keepTop(skills.length);
      const semanticFor = texts.map((_, i) => {
        const lang = rankOpts.languages?.[i];
        return !englishOnly || !lang || useReads(lang) === 'yes';
      });
      const out: FusedItem[] = [];
      // In chunks, so the progress lane moves while a large set is embedded.
      for (let start = 0; start < texts.length; start += CHUNK) {
        const idx = Array.from({ length: Math.min(CHUNK, texts.length - start) }, (_, k) => start + k);
        const toEmbed = idx.filter((i) => semanticFor[i]);
        const vectors = toEmbed.length ? await embedder.embed(toEmbed.map((i) => ({ text: texts[i]! })), 'query') : [];
        const byIndex = new Map(toEmbed.map((i, k) => [i, vectors[k]!]));
        for (const i of idx) {
          const vector = byIndex.get(i);
          const allowed = rankOpts.candidates?.[i];
          out.push(rankOne(texts[i]!, vector ? unit(vector) : null, {
            skills, indexes, named, plain, descReadable, language: rankOpts.languages?.[i],
            keep: allowed ? Math.max(keepTop(allowed.length), Math.min(keep, allowed.length)) : keep,
            ...(allowed ? { allowed: new Set(allowed) } : {}),
          }));
        }
        if (rankOpts.lane) rankOpts.lane.done += idx.length;
      }
      return out;
    },
  };
}

interface RankContext {
  skills: Skill[];
  indexes: Indexes;
  named: Float64Array[];
  plain: Float64Array[];
  descReadable: boolean[];
  keep: number;
  language?: TextLanguage;
  /** The request's own candidates: the ranking, and the features of its top, are among them only. */
  allowed?: Set<string>;
}

/** Ranks one request and computes the features of its top candidate. */
function rankOne(text: string, query: Float64Array | null, ctx: RankContext): FusedItem {
  const { skills, indexes } = ctx;
  const words = wordTokens(text);
  const grams = charGrams(text);
  const raw: Record<Signal, ArrayLike<number> | null> = {
    words: indexes.words.scores(words),
    chars: indexes.chars.scores(grams),
    cosine: query ? ctx.named.map((d, j) => (ctx.descReadable[j] ? dot(query, d) : 0)) : null,
    cosineDescription: query ? ctx.plain.map((d) => dot(query, d)) : null,
  };
  const descriptionCosines = raw.cosineDescription ? Array.from(raw.cosineDescription) : undefined;
  if (raw.cosineDescription) raw.cosineDescription = Array.from(raw.cosineDescription, (c, j) => (ctx.descReadable[j] ? c : 0));
  const used = SIGNALS.filter((s) => raw[s] !== null);
  const fused = new Array<number>(skills.length).fill(0);
  for (const s of used) {
    const z = standardise(raw[s]!, s === 'cosine' || s === 'cosineDescription' ? ctx.descReadable : undefined);
    z.forEach((x, j) => (fused[j]! += FUSED_WEIGHTS[s] * x));
  }
  const evidence = (j: number) => Boolean(query && ctx.descReadable[j]) || raw.words![j]! > 0 || raw.chars![j]! > 0;
  const ranked = skills
    .map((s, j) => ({ name: s.name, score: fused[j]!, j }))
    .filter((c) => evidence(c.j) && (!ctx.allowed || ctx.allowed.has(c.name)))
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  const item: FusedItem = {
    ranking: ranked.slice(0, ctx.keep).map(({ name, score }) => ({ name, score })),
    features: new Array<number>(FUSED_FEATURES.length).fill(0),
    descriptionCosines,
  };
  const script = ctx.language?.script;
  if (!query && script && !indexes.scripts.has(script)) {
    item.unreadable = `fused: the request is in ${script} script, no description is, and the embedding model cannot read it`;
    return item;
  }
  const top = ranked[0];
  if (!top) return item;
  const t = top.j;
  const selfWords = indexes.words.selfScore(words);
  const selfChars = indexes.chars.selfScore(grams);
  const selfExclusions = indexes.exclusions.selfScore(words);
  const agree = used.filter((s) => argmax(raw[s]!) === t).length / used.length;
  item.features = [
    top.score,
    ranked[1] ? top.score - ranked[1].score : 0,
    raw.cosine ? raw.cosine[t]! : 0,
    raw.cosineDescription ? raw.cosineDescription[t]! : 0,
    selfWords > 0 ? raw.words![t]! / selfWords : 0,
    selfChars > 0 ? raw.chars![t]! / selfChars : 0,
    agree,
    Math.log(1 + words.length),
    query ? 1 : 0,
    indexes.hasExclusions[t] && selfExclusions > 0 ? indexes.exclusions.scores(words)[t]! / selfExclusions : 0,
  ];
  return item;
}
