// Retries of one provider call: bounded by time, not by a count, for rate limits (a paced 429 is a queue, not a
// failure); a few retries for transient failures (5xx, timeouts, dropped connections); one for an address nobody
// answers at; none for what waiting does not cure (a key, a model, a parameter, a quota). Every attempt is bounded by
// --timeout with its own AbortSignal, body included, and every lane waits when the server asks one to.
import { ProviderError } from '../errors.js';
import { KEY_VARS } from '../providers/index.js';
import { CallError } from '../providers/shared.js';
import { redact } from '../secrets.js';

export interface RetryPolicy {
  /** Retries of transient failures (5xx, 529, timeouts, dropped connections, malformed bodies). */
  maxRetries: number;
  /** Retries of a refused connection or an unknown host (a server that is starting may answer the second time). */
  maxConnectionRetries: number;
  baseMs: number;
  /** Longest single wait, also the cap on a server's retry-after. */
  maxMs: number;
  /** No retry starts after this long since the call's first attempt (rate limits included). */
  deadlineMs: number;
}

export interface RetryTuning {
  maxRetries?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** --max-retry-time, in ms (default 10 minutes). */
  retryDeadlineMs?: number;
}

/** Defaults: 5 transient retries, 1 connection retry, backoff from 1 s up to 60 s, 10 minutes per call.
 * `SKILLBENCH_RETRY_BASE_MS` shortens the base (tests that drive the CLI against a faulty local server). */
export function retryPolicy(tuning: RetryTuning = {}, env: NodeJS.ProcessEnv = process.env): RetryPolicy {
  const fromEnv = Number(env.SKILLBENCH_RETRY_BASE_MS);
  return {
    maxRetries: tuning.maxRetries ?? 5,
    maxConnectionRetries: 1,
    baseMs: tuning.retryBaseMs ?? (Number.isFinite(fromEnv) && fromEnv >= 0 && env.SKILLBENCH_RETRY_BASE_MS !== '' ? fromEnv : 1000),
    maxMs: tuning.retryMaxMs ?? 60_000,
    deadlineMs: tuning.retryDeadlineMs ?? 600_000,
  };
}

/** The wait before retry number `attempt` (0-based): the server's delay when it gave one, else exponential backoff
 * with "equal jitter" (half fixed, half random), both capped at maxMs. */
export function backoffMs(attempt: number, policy: Pick<RetryPolicy, 'baseMs' | 'maxMs'>, retryAfterMs?: number): number {
  // A little jitter on the server's delay spreads the waiting workers without leaving the rate limit idle.
  if (retryAfterMs !== undefined) return Math.min(policy.maxMs, retryAfterMs + Math.random() * Math.min(policy.baseMs, Math.max(10, retryAfterMs / 4)));
  const d = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  return d / 2 + (Math.random() * d) / 2;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * What every lane of a client shares about the server's pace: when one call is told to wait (429 with retry-after),
 * no lane starts an attempt before that time; and how many attempts may be in the air at once, halved on a 429 and
 * grown back by one per success (AIMD), so that a -j 32 run settles at the rate the server allows instead of
 * hammering it with attempts that are refused.
 */
export class Pacer {
  private pausedUntil = 0;
  private window: number;
  private active = 0;
  private successes = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly maxWindow: number) {
    this.window = maxWindow;
  }

  /** Waits for the server's pause and for a free slot in the window; returns the release function. */
  async acquire(): Promise<() => void> {
    for (;;) {
      const wait = this.pausedUntil - Date.now();
      if (wait > 0) await sleep(wait);
      else if (this.active < Math.max(1, Math.floor(this.window))) break;
      else await new Promise<void>((r) => this.waiting.push(r));
    }
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiting.shift()?.();
    };
  }

  /** A 429: nobody starts before `ms` from now, and fewer attempts fly at once. */
  rateLimited(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
    this.window = Math.max(1, this.window / 2);
    this.successes = 0;
  }

  succeeded(): void {
    if (this.window >= this.maxWindow) return;
    // Additive increase: one more slot per window's worth of successes.
    if (++this.successes >= Math.floor(this.window)) {
      this.successes = 0;
      this.window = Math.min(this.maxWindow, this.window + 1);
      this.waiting.shift()?.();
    }
  }
}

export interface RetryHooks {
  onRetry?: (e: CallError, waitMs: number) => void;
  pacer?: Pacer;
  /** Bound of each attempt, body included (an AbortSignal is passed to the call). */
  timeoutMs?: number;
  /** Checked before every attempt: an error to throw instead (the run was stopped by the breaker). */
  stopped?: () => Error | null;
}

function keyHint(provider: string): string {
  const vars = (KEY_VARS as Record<string, string[]>)[provider];
  return vars ? `it is read from ${vars.join(' or ')}` : 'check the key';
}

function asCallError(err: unknown, provider: string): CallError {
  if (err instanceof CallError) return err;
  if (err instanceof ProviderError) return new CallError(err.message, err.status, err.retryable);
  return new CallError(`${provider}: ${(err as Error)?.message ?? String(err)}`, undefined, false);
}

/** One attempt with its own timeout: an attempt whose signal fired is a timeout, whatever the SDK made of it. */
async function attempt<T>(provider: string, fn: (signal?: AbortSignal) => Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (!timeoutMs) return fn();
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return await fn(signal);
  } catch (err) {
    if (signal.aborted) throw new CallError(`${provider}: no complete answer within --timeout ${Math.round(timeoutMs / 1000)} s`, undefined, true, undefined, 'timeout');
    throw err;
  }
}

/** Whether `e` is worth another attempt, given what was tried so far. */
function mayRetry(e: CallError, counts: { transient: number; connection: number }, policy: RetryPolicy): boolean {
  if (e.failure === 'rate-limit') return true;
  if (e.failure === 'refused' || e.failure === 'dns') return counts.connection < policy.maxConnectionRetries;
  if (!e.retryable) return false;
  return counts.transient < policy.maxRetries;
}

/** Runs `fn` until it succeeds, an error not worth retrying, or the deadline; the last error as a CallError. */
export async function withRetries<T>(provider: string, policy: RetryPolicy, fn: (signal?: AbortSignal) => Promise<T>, hooks: RetryHooks = {}): Promise<T> {
  const started = Date.now();
  const counts = { transient: 0, connection: 0 };
  for (let n = 1; ; n++) {
    const stop = hooks.stopped?.();
    if (stop) throw stop;
    const release = hooks.pacer ? await hooks.pacer.acquire() : () => {};
    try {
      const out = await attempt(provider, fn, hooks.timeoutMs);
      hooks.pacer?.succeeded();
      return out;
    } catch (err) {
      const e = asCallError(err, provider);
      const wait = e.failure === 'rate-limit' ? backoffMs(Math.min(counts.transient, 6), policy, e.retryAfterMs) : backoffMs(counts.transient + counts.connection, policy, e.retryAfterMs);
      if (e.failure === 'rate-limit') hooks.pacer?.rateLimited(wait);
      const late = Date.now() - started + wait > policy.deadlineMs;
      if (!mayRetry(e, counts, policy) || late) throw finalError(provider, e, n, late && mayRetry(e, counts, policy));
      if (e.failure === 'refused' || e.failure === 'dns') counts.connection++;
      else if (e.failure !== 'rate-limit') counts.transient++;
      hooks.onRetry?.(e, wait);
      release(); // a lane that waits gives its slot to the others
      // The pacer already makes every lane wait for a rate limit; other failures wait on their own.
      if (!hooks.pacer || e.failure !== 'rate-limit') await sleep(wait);
    } finally {
      release();
    }
  }
}

function finalError(provider: string, e: CallError, tries: number, outOfTime: boolean): CallError {
  const hint = e.failure === 'auth' ? ` (is the API key right? ${keyHint(provider)})` : '';
  const after = tries > 1 ? ` (after ${tries} attempts${outOfTime ? ', out of --max-retry-time' : ''})` : '';
  return new CallError(redact(`${e.message}${hint}${after}`), e.status, e.retryable, e.retryAfterMs, e.kind, e.failure);
}
