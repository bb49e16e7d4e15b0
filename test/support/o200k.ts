// An independent o200k count for the tests: tiktoken's full build with its built-in vocabulary (get_encoding), not
// the lite build and vocabulary file that src/tokenizer.ts loads.
import { createRequire } from 'node:module';

const { get_encoding } = createRequire(import.meta.url)('tiktoken') as { get_encoding: (name: string) => { encode_ordinary(s: string): Uint32Array } };
const encoding = get_encoding('o200k_base');

export const o200k = (s: string): number => encoding.encode_ordinary(s).length;
