// What every chat provider shares: its configuration, and turning an SDK error into a ProviderError the client can
// retry (status, retryable, the server's requested delay).
import { ProviderError } from '../errors.js';

export interface ProviderConfig {
  /** API key; any string for local servers that ignore it. */
  apiKey: string;
  /** Base URL (already resolved from --base-url or the SDK's env var); undefined = the SDK's default. */
  baseUrl?: string;
  model: string;
  /** Per-call timeout in ms (the SDK's own timeout). */
  timeoutMs: number;
}

/** A ProviderError carrying what the retry loop needs. */
export class CallError extends ProviderError {
  constructor(
    message: string,
    status: number | undefined,
    retryable: boolean,
    /** Delay the server asked for (retry-after-ms, retry-after, Gemini RetryInfo.retryDelay), ms. */
    readonly retryAfterMs?: number,
    /** A timeout or a connection failure (no HTTP status). */
    readonly kind: 'http' | 'timeout' | 'connection' | 'parse' = 'http',
  ) {
    super(message, status, retryable);
    this.name = 'ProviderError';
  }
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
    // The server may say explicitly whether to retry (Anthropic, OpenAI): it knows better than the status.
    const should = get('x-should-retry');
    const retryable = should === 'true' ? true : should === 'false' ? false : isRetryableStatus(e.status);
    return new CallError(`${provider}: HTTP ${e.status}: ${oneLine(e.message)}`, e.status, retryable, retryAfter);
  }
  if (/Connection/i.test(cls) || /connection|ECONNRESET|socket|fetch failed|terminated/i.test(e?.message ?? '')) {
    return new CallError(`${provider}: connection failed: ${oneLine(e?.message ?? String(err))}`, undefined, true, undefined, 'connection');
  }
  if (err instanceof SyntaxError || /JSON/i.test(e?.message ?? '')) {
    return new CallError(`${provider}: malformed response: ${oneLine(e.message)}`, undefined, true, undefined, 'parse');
  }
  return new CallError(`${provider}: ${oneLine(e?.message ?? String(err))}`, undefined, false);
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
