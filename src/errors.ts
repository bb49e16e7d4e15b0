// Errors that the CLI turns into one clear line and an exit code, never a stack trace.

/** A mistake in the user's input (a file, a field, an option). Exit code 2. */
export class UserError extends Error {
  readonly exitCode = 2;
  /**
   * @param message what is wrong, naming the file and the field
   * @param fix what the user should do about it (printed after the message)
   */
  constructor(message: string, readonly fix?: string) {
    super(message);
    this.name = 'UserError';
  }
}

/** A gate (threshold or baseline comparison) failed. Exit code 1. Results were still written. */
export class GateFailure extends Error {
  readonly exitCode = 1;
  constructor(message: string) {
    super(message);
    this.name = 'GateFailure';
  }
}

/**
 * The run could not measure everything: more calls failed than --max-error-rate allows. Exit code 4, after every
 * output is written (answered calls are cached: a rerun makes only the missing ones). Never a gate pass.
 */
export class IncompleteRun extends Error {
  readonly exitCode = 4;
  constructor(
    readonly failed: number,
    readonly total: number,
    readonly detail?: string,
  ) {
    super(incompleteLine(failed, total) + (detail ? `: ${detail}` : ''));
    this.name = 'IncompleteRun';
  }
}

/** The words every report uses for an incomplete run. */
export function incompleteLine(failed: number, total: number): string {
  return `incomplete: ${failed.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} calls failed; rerun to finish them, answered calls are cached`;
}

/** A provider call that still failed after its retries. Counted as an error result downstream, never as "none". */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** Formats a UserError for the terminal: `skillbench: <message> (<fix>)`. */
export function formatUserError(err: UserError): string {
  return `skillbench: error: ${err.message}${err.fix ? `\n  fix: ${err.fix}` : ''}`;
}
