// Keyword scores with BM25 (wink-bm25-text-search): lower-case, tokenise (ASCII words only), drop stop-words, stem.
//
// Normalisation (why: raw BM25 grows with query length and corpus, so a fixed threshold would mean different things):
//   score = raw / sqrt(selfScore), where selfScore = sum over the query's tokens of idf(token) = the score of an
//   average-length document that contains every query token once (a token absent from every document counts with the
//   idf of df = 0). That is the share of the query matched (raw / selfScore) times sqrt(selfScore), the weight of the
//   evidence: a short request that matches one word ("What is 2 + 2?" matches "2") no longer scores as high as a long
//   request matched word for word. It does not saturate: the former min(1, raw / selfScore) gave 1.000 to many short
//   requests at once, which no threshold could tell apart. Matching nothing gives 0.
// wink refuses to consolidate fewer than 3 documents: smaller catalogues are padded with empty documents (they add to
// N in the idf, never appear in results).
import { createRequire } from 'node:module';
import type { ScoredSkill } from '../types.js';
import { stem } from '../text/tokens.js';

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
  // The five functions one by one: wink-nlp-utils' index also loads wink-nlp and its English model (a quarter of a
  // second), which none of these needs.
  const part = (file: string) => require(`wink-nlp-utils/src/${file}.js`) as Task;
  const nlp = {
    string: { lowerCase: part('string-lower-case'), removeExtraSpaces: part('string-remove-extra-spaces'), tokenize0: part('string-tokenize0') },
    // wink's tokens-stem maps Porter2 over the tokens; the same stemmer, memoised (stemming was a tenth of a run), and
    // not on very long words (the stemmer is quadratic in a word's length).
    tokens: { removeWords: part('tokens-remove-words'), stem: ((tokens: string[]) => tokens.map((t) => (t.length > MAX_STEMMED_WORD ? t : stem(t)))) as Task },
  };
  return [nlp.string.lowerCase, nlp.string.removeExtraSpaces, nlp.string.tokenize0, nlp.tokens.removeWords, nlp.tokens.stem];
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
          return { name, score: self > 0 && Number.isFinite(r) ? Math.max(0, r / Math.sqrt(self)) : 0 };
        })
        .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
  };
}
