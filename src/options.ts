// Option groups shared by several commands, so every command spells them the same way (promptfoo-style names).
import { Command, Option } from 'commander';
import type { SandboxOptions } from './sandbox.js';

/** Options of every command that calls a model or an embedding provider. */
export interface ProviderOptions {
  provider?: string;
  model?: string;
  embeddings?: string;
  embeddingModel?: string;
  baseUrl?: string;
  cacheDir: string;
  cache: boolean;
  cacheOnly?: boolean;
  concurrency?: number;
  dryRun?: boolean;
  maxCost?: number;
  thinking?: string;
  timeout?: number;
  /** Seconds a call may keep retrying (rate limits included) before it is an error. */
  maxRetryTime?: number;
  /** Share of calls that may fail before the run is incomplete (exit 4). */
  maxErrorRate?: number;
  /** --batch: uncached model calls go through the provider's batch API (see addBatchOptions). */
  batch?: boolean;
  /** --batch-wait, seconds. */
  batchWait?: number;
  /** --batch-retry: none, batch or live. */
  batchRetry?: string;
}

export function addProviderOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--provider <id>', 'model provider for model-based steps').choices(['gemini', 'anthropic', 'openai']))
    .option('--model <id>', 'model id (default: the provider\'s cheap tool-calling model)')
    .addOption(new Option('--embeddings <id>', 'embedding provider for similarity').choices(['use', 'gemini', 'openai']).default('use'))
    .option('--embedding-model <id>', 'embedding model id (default per provider)')
    .option('--base-url <url>', 'API base URL (a proxy, a gateway, or a local OpenAI-compatible server such as Ollama or vLLM)')
    .option('--cache-dir <dir>', 'response cache folder', '.skillbench/cache')
    .option('--no-cache', 'always call the provider (responses are still written to the cache)')
    .option('--cache-only', 'never call a provider; replay from the cache (a miss is an error)')
    .option('-j, --concurrency <n>', 'parallel provider calls (default depends on the provider)', parsePositiveInt)
    .option('--dry-run', 'print the calls the run would make, how many are cached and the estimated cost, without calling')
    .option('--max-cost <usd>', 'stop before spending more than this many dollars, keeping what was done', parseNonNegative)
    .option('--thinking <level>', 'thinking for models that think: off, minimal, low, medium, high, xhigh, max, or a token budget; checked against the model table (default: the table\'s cheapest setting for the model)')
    .option('--timeout <seconds>', 'per-attempt timeout in seconds, the whole answer included', parseNonNegative, 60)
    .option('--max-retry-time <seconds>', 'how long one call may keep retrying (rate limits included) before it is an error', parseNonNegative, 600)
    .option('--max-error-rate <rate>', 'share of calls that may fail before the run counts as incomplete (exit 4)', parseRate, 0);
}

/** Options of every command that reproduces an agent's prompt (--host). */
export interface HostCliOptions {
  host?: string;
  listingBudget?: number;
  systemPrompt?: string;
}

/** The built-in host profiles (data/hosts/*.json); a test keeps this help list equal to the files. */
export const HOST_NAMES_HELP = 'generic, claude-code, claude-code-2.0, gemini-cli, hermes, codex, adk';

export function addHostOptions(cmd: Command, defaultHost = 'generic'): Command {
  return cmd
    .option('--host <name|file>', `the agent whose prompt to reproduce: ${HOST_NAMES_HELP}, or a host profile file (.json, .yaml; see docs/hosts.md) (default: ${defaultHost})`)
    .option('--listing-budget <chars>', "replace the host's skill listing budget (characters); the host's overflow steps apply past it", parsePositiveInt)
    .option('--system-prompt <file>', "the host's own system prompt text (its exact words, which skillbench does not ship), replacing the profile's");
}

/** Options of every command that writes results. */
export interface OutputOptions {
  output?: string[];
  json?: string;
  progress: boolean;
}

export function addOutputOptions(cmd: Command): Command {
  return cmd
    .option('-o, --output <file...>', 'write results; format by extension: .json .html .md .xml (JUnit) .csv (repeatable)')
    .option('--json <file>', 'write the versioned results file (same as -o FILE.json)')
    .option('--no-progress', 'no live view: plain progress lines (the default when output is not a terminal)');
}

/** Options of every command that runs skill scripts (run_skill_script) in the sandbox. */
export interface SandboxCliOptions {
  scriptTimeout: number;
  maxScriptOutput: number;
  scriptMaxProcs: number;
  scriptMaxFileMb: number;
  scriptMaxMemoryMb: number;
  unsafeNoSandbox?: boolean;
}

export function addSandboxOptions(cmd: Command): Command {
  return cmd
    .option('--script-timeout <seconds>', 'run_skill_script: wall-clock limit per script', parseNonNegative, 30)
    .option('--max-script-output <bytes>', 'run_skill_script: bytes kept per output stream', parsePositiveInt, 256 * 1024)
    .option('--script-max-procs <n>', 'run_skill_script: processes and threads a script may have at once', parsePositiveInt, 256)
    .option('--script-max-file-mb <mb>', 'run_skill_script: largest file a script may write (under bwrap also its total room to write)', parsePositiveInt, 64)
    .option('--script-max-memory-mb <mb>', 'run_skill_script: memory per script process', parsePositiveInt, 1024)
    .option('--unsafe-no-sandbox', 'run skill scripts without isolation when bwrap does not work (dangerous)');
}

/** The sandbox settings the options ask for. */
export function sandboxSettings(opts: SandboxCliOptions): SandboxOptions {
  return {
    timeoutMs: opts.scriptTimeout * 1000,
    maxOutputBytes: opts.maxScriptOutput,
    unsafeNoSandbox: opts.unsafeNoSandbox,
    maxProcs: opts.scriptMaxProcs,
    maxFileMb: opts.scriptMaxFileMb,
    maxMemoryMb: opts.scriptMaxMemoryMb,
  };
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidOption(`expected a whole number >= 1, got "${value}"`);
  return n;
}

export function parseNonNegative(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidOption(`expected a number >= 0, got "${value}"`);
  return n;
}

export function parseRate(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidOption(`expected a rate between 0 and 1, got "${value}"`);
  return n;
}

/** commander turns this into "error: option '...' argument '...' is invalid. <message>" and exit code 2. */
class InvalidOption extends Error {
  readonly code = 'commander.invalidArgument';
}

/** --batch and the options that manage batches (eval-trigger; any command whose model calls are independent). */
export interface BatchCliOptions {
  batch?: boolean;
  batchWait?: number;
  batchRetry?: string;
  batchStatus?: boolean;
  batchCancel?: boolean;
}

export function addBatchOptions(cmd: Command): Command {
  return cmd
    .option('--batch', 'submit the uncached model calls through the provider\'s batch API (lower price, answers within 24 h); resumable: rerun the same command to pick the batches up')
    .option('--batch-wait <seconds>', 'with --batch: stop waiting after this long; the batches keep running and a rerun collects them (default: until they end)', parseNonNegative)
    .addOption(new Option('--batch-retry <how>', 'with --batch: requests that expired, were canceled or failed transiently: none (error rows), batch (a new batch), live (called now)').choices(['none', 'batch', 'live']).default('none'))
    .option('--batch-status', 'show the batches recorded in the cache folder and their state at the provider, then exit')
    .option('--batch-cancel', 'cancel the unfinished batches recorded in the cache folder, then exit (a rerun collects what they answered)');
}
