// The embedding provider of --embeddings (default `use`, offline), with vectors cached on disk by model and text
// hash: an unchanged catalogue is not embedded again. --cache-only: a vector missing for a remote provider throws
// CacheMissError (`use` computes it: no network, no cost).
import { embeddingFile, embeddingKey, readVector, writeVector } from '../cache.js';
import { UserError } from '../errors.js';
import type { ProviderOptions } from '../options.js';
import { baseUrlFrom, defaultEmbeddingModel, KEY_VARS, keyFrom, keyOptional, loadEmbeddingProvider, LOCAL_PLACEHOLDER_KEY, type EmbeddingId } from '../providers/index.js';
import { registerSecret, registerUrlSecrets } from '../secrets.js';
import type { EmbeddingInput, EmbeddingProvider, EmbeddingRole } from '../types.js';
import { CacheMissError, DryRunError, cacheModes, type ClientTuning } from '../client.js';
import { retryPolicy, withRetries } from './retry.js';

export interface Embedder extends EmbeddingProvider {
  /** Vectors taken from the disk cache / computed / missing (--cache-only or --dry-run, remote providers), since creation. */
  stats(): { cached: number; computed: number; misses: number };
}

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
  let inner: Promise<EmbeddingProvider> | null = null;
  const counts = { cached: 0, computed: 0, misses: 0 };

  return {
    id,
    model,
    stats: () => ({ ...counts }),
    async embed(inputs: EmbeddingInput[], role: EmbeddingRole): Promise<number[][]> {
      const files = inputs.map((x) => embeddingFile(cacheDir, id, model, embeddingKey(role, x.title, x.text)));
      const out: (number[] | null)[] = modes.read ? await Promise.all(files.map(readVector)) : inputs.map(() => null);
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
        const vectors = await withRetries(id, policy, () => p.embed(missing.map((i) => inputs[i]!), role), { timeoutMs: pc.timeoutMs });
        counts.computed += missing.length;
        await Promise.all(
          missing.map(async (i, j) => {
            out[i] = vectors[j]!;
            if (!modes.write) return; // --no-cache, --no-cache-write
            return writeVector(files[i]!, { schema: 'skillbench.embedding', version: 1, provider: id, model, role, title: inputs[i]!.title ?? null, vector: vectors[j] });
          }),
        );
      }
      return out as number[][];
    },
  };
}
