// Keyword scores with BM25 (wink-bm25-text-search): lower-case, tokenise, drop stop-words, stem.
//
// Normalisation (why: raw BM25 grows with query length and corpus, so a fixed threshold would mean different things):
//   score = min(1, raw / selfScore), where selfScore = sum over the query's tokens of idf(token) = the score of an
//   average-length document that contains every query token once. A token absent from every document counts with the
//   idf of df = 0, so unmatched words in the query lower the score. Matching all of a query's words once, at average
//   length, gives 1; matching none gives 0.
// wink refuses to consolidate fewer than 3 documents: smaller catalogues are padded with empty documents (they add to
// N in the idf, never appear in results).
import { createRequire } from 'node:module';
import type { ScoredSkill } from '../types.js';

const require = createRequire(import.meta.url);

type Task = (x: unknown) => unknown;
interface Engine {
  defineConfig(cfg: unknown): void;
  definePrepTasks(tasks: Task[], field?: string): void;
  addDoc(doc: Record<string, string>, id: string): void;
  consolidate(fp?: number): void;
  search(text: string, limit?: number): [string, number][];
  getTokens(): Record<string, number>;
  getIDF(): number[];
  getTotalDocs(): number;
}

const K = 1; // wink's default idf constant: idf = ln((N - n + 0.5) / (n + 0.5) + K)
const PAD = '\u0000pad-';

export interface Bm25Index {
  score(query: string): ScoredSkill[];
}

/** Words longer than this are indexed as they are, not stemmed: the Porter stemmer's regular expressions take the
 *  square of a word's length (a 100,000-letter skill name took minutes); no word of a real language is this long. */
export const MAX_STEMMED_WORD = 64;

export function prepTasks(): Task[] {
  const nlp = require('wink-nlp-utils');
  const stem = (tokens: unknown) => (tokens as string[]).map((t) => (t.length > MAX_STEMMED_WORD ? t : (nlp.string.stem(t) as string)));
  return [nlp.string.lowerCase, nlp.string.removeExtraSpaces, nlp.string.tokenize0, nlp.tokens.removeWords, stem];
}

export function createBm25(docs: { name: string; text: string }[]): Bm25Index {
  const makeEngine = require('wink-bm25-text-search') as () => Engine;
  const engine = makeEngine();
  const tasks = prepTasks();
  engine.defineConfig({ fldWeights: { text: 1 } });
  engine.definePrepTasks(tasks);
  const names = [...new Set(docs.map((d) => d.name))];
  if (names.length !== docs.length) throw new Error('createBm25: duplicate document names');
  docs.forEach((d) => engine.addDoc({ text: d.text }, d.name));
  for (let i = docs.length; i < 3; i++) engine.addDoc({ text: '' }, `${PAD}${i}`);
  engine.consolidate();
  const token2Index = engine.getTokens();
  const idf = engine.getIDF();
  const n = engine.getTotalDocs();
  const unseenIdf = Math.log((n + 0.5) / 0.5 + K);
  const prepare = (text: string): string[] => tasks.reduce<unknown>((x, t) => t(x), text) as string[];

  return {
    score(query: string): ScoredSkill[] {
      const tokens = prepare(query);
      let self = 0;
      for (const t of tokens) {
        const i = Object.hasOwn(token2Index, t) ? token2Index[t] : undefined; // "constructor" is a word, not a key of Object
        self += i === undefined ? unseenIdf : idf[i]!;
      }
      const raw = new Map<string, number>(self > 0 ? engine.search(query, n) : []);
      return names
        .map((name) => {
          const r = raw.get(name) ?? 0;
          return { name, score: self > 0 && Number.isFinite(r) ? Math.min(1, Math.max(0, r / self)) : 0 };
        })
        .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
  };
}
