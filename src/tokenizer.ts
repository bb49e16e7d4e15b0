// Offline token estimates. gpt-tokenizer's o200k_base is exact for OpenAI's o200k models and a fair estimate
// for others (Gemini and Claude tokenizers are not available offline at a reasonable size).
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

/** How the estimate is labelled wherever a figure is shown. */
export const TOKENIZER_NAME = 'o200k via gpt-tokenizer';

/**
 * Characters of one class in a row (letters, whitespace, or punctuation) from which a run is counted in pieces. Byte-
 * pair encoding costs the square of a pre-token's length, and the pre-tokenizer makes such a run a single pre-token:
 * 256 KiB of one letter took 40 s whole, and takes a fraction of a second in pieces. Words, numbers and indentation
 * of real text stay far below this, so their counts stay exact.
 */
export const LONG_RUN = 256;
const LONG_RUNS = new RegExp(`[\\p{L}\\p{M}]{${LONG_RUN},}|\\s{${LONG_RUN},}|[^\\s\\p{L}\\p{N}]{${LONG_RUN},}`, 'gu');

/** Token count of a text with the o200k encoding (special-token look-alikes counted as plain text). */
export function countTokens(text: string): number {
  return countInPieces(text, o200k);
}

function o200k(text: string): number {
  // Skill files are untrusted text: a literal "<|endoftext|>" must be counted, not rejected.
  return text === '' ? 0 : countO200k(text, { disallowedSpecial: new Set() });
}

/**
 * `count` applied to the text as it is when it holds no run of LONG_RUN characters of one class (the exact count);
 * else to the text between such runs and to each run in pieces of LONG_RUN characters. A run's count is then an
 * estimate: a token never spans two pieces (measured: within 1% on runs of one letter, one CJK character or spaces),
 * and the token before a run may split in two. Linear in the text's length.
 */
export function countInPieces(text: string, count: (piece: string) => number): number {
  if (text.length < LONG_RUN) return count(text);
  LONG_RUNS.lastIndex = 0;
  let total = 0;
  let last = 0;
  for (let m = LONG_RUNS.exec(text); m; m = LONG_RUNS.exec(text)) {
    if (m.index > last) total += count(text.slice(last, m.index));
    const run = m[0];
    for (let i = 0; i < run.length; ) {
      let end = Math.min(run.length, i + LONG_RUN);
      if (end < run.length && isHighSurrogate(run.charCodeAt(end - 1))) end--; // never split a character in two
      total += count(run.slice(i, end));
      i = end;
    }
    last = m.index + run.length;
  }
  if (last === 0) return count(text);
  if (last < text.length) total += count(text.slice(last));
  return total;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
