// Offline token estimates. The o200k_base encoding is exact for OpenAI's o200k models and a fair estimate for
// others (Gemini and Claude tokenizers are not available offline at a reasonable size). tiktoken (OpenAI's
// tokenizer compiled to WebAssembly) is loaded with that one encoding only: its `lite` build carries no vocabulary.
import { createRequire } from 'node:module';

/** How the estimate is labelled wherever a figure is shown. */
export const TOKENIZER_NAME = 'o200k via tiktoken';

interface Encoder {
  encode_ordinary(text: string): Uint32Array;
}

let encoder: Encoder | undefined;

function o200k(): Encoder {
  if (encoder) return encoder;
  const require = createRequire(import.meta.url);
  const { Tiktoken } = require('tiktoken/lite') as { Tiktoken: new (ranks: string, special: Record<string, number>, pattern: string) => Encoder };
  const data = require('tiktoken/encoders/o200k_base.json') as { bpe_ranks: string; special_tokens: Record<string, number>; pat_str: string };
  // Kept for the life of the process: one vocabulary in WebAssembly memory, never freed.
  encoder = new Tiktoken(data.bpe_ranks, data.special_tokens, data.pat_str);
  return encoder;
}

/**
 * Characters of one class in a row (letters, whitespace, or punctuation) from which a run is counted in pieces. Byte-
 * pair encoding costs the square of a pre-token's length, and the pre-tokenizer makes such a run a single pre-token:
 * 256 KiB of one letter took 40 s whole, and takes a fraction of a second in pieces. Words, numbers and indentation
 * of real text stay far below this, so their counts stay exact.
 */
export const LONG_RUN = 256;
const LONG_RUNS = new RegExp(`[\\p{L}\\p{M}]{${LONG_RUN},}|\\s{${LONG_RUN},}|[^\\s\\p{L}\\p{N}]{${LONG_RUN},}`, 'gu');
/** Where such a run can be: LONG_RUN characters without a break in whitespace, or of whitespace. A plain class is
 *  several times faster to scan for than Unicode properties, and real text has no such stretch at all. */
const CANDIDATES = new RegExp(`\\S{${LONG_RUN},}|\\s{${LONG_RUN},}`, 'g');

/** Token count of a text with the o200k encoding (special-token look-alikes counted as plain text). */
export function countTokens(text: string): number {
  return countInPieces(text, countO200k);
}

function countO200k(text: string): number {
  // Skill files are untrusted text: a literal "<|endoftext|>" must be counted as the text it is, not rejected.
  return text === '' ? 0 : o200k().encode_ordinary(text).length;
}

/**
 * `count` applied to the text as it is when it holds no run of LONG_RUN characters of one class (the exact count);
 * else to the text between such runs and to each run in pieces of LONG_RUN characters. A run's count is then an
 * estimate: a token never spans two pieces (measured: within 1% on runs of one letter, one CJK character or spaces),
 * and the token before a run may split in two. Linear in the text's length.
 */
export function countInPieces(text: string, count: (piece: string) => number): number {
  if (text.length < LONG_RUN) return count(text);
  const runs = longRuns(text);
  if (runs.length === 0) return count(text);
  let total = 0;
  let last = 0;
  for (const [start, end] of runs) {
    if (start > last) total += count(text.slice(last, start));
    for (let i = start; i < end; ) {
      let to = Math.min(end, i + LONG_RUN);
      if (to < end && isHighSurrogate(text.charCodeAt(to - 1))) to--; // never split a character in two
      total += count(text.slice(i, to));
      i = to;
    }
    last = end;
  }
  if (last < text.length) total += count(text.slice(last));
  return total;
}

/** [start, end) of every run of LONG_RUN characters of one class, in order. */
function longRuns(text: string): [number, number][] {
  const out: [number, number][] = [];
  CANDIDATES.lastIndex = 0;
  for (let c = CANDIDATES.exec(text); c; c = CANDIDATES.exec(text)) {
    const stretch = c[0];
    LONG_RUNS.lastIndex = 0;
    for (let m = LONG_RUNS.exec(stretch); m; m = LONG_RUNS.exec(stretch)) out.push([c.index + m.index, c.index + m.index + m[0].length]);
  }
  return out;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
