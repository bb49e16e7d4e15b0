// The embedding provider of --embeddings (default `use`, offline), with vectors cached on disk by model and text
// hash: an unchanged catalogue is not embedded again. --cache-only: a vector missing for a remote provider throws
// CacheMissError (`use` computes it: no network, no cost).
import { toFloat32, vectorKey, VectorStore } from '../embedding-store.js';
import { UserError } from '../errors.js';
import type { ProviderOptions } from '../options.js';
import { baseUrlFrom, defaultEmbeddingModel, KEY_VARS, keyFrom, keyOptional, loadEmbeddingProvider, LOCAL_PLACEHOLDER_KEY, type EmbeddingId } from '../providers/index.js';
import { registerSecret, registerUrlSecrets } from '../secrets.js';
import type { EmbeddingInput, EmbeddingProvider, EmbeddingRole } from '../types.js';
import { cacheModes } from './cache-modes.js';
import { CacheMissError, DryRunError } from './errors.js';
import { retryPolicy, withRetries } from './retry.js';
import type { ClientTuning } from './types.js';

export interface Embedder extends EmbeddingProvider {
  /** Vectors taken from the disk cache / computed / missing (--cache-only or --dry-run, remote providers), since creation. */
  stats(): { cached: number; computed: number; misses: number };
  /** Problems with the vector cache (a segment that cannot be read or written): vectors are recomputed, never lost. */
  warnings(): string[];
}

/** Texts embedded between two writes of the vector cache: the offline model does about 40-60 a second. */
const USE_WRITE_CHUNK = 16;
/** The same for remote providers (each chunk is one or a few API calls). */
const REMOTE_WRITE_CHUNK = 100;

/** The embedding provider of --embeddings (default `use`, offline), with vectors cached on disk by model and text
 * hash: an unchanged catalogue is not embedded again. --cache-only: a vector missing for a remote provider throws
 * CacheMissError (`use` computes it: no network, no cost). */
export async function createEmbedder(opts: ProviderOptions, tuning: ClientTuning = {}): Promise<Embedder> {
  const env = tuning.env ?? process.env;
  const id = (opts.embeddings ?? 'use') as EmbeddingId;
  if (!['use', 'gemini', 'openai'].includes(id)) throw new UserError(`--embeddings: unknown provider "${id}"`, 'use one of use, gemini, openai');
  const model = opts.embeddingModel ?? defaultEmbeddingModel(id);
  const policy = retryPolicy(tuning, env);
  let pc = { apiKey: '', baseUrl: undefined as string | undefined, model, timeoutMs: Math.round((opts.timeout || 60) * 1000) };
  if (id !== 'use') {
    // --base-url is for the embedder when it is the same provider as --provider, or no --provider is given.
    const explicit = !opts.provider || opts.provider === id ? opts.baseUrl : undefined;
    const baseUrl = baseUrlFrom(id, explicit, env);
    const key = keyFrom(id, env).value ?? (keyOptional(id, baseUrl) ? LOCAL_PLACEHOLDER_KEY : undefined);
    registerSecret(key);
    registerUrlSecrets(baseUrl);
    if (!key && !opts.cacheOnly && !opts.dryRun) {
      throw new UserError(`no API key for ${id} embeddings: ${KEY_VARS[id][0]} is not set`, `export ${KEY_VARS[id][0]}=..., use --embeddings use (offline), or --cache-only`);
    }
    pc = { ...pc, apiKey: key ?? '', baseUrl };
  }
  const cacheDir = opts.cacheDir ?? '.skillbench/cache';
  const modes = cacheModes(opts);
  const store = VectorStore.for(cacheDir, id, model);
  let inner: Promise<EmbeddingProvider> | null = null;
  const counts = { cached: 0, computed: 0, misses: 0 };

  return {
    id,
    model,
    stats: () => ({ ...counts }),
    async embed(inputs: EmbeddingInput[], role: EmbeddingRole): Promise<number[][]> {
      const keys = inputs.map((x) => vectorKey(id, role, x.title, x.text));
      const out: (number[] | null)[] = modes.read ? keys.map((k) => store.get(k)) : inputs.map(() => null);
      const missing = out.flatMap((v, i) => (v ? [] : [i]));
      counts.cached += inputs.length - missing.length;
      if (missing.length) {
        // --cache-only and --dry-run forbid calling a provider; `use` runs in-process, offline and free: it computes.
        if ((opts.cacheOnly || opts.dryRun) && id !== 'use') {
          counts.misses += missing.length;
          if (opts.cacheOnly) throw new CacheMissError(`${missing.length} ${id}/${model} embeddings`);
          throw new DryRunError();
        }
        if (!inner) tuning.onEmbeddingLoad?.();
        inner ??= loadEmbeddingProvider(id, pc);
        const p = await inner;
        // Written as they come, a chunk at a time: a run stopped halfway keeps every vector it paid for.
        const chunk = id === 'use' ? USE_WRITE_CHUNK : REMOTE_WRITE_CHUNK;
        for (let c = 0; c < missing.length; c += chunk) {
          const part = missing.slice(c, c + chunk);
          const vectors = (await withRetries(id, policy, () => p.embed(part.map((i) => inputs[i]!), role), { timeoutMs: pc.timeoutMs })).map(toFloat32);
          counts.computed += part.length;
          part.forEach((i, j) => (out[i] = vectors[j]!));
          if (modes.write) await store.put(part.map((i, j) => ({ key: keys[i]!, vector: vectors[j]! }))); // not with --no-cache, --no-cache-write
        }
      }
      return out as number[][];
    },
    warnings: () => [...store.warnings],
  };
}
