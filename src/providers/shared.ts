// What every chat provider shares: its configuration, and turning an SDK error into a ProviderError the client can
// retry (status, retryable, the server's requested delay).
import { ProviderError } from '../errors.js';
import type { StopKind } from '../types.js';

export interface ProviderConfig {
  /** API key; any string for local servers that ignore it. */
  apiKey: string;
  /** Base URL (already resolved from --base-url or the SDK's env var); undefined = the SDK's default. */
  baseUrl?: string;
  model: string;
  /** Per-call timeout in ms (the SDK's own timeout). */
  timeoutMs: number;
}

/**
 * What kind of failure a call had, for the retry loop and the fail-fast breaker: `transient` failures are retried
 * (5xx, timeouts, dropped connections, rate limits); the others say something about the whole run (the key, the
 * model, a parameter, the quota, an address nobody answers at) and stop it after the first few.
 */
export type FailureClass =
  | 'transient'
  | 'rate-limit'
  | 'auth'
  | 'not-found'
  | 'bad-request'
  | 'quota'
  | 'refused'
  | 'dns'
  | 'blocked-port'
  | 'stop'
  | 'other';

/** A ProviderError carrying what the retry loop needs. */
export class CallError extends ProviderError {
  constructor(
    message: string,
    status: number | undefined,
    retryable: boolean,
    /** Delay the server asked for (retry-after-ms, retry-after, Gemini RetryInfo.retryDelay), ms. */
    readonly retryAfterMs?: number,
    /** A timeout or a connection failure (no HTTP status); `stop`: the model ended without an answer. */
    readonly kind: 'http' | 'timeout' | 'connection' | 'parse' | 'stop' = 'http',
    readonly failure: FailureClass = classify(status, kind, retryable, message),
  ) {
    super(message, status, retryable);
    this.name = 'ProviderError';
  }
}

/** The failure class of an error from its status, kind and text. */
export function classify(status: number | undefined, kind: CallError['kind'], retryable: boolean, message: string): FailureClass {
  if (kind === 'stop') return 'stop';
  if (kind === 'connection') {
    if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(message)) return 'dns';
    // fetch (undici) refuses the ports browsers block (9, 25, 6000, ...): no retry can reach them.
    if (/bad port/i.test(message)) return 'blocked-port';
    if (/ECONNREFUSED|connection refused/i.test(message)) return 'refused';
    return 'transient';
  }
  if (kind === 'timeout' || kind === 'parse') return 'transient';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not-found';
  if (status === 429) return isQuotaExhausted(message) ? 'quota' : 'rate-limit';
  if (status === 400 || status === 422) return /quota|credit balance|billing/i.test(message) ? 'quota' : 'bad-request';
  if (status !== undefined && status >= 500) return 'transient';
  return retryable ? 'transient' : 'other';
}

/**
 * A 429 that waiting will not cure: Gemini's daily quota (a QuotaFailure whose quotaId ends in PerDay), OpenAI's
 * `insufficient_quota` (no credit left).
 */
export function isQuotaExhausted(text: string): boolean {
  return /insufficient_quota/.test(text) || (/QuotaFailure/.test(text) && /PerDay/i.test(text));
}

/** The text of an error and of its causes (undici puts ECONNREFUSED and ENOTFOUND in `cause`). */
export function errorChain(err: unknown): string {
  const parts: string[] = [];
  let e = err as { message?: string; code?: string; cause?: unknown; errors?: unknown[] } | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (e.message) parts.push(e.message);
    if (e.code) parts.push(e.code);
    if (Array.isArray(e.errors)) for (const x of e.errors) parts.push(String((x as { code?: string })?.code ?? ''));
    e = e.cause as typeof e;
  }
  return parts.join(' ');
}

/** 408, 409 (Anthropic's lock conflicts), 429, every 5xx (529 = Anthropic overloaded). */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === 408 || status === 409 || status === 429 || (status !== undefined && status >= 500);
}

/** Parses retry-after-ms, then retry-after (seconds or an HTTP date). */
export function retryAfterFromHeaders(get: (name: string) => string | null | undefined): number | undefined {
  const ms = get('retry-after-ms');
  if (ms != null && ms !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = get('retry-after');
  if (ra == null || ra === '') return undefined;
  if (Number.isFinite(Number(ra))) return Math.max(0, Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** Gemini error bodies carry `details: [{'@type': '...RetryInfo', retryDelay: '1.5s'}]`. */
export function retryDelayFromGoogleBody(text: string): number | undefined {
  const m = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(text);
  return m ? Math.round(Number(m[1]) * 1000) : undefined;
}

/** Error shape shared by the Stainless-generated SDKs (anthropic, openai). */
interface StainlessError {
  status?: number;
  headers?: Headers | Record<string, string>;
  message: string;
  name: string;
  constructor: { name: string };
}

function headerGetter(h: StainlessError['headers']): (n: string) => string | null | undefined {
  if (!h) return () => undefined;
  if (typeof (h as Headers).get === 'function') return (n) => (h as Headers).get(n);
  return (n) => (h as Record<string, string>)[n];
}

export function fromStainlessError(provider: string, err: unknown): CallError {
  if (err instanceof CallError) return err;
  const e = err as StainlessError;
  const cls = e?.constructor?.name ?? '';
  if (/Timeout/i.test(cls) || /timed? ?out/i.test(e?.message ?? '')) {
    return new CallError(`${provider}: request timed out`, undefined, true, undefined, 'timeout');
  }
  if (typeof e?.status === 'number') {
    const get = headerGetter(e.headers);
    const retryAfter = retryAfterFromHeaders(get);
    // The server may say explicitly whether to retry (Anthropic, OpenAI): it knows better than the status. A quota
    // that is used up is never worth a retry, whatever it says.
    const should = get('x-should-retry');
    const text = `${e.message} ${JSON.stringify((e as { error?: unknown }).error ?? '')}`;
    const retryable = isQuotaExhausted(text) ? false : should === 'true' ? true : should === 'false' ? false : isRetryableStatus(e.status);
    return new CallError(`${provider}: HTTP ${e.status}: ${oneLine(e.message)}`, e.status, retryable, retryAfter, 'http', classify(e.status, 'http', retryable, text));
  }
  const chain = errorChain(err);
  if (/Connection/i.test(cls) || /connection|ECONNRESET|ECONNREFUSED|ENOTFOUND|socket|fetch failed|terminated/i.test(chain)) {
    return connectionError(provider, chain);
  }
  if (err instanceof SyntaxError || /JSON/i.test(e?.message ?? '')) {
    return new CallError(`${provider}: malformed response: ${oneLine(e.message)}`, undefined, true, undefined, 'parse');
  }
  return new CallError(`${provider}: ${oneLine(e?.message ?? String(err))}`, undefined, false);
}

/** A connection that failed: refused and unresolvable addresses are retried once at most (see client/retry.ts). */
export function connectionError(provider: string, chain: string): CallError {
  const code = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|ETIMEDOUT/.exec(chain)?.[0];
  const what = /bad port/i.test(chain)
    ? 'fetch refuses to connect to this port (one of the ports browsers block)'
    : code === 'ECONNREFUSED' ? 'connection refused (nothing listens at the base URL)' : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'host not found (DNS)' : 'connection failed';
  return new CallError(`${provider}: ${what}: ${oneLine(chain, 200)}`, undefined, true, undefined, 'connection');
}

export function oneLine(s: string, max = 300): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}...` : t;
}

/** Parses a tool call's JSON arguments; a model's broken JSON becomes `{_raw: text}` rather than a crash. */
export function parseArgs(text: string | undefined | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { _value: v };
  } catch {
    return { _raw: text };
  }
}

/** The schema instruction appended for providers without native structured output (see anthropic.ts). */
export function schemaInstruction(schema: unknown): string {
  return `Answer with one JSON value only, no prose and no code fence, matching this JSON Schema:\n${JSON.stringify(schema)}`;
}

/** The provider's stop reason, normalised (see StopKind in types/chat.ts). */
export function stopKindOf(provider: 'gemini' | 'anthropic' | 'openai', reason: string | undefined | null, hasCalls: boolean): StopKind {
  if (hasCalls) return 'tool';
  const r = (reason ?? '').toString();
  if (!r) return 'stop';
  const table: Record<string, Record<string, StopKind>> = {
    gemini: {
      STOP: 'stop', MAX_TOKENS: 'length', SAFETY: 'safety', RECITATION: 'safety', BLOCKLIST: 'safety',
      PROHIBITED_CONTENT: 'safety', SPII: 'safety', IMAGE_SAFETY: 'safety', MALFORMED_FUNCTION_CALL: 'malformed',
      UNEXPECTED_TOOL_CALL: 'malformed', TOO_MANY_TOOL_CALLS: 'malformed', LANGUAGE: 'other', OTHER: 'other',
      FINISH_REASON_UNSPECIFIED: 'other', BLOCK_REASON_UNSPECIFIED: 'safety',
    },
    anthropic: {
      end_turn: 'stop', stop_sequence: 'stop', tool_use: 'stop', max_tokens: 'length', refusal: 'refusal',
      model_context_window_exceeded: 'length', pause_turn: 'other',
    },
    openai: { stop: 'stop', tool_calls: 'stop', function_call: 'stop', length: 'length', content_filter: 'safety' },
  };
  return table[provider]?.[r] ?? 'other';
}

/** A response that ended without an answer or a call it can act on: what the error row says. */
export function stopError(provider: string, kind: StopKind, reason: string | undefined): CallError {
  const why: Record<string, string> = {
    length: 'hit its output cap before answering',
    safety: 'was blocked by a safety filter',
    refusal: 'refused to answer',
    malformed: 'produced a malformed tool call',
    other: 'stopped without an answer',
  };
  return new CallError(`${provider}: the model ${why[kind] ?? why.other} (stop reason ${kind}${reason && reason !== kind ? `: ${reason}` : ''})`, undefined, false, undefined, 'stop');
}
