// A worker thread that embeds texts with its own Universal Sentence Encoder lite (see use.ts): the wasm backend runs
// on one thread, so a large set is split between the main thread and workers to use more than one core.
// Messages: in {id, texts}; out {id, vectors} or {id, error}.
import { parentPort } from 'node:worker_threads';
import { loadUseModel } from './use.js';

parentPort!.on('message', async (msg: { id: number; texts: string[] }) => {
  try {
    const model = await loadUseModel();
    const vectors: number[][] = [];
    for (const text of msg.texts) vectors.push(Array.from(await model.embed(text)));
    parentPort!.postMessage({ id: msg.id, vectors });
  } catch (err) {
    parentPort!.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
