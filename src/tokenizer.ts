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

/** Token count of a text with the o200k encoding (special-token look-alikes counted as plain text). */
export function countTokens(text: string): number {
  if (text === '') return 0;
  // Skill files are untrusted text: a literal "<|endoftext|>" must be counted as the text it is, not rejected.
  return o200k().encode_ordinary(text).length;
}
