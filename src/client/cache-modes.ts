// How a client uses the response cache: what the cache options ask for, and the key a chat request is kept under.
import { cacheKey } from '../cache.js';
import { UserError } from '../errors.js';
import type { ProviderOptions } from '../options.js';
import type { ChatRequest, ProviderId } from '../types.js';

/** What the cache options ask for; a contradiction is bad input. */
export function cacheModes(opts: Pick<ProviderOptions, 'cache' | 'cacheWrite' | 'cacheOnly'>): { read: boolean; write: boolean } {
  if (opts.cache === false && opts.cacheOnly) {
    throw new UserError('--no-cache and --cache-only contradict each other (one never reads the cache, the other only reads it)', 'keep one of them');
  }
  return { read: opts.cache !== false || Boolean(opts.cacheOnly), write: opts.cache !== false && opts.cacheWrite !== false };
}

/** The cache key of a chat request (`req` as returned by withDefaults). */
export function chatCacheKey(provider: ProviderId, model: string, req: ChatRequest, sample = 0): string {
  return cacheKey({ op: 'chat', provider, model, request: req, sample });
}
