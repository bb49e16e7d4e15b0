// Offline token estimates. gpt-tokenizer's o200k_base is exact for OpenAI's o200k models and a fair estimate
// for others (Gemini and Claude tokenizers are not available offline at a reasonable size).
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

/** How the estimate is labelled wherever a figure is shown. */
export const TOKENIZER_NAME = 'o200k via gpt-tokenizer';

/** Token count of a text with the o200k encoding (special-token look-alikes counted as plain text). */
export function countTokens(text: string): number {
  if (text === '') return 0;
  // Skill files are untrusted text: a literal "<|endoftext|>" must be counted, not rejected.
  return countO200k(text, { disallowedSpecial: new Set() });
}
