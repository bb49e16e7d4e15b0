// Fail fast: when calls keep failing the same way waiting cannot cure (the key, the model, a parameter, the quota, an
// address nobody answers at), the run stops calling after the first few instead of paying or waiting for the rest.
// The calls not made become error rows with one line that says what is wrong and what to change.
import { ProviderError } from '../errors.js';
import type { CallError, FailureClass } from '../providers/shared.js';
import type { ProviderId } from '../types.js';

/** Failures of this many calls with the same cause stop the run. */
export const TRIP_AFTER = 3;

const FATAL: FailureClass[] = ['auth', 'not-found', 'bad-request', 'quota', 'refused', 'dns'];

/** A call not made because the run was stopped (see Breaker). */
export class RunStoppedError extends ProviderError {
  constructor(readonly reason: string) {
    super(`not called: the run stopped: ${reason}`, undefined, false);
    this.name = 'RunStoppedError';
  }
}

/** Parameter names a 400 may blame, and what changes each. */
const PARAMETERS: { pattern: RegExp; name: string; fix: (row: string) => string }[] = [
  { pattern: /thinking_?level|thinkingLevel/i, name: 'thinkingLevel', fix: (row) => `--thinking (the levels the model takes are in the model table row ${row}, field thinking)` },
  { pattern: /thinking_?budget|thinkingBudget|budget_tokens/i, name: 'thinking budget', fix: (row) => `--thinking (model table row ${row}, field thinking)` },
  { pattern: /reasoning[_.]?effort/i, name: 'reasoning_effort', fix: (row) => `--thinking (model table row ${row}, field thinking.levels)` },
  { pattern: /output_config|\beffort\b/i, name: 'effort', fix: (row) => `--thinking (model table row ${row}, field thinking.levels)` },
  { pattern: /\bthinking\b/i, name: 'thinking', fix: (row) => `--thinking (model table row ${row}, field thinking.style)` },
  { pattern: /temperature/i, name: 'temperature', fix: (row) => `the model table row ${row}, field sampling.temperature (false: not sent)` },
  { pattern: /top_?p\b|topP/i, name: 'top_p', fix: (row) => `the model table row ${row}, field sampling.topP` },
  { pattern: /max_completion_tokens|max_tokens|maxOutputTokens/i, name: 'the output cap', fix: (row) => `the model table row ${row}, field maxOutputTokens` },
  { pattern: /tool_choice|toolConfig/i, name: 'tool_choice', fix: () => 'a --host whose loading tool the model accepts' },
];

/** One line for a failure that stops the run: what is wrong, with which model, and what to change. */
export function explainFailure(e: CallError, provider: ProviderId, model: string): string {
  const row = `${provider}/${model}`;
  switch (e.failure) {
    case 'auth':
      return `${row}: the API key was refused (HTTP ${e.status}); check the key variable, or the --base-url it is sent to`;
    case 'not-found':
      return `${row}: the model or endpoint was not found (HTTP 404); check --model (docs/models.md lists current ids) and --base-url`;
    case 'quota':
      return `${row}: the quota is used up (daily limit or no credit left); waiting will not help today: raise the quota, or rerun later (answered calls are cached)`;
    case 'refused':
      return `${row}: nothing answers at the base URL (connection refused); start the server or fix --base-url`;
    case 'dns':
      return `${row}: the base URL's host name does not resolve; fix --base-url`;
    case 'bad-request': {
      const p = PARAMETERS.find((x) => x.pattern.test(e.message));
      return p
        ? `${row} refused the parameter ${p.name} (HTTP 400); change it with ${p.fix(row)}. Server said: ${e.message}`
        : `${row} refused the request (HTTP 400): ${e.message}`;
    }
    default:
      return e.message;
  }
}

/**
 * Counts failures by cause; at TRIP_AFTER failures of one fatal cause the breaker trips, and every later attempt
 * (new calls and retries alike) throws RunStoppedError without touching the network.
 */
export class Breaker {
  private readonly counts = new Map<string, number>();
  private stoppedWith: RunStoppedError | null = null;

  constructor(
    private readonly provider: ProviderId,
    private readonly model: string,
  ) {}

  record(e: CallError): void {
    if (!FATAL.includes(e.failure) || this.stoppedWith) return;
    // A 400 is about the whole run only when it names a parameter every call carries; others are this request's.
    if (e.failure === 'bad-request' && !PARAMETERS.some((p) => p.pattern.test(e.message))) return;
    const cause = `${e.failure}:${e.status ?? ''}`;
    const n = (this.counts.get(cause) ?? 0) + 1;
    this.counts.set(cause, n);
    if (n >= TRIP_AFTER) this.stoppedWith = new RunStoppedError(explainFailure(e, this.provider, this.model));
  }

  /** The error to throw instead of calling, or null. */
  stopped(): RunStoppedError | null {
    return this.stoppedWith;
  }

  /** The one line that says why the run stopped, or null. */
  reason(): string | null {
    return this.stoppedWith?.reason ?? null;
  }
}
