// Tokenisers of the fused selector's lexical signals, Unicode-aware (wink's tokenize0, which the keyword baseline
// keeps, drops every letter outside ASCII):
// - words: letters and digits, lower-cased, diacritics folded, English and French stop-words dropped, elisions
//   (l', qu', ...) and possessive 's cut, Porter2-stemmed; CJK runs become character unigrams and bigrams (they have
//   no spaces to split on);
// - character n-grams (3 to 5) of each word padded with a space on both sides, diacritics folded: they match
//   inflections the stemmer does not know (French plurals and conjugations) and any script.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Han, kana and Hangul: scripts written without spaces between words. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORD = /[\p{L}\p{N}]+(?:['’]\p{L}+)?/gu;
const RUN = /[\p{L}\p{N}]+/gu;

/** A small list: the words of French requests that carry no topic (English comes from wink's list). */
const FRENCH_STOP_WORDS =
  'au aux avec ce ces cet cette dans de des du elle elles en et eux il ils je la le les leur leurs lui ma mais me ' +
  'mes moi mon ne nos notre nous on ou où par pas pour qu que quel quelle qui sa se ses son sur ta te tes toi ton tu ' +
  'un une vos votre vous est sont suis es être ai as avons avez ont été ça ceci cela y a';

let stopWords: Set<string> | undefined;
let stemmer: ((word: string) => string) | undefined;

function stops(): Set<string> {
  stopWords ??= new Set([...(require('wink-nlp-utils/src/dictionaries/stop_words.json') as string[]), ...FRENCH_STOP_WORDS.split(' ').map(fold)]);
  return stopWords;
}

/** Stems already computed: a catalogue and its requests repeat the same words, and stemming is the slow part. */
const stems = new Map<string, string>();

/** Porter2 stem of one lower-case word (memoised). */
export function stem(word: string): string {
  // The stemmer alone: wink-nlp-utils' index also loads wink-nlp and its English model.
  stemmer ??= require('wink-nlp-utils/src/string-stem.js') as (w: string) => string;
  // The stemmer is quadratic in a word's length: a 100,000-letter "word" took minutes. Long words are kept whole.
  if (word.length > 64) return word;
  let out = stems.get(word);
  if (out === undefined) {
    out = stemmer(word);
    if (stems.size < 200_000) stems.set(word, out);
  }
  return out;
}

/** Lower case, compatibility forms unified (NFKC), diacritics removed: "Écris" -> "ecris". */
export function fold(text: string): string {
  return text.normalize('NFKC').normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

export function isCjk(text: string): boolean {
  return CJK.test(text);
}

/** Unigrams and bigrams of a run of CJK characters. */
function cjkGrams(run: string, out: string[]): void {
  const chars = [...run];
  chars.forEach((c, i) => {
    out.push(c);
    if (i + 1 < chars.length) out.push(c + chars[i + 1]);
  });
}

/** A skill name as words: `csv-data-profiler` -> "csv data profiler", `SummarizeAnything_pr` -> "Summarize Anything pr". */
export function nameWords(name: string): string {
  return name.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2').replace(/[-_.:/]+/g, ' ').trim();
}

/** The word tokens of a text (see the header). */
export function wordTokens(text: string): string[] {
  const out: string[] = [];
  const stop = stops();
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    const raw = match[0];
    if (isCjk(raw)) {
      for (const run of raw.matchAll(RUN)) cjkGrams(run[0], out);
      continue;
    }
    const word = fold(raw.replace(/^(?:qu|[cdjlmnst])['’]/, '').replace(/['’]s$/, ''));
    if (!word || stop.has(word)) continue;
    out.push(/^\p{N}+$/u.test(word) ? word : stem(word));
  }
  return out;
}

/** Character n-grams (lengths min..max) of each word of a text, words padded with a space; CJK as in wordTokens. */
export function charGrams(text: string, min = 3, max = 5): string[] {
  const out: string[] = [];
  for (const match of fold(text).matchAll(RUN)) {
    const word = match[0];
    if (isCjk(word)) {
      cjkGrams(word, out);
      continue;
    }
    const padded = ` ${word} `;
    if (!/[\uD800-\uDFFF]/.test(padded)) {
      // No surrogate pair: UTF-16 positions are characters, so plain slices are the n-grams (the fast path).
      for (let n = min; n <= max; n++) for (let i = 0; i + n <= padded.length; i++) out.push(padded.slice(i, i + n));
      continue;
    }
    const chars = [...padded];
    for (let n = min; n <= max; n++) {
      for (let i = 0; i + n <= chars.length; i++) out.push(chars.slice(i, i + n).join(''));
    }
  }
  return out;
}

/**
 * A description without its exclusions: sentences that start with "Not for", "Do not use", "Don't use" or "Never use"
 * list what the skill is NOT for, so their words are evidence against it, not for it. Returns the text kept and the
 * exclusions apart.
 */
export function splitExclusions(description: string): { kept: string; exclusions: string } {
  const sentences = description.split(/(?<=[.!?])\s+/);
  const isExclusion = (s: string) => /^(?:not for\b|do not use\b|don['’]t use\b|never use\b)/i.test(s.trim());
  return {
    kept: sentences.filter((s) => !isExclusion(s)).join(' ').trim(),
    exclusions: sentences.filter(isExclusion).join(' ').trim(),
  };
}
