// Which provider, model, key, base URL, timeout and concurrency a client uses (from the options and the
// environment), and the model's plan: the parameters the model table lets a request carry.
import { UserError } from '../errors.js';
import type { ProviderOptions } from '../options.js';
import { findModel, today } from '../providers/models.js';
import { applyPlan, parseThinkingFlag, planModel, type ModelPlan } from '../providers/params.js';
import { baseUrlFrom, defaultChatModel, defaultConcurrency, KEY_VARS, keyFrom, keyOptional, LOCAL_PLACEHOLDER_KEY, PROVIDERS } from '../providers/index.js';
import { isLocalBaseUrl } from '../providers/pricing.js';
import { registerSecret, registerUrlSecrets } from '../secrets.js';
import type { ChatRequest, ProviderId } from '../types.js';
import type { ClientRequest } from './types.js';

export interface ResolvedConfig {
  provider: ProviderId;
  model: string;
  apiKey?: string;
  keyVariable?: string;
  baseUrl?: string;
  timeoutMs: number;
  concurrency: number;
}

/** Which provider a key exists for (gemini, anthropic, openai, in that order), or null. */
export function availableChatProvider(env: NodeJS.ProcessEnv = process.env): ProviderId | null {
  for (const p of PROVIDERS) if (keyFrom(p, env).value) return p;
  return null;
}

export function resolveConfig(opts: ProviderOptions, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  let provider = opts.provider as ProviderId | undefined;
  if (provider && !PROVIDERS.includes(provider)) {
    throw new UserError(`--provider: unknown provider "${provider}"`, `use one of ${PROVIDERS.join(', ')}`);
  }
  // A bare --base-url or OPENAI_BASE_URL with no key (Ollama, vLLM) means an OpenAI-compatible server.
  provider ??= availableChatProvider(env) ?? (opts.baseUrl || env.OPENAI_BASE_URL ? 'openai' : undefined);
  if (!provider) {
    throw new UserError(
      'no model provider: no API key is set',
      `set GEMINI_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY, pass --provider and --base-url for a local server, or replay with --provider <id> --cache-only`,
    );
  }
  const baseUrl = baseUrlFrom(provider, opts.baseUrl, env);
  const key = keyFrom(provider, env);
  // What is sent is what must never be written: the key as sent (trimmed), and credentials in the base URL.
  registerSecret(key.value);
  registerUrlSecrets(baseUrl);
  const noCallNeeded = Boolean(opts.cacheOnly || opts.dryRun);
  if (!key.value && !keyOptional(provider, baseUrl) && !noCallNeeded) {
    const vars = KEY_VARS[provider];
    throw new UserError(
      `no API key for ${provider}: ${vars[0]} is not set`,
      `export ${vars[0]}=...${vars.length > 1 ? ` (or ${vars.slice(1).join(', ')})` : ''}, or replay cached responses with --cache-only`,
    );
  }
  const timeoutS = opts.timeout === undefined || opts.timeout === 0 ? (opts.timeout === 0 ? 600 : 60) : opts.timeout;
  return {
    provider,
    model: opts.model?.trim() || defaultChatModel(provider),
    apiKey: key.value ?? (keyOptional(provider, baseUrl) ? LOCAL_PLACEHOLDER_KEY : undefined),
    keyVariable: key.variable,
    baseUrl,
    timeoutMs: Math.round(timeoutS * 1000),
    concurrency: opts.concurrency ?? defaultConcurrency(provider, baseUrl),
  };
}

/** --thinking as given: undefined when not given (the model table's setting for the model then applies). */
export const parseThinking = parseThinkingFlag;

/** The request as sent and as keyed: the client's model, and the parameters the model table allows (applyPlan). */
export function withDefaults(req: ClientRequest, model: string, plan: ModelPlan = { row: null, thinking: undefined, notes: [] }): ChatRequest {
  return applyPlan(req, model, plan);
}

/** The model's plan for a configuration: its table row, thinking parameter and notes (throws on a retired model or a
 * --thinking it does not take: before any call). */
export function modelPlan(cfg: Pick<ResolvedConfig, 'provider' | 'model' | 'baseUrl'>, thinking: string | undefined, env: NodeJS.ProcessEnv = process.env): ModelPlan {
  const local = cfg.provider === 'openai' && Boolean(cfg.baseUrl) && (isLocalBaseUrl(cfg.baseUrl) || keyOptional(cfg.provider, cfg.baseUrl));
  return planModel(cfg.provider, cfg.model, findModel(cfg.provider, cfg.model), parseThinkingFlag(thinking), today(env), local);
}
