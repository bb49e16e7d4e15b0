// Provider defaults (keys, base-URL variables, default models, concurrency) and lazy loading of the provider modules:
// each SDK is imported only when a call is about to be made, so `skillbench --help` stays instant.
import { UserError } from '../errors.js';
import type { ChatProvider, EmbeddingProvider, ProviderId } from '../types.js';
import { defaultModel } from './models.js';
import { isLocalBaseUrl } from './pricing.js';
import { safeUrl } from '../secrets.js';
import type { ProviderConfig } from './shared.js';

export type { ProviderConfig } from './shared.js';
export type EmbeddingId = EmbeddingProvider['id'];

export const PROVIDERS: ProviderId[] = ['gemini', 'anthropic', 'openai'];

/** API key variables, in the order they are read. */
export const KEY_VARS: Record<ProviderId, string[]> = {
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  openai: ['OPENAI_API_KEY'],
};

/** The SDKs' own base-URL variables; `--base-url` wins over them. */
export const BASE_URL_VARS: Record<ProviderId, string> = {
  gemini: 'GOOGLE_GEMINI_BASE_URL',
  anthropic: 'ANTHROPIC_BASE_URL',
  openai: 'OPENAI_BASE_URL',
};

/** The cheap tool-calling model of each provider: the row of the model table marked `default` (data/models.json). */
export function defaultChatModel(provider: ProviderId): string {
  const row = defaultModel(provider, 'chat');
  if (!row) throw new UserError(`the model table has no default chat model for ${provider}`, 'mark one row "default": true (docs/models.md)');
  return row.id;
}

/** The embedding model of each provider: the table's default embedding row, else the one skillbench was built with. */
export function defaultEmbeddingModel(id: EmbeddingId): string {
  if (id === 'use') return 'use-lite-512';
  return defaultModel(id, 'embedding')?.id ?? (id === 'gemini' ? 'gemini-embedding-2' : 'text-embedding-3-small');
}

/** Placeholder key for OpenAI-compatible local servers, which ignore it (the SDK refuses an empty one). */
export const LOCAL_PLACEHOLDER_KEY = 'skillbench-local-no-key';

export function keyFrom(provider: ProviderId, env: NodeJS.ProcessEnv): { value?: string; variable?: string } {
  for (const v of KEY_VARS[provider]) {
    const value = env[v];
    if (value && value.trim()) return { value: value.trim(), variable: v };
  }
  return {};
}

/** --base-url, else the SDK's variable; a value that is not an http(s) URL is a UserError naming where it came from. */
export function baseUrlFrom(provider: ProviderId, explicit: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const v = (explicit ?? env[BASE_URL_VARS[provider]])?.trim();
  if (!v) return undefined;
  let protocol = '';
  try {
    protocol = new URL(v).protocol;
  } catch {
    // not a URL at all: reported below
  }
  const source = explicit !== undefined ? '--base-url' : BASE_URL_VARS[provider];
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new UserError(`${source}: "${safeUrl(v)}" is not an http(s) URL`, 'write it with its scheme, e.g. http://localhost:11434/v1');
  }
  const u = new URL(v);
  if (u.username || u.password) {
    // fetch refuses such URLs outright; and the password must not be echoed: the message shows it as ***.
    throw new UserError(`${source}: "${safeUrl(v)}" carries a user name or password, which the SDKs cannot send`, `drop them from the URL and put the key in ${KEY_VARS[provider][0]}`);
  }
  return v.replace(/\/+$/, '');
}

/** An OpenAI-compatible server that is not api.openai.com needs no real key. */
export function keyOptional(provider: ProviderId, baseUrl: string | undefined): boolean {
  if (provider !== 'openai' || !baseUrl) return false;
  try {
    return new URL(baseUrl).hostname !== 'api.openai.com';
  } catch {
    return false;
  }
}

/** Cloud APIs: 4 parallel calls (well under every paid tier's limits); a local server (one GPU): 2. */
export function defaultConcurrency(provider: ProviderId, baseUrl: string | undefined): number {
  return provider === 'openai' && (isLocalBaseUrl(baseUrl) || keyOptional(provider, baseUrl)) ? 2 : 4;
}

export async function loadChatProvider(id: ProviderId, cfg: ProviderConfig): Promise<ChatProvider> {
  switch (id) {
    case 'gemini':
      return (await import('./gemini.js')).createGeminiProvider(cfg);
    case 'anthropic':
      return (await import('./anthropic.js')).createAnthropicProvider(cfg);
    case 'openai':
      return (await import('./openai.js')).createOpenAIProvider(cfg);
  }
}

export async function loadEmbeddingProvider(id: EmbeddingId, cfg: ProviderConfig): Promise<EmbeddingProvider> {
  switch (id) {
    case 'use':
      return (await import('./use.js')).createUseEmbedder();
    case 'gemini':
      return (await import('./gemini.js')).createGeminiEmbedder(cfg);
    case 'openai':
      return (await import('./openai.js')).createOpenAIEmbedder(cfg);
  }
}

export { createBm25 } from './bm25.js';
export { priceOf, costOf } from './pricing.js';
