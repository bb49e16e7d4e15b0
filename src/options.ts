// Option groups shared by several commands, so every command spells them the same way (promptfoo-style names).
import { Command, Option } from 'commander';
import { UserError } from './errors.js';
import type { SandboxOptions } from './sandbox.js';
import { DEFAULT_MAX_MEMORY_MB } from './sandbox/limits.js';

/** Options of every command that calls a model or an embedding provider. */
export interface ProviderOptions {
  provider?: string;
  model?: string;
  embeddings?: string;
  embeddingModel?: string;
  baseUrl?: string;
  cacheDir: string;
  /** false with --no-cache: the cache is neither read nor written. */
  cache: boolean;
  /** false with --no-cache-write: the cache is read but not written. */
  cacheWrite?: boolean;
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

/** `--skills PATH`; without it, commands read `defaultSkillsPath()` (src/skill-folders.ts). */
export function addSkillsOption(cmd: Command): Command {
  return cmd.option(
    '--skills <path>',
    'skill catalogue: a folder (every SKILL.md below it, links followed), a project root (its .agents/skills, .claude/skills, .codex/skills, .gemini/skills and skills folders) or a JSON list of skills (default: the working folder\'s skill folders, else ./skills)',
  );
}

/** Every provider option, for the commands where each one acts (eval-trigger, suggest). */
export function addProviderOptions(cmd: Command): Command {
  addModelOptions(cmd);
  addEmbeddingOptions(cmd);
  addCacheOptions(cmd);
  return addSpendingOptions(cmd);
}

/** Which model, where, how long to wait. */
export function addModelOptions(cmd: Command, opts: { providers?: string[]; what?: string } = {}): Command {
  return cmd
    .addOption(new Option('--provider <id>', opts.what ?? 'model provider for model-based steps').choices(opts.providers ?? ['gemini', 'anthropic', 'openai']))
    .option('--model <id>', 'model id (default: the provider\'s cheap tool-calling model)')
    .option('--base-url <url>', 'API base URL (a proxy, a gateway, or a local OpenAI-compatible server such as Ollama or vLLM)')
    .option('--timeout <seconds>', 'per-attempt timeout in seconds, the whole answer included', parseNonNegative, 60)
    .option('--max-retry-time <seconds>', 'how long one call may keep retrying (rate limits included) before it is an error', parseNonNegative, 600);
}

/** The embedding provider of the similarity steps. */
export function addEmbeddingOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--embeddings <id>', 'embedding provider for similarity').choices(['use', 'gemini', 'openai']).default('use'))
    .option('--embedding-model <id>', 'embedding model id (default per provider)');
}

/** The response cache, as promptfoo users know it: --no-cache neither reads nor writes. */
export function addCacheOptions(cmd: Command, opts: { dryRun?: boolean } = {}): Command {
  cmd
    .option('--cache-dir <dir>', 'response cache folder', '.skillbench/cache')
    .option('--no-cache', 'neither read nor write the response cache: every call is made and nothing is kept')
    .option('--no-cache-write', 'read the cache but do not write to it (answers of this run are not kept)')
    .option('--cache-only', 'never call a provider; replay from the cache (a miss is an error)');
  if (opts.dryRun !== false) cmd.option('--dry-run', 'print the calls the run would make, how many are cached and the estimated cost, without calling');
  return cmd;
}

export const THINKING_HELP =
  "thinking for models that think: off, minimal, low, medium, high, xhigh, max, or a token budget; checked against the model table (default: the table's cheapest setting for the model)";

/** Parallel calls, the spending limit, the thinking of the model calls, and how many may fail in a complete run. */
export function addSpendingOptions(cmd: Command, opts: { concurrency?: string } = {}): Command {
  return cmd
    .option('-j, --concurrency <n>', opts.concurrency ?? 'parallel provider calls (default depends on the provider)', parsePositiveInt)
    .option('--max-cost <usd>', 'stop before spending more than this many dollars, keeping what was done', parseNonNegative)
    .option('--thinking <level>', THINKING_HELP)
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
  /** true: JSON on stdout. A string is the old spelling `--json FILE` (see jsonSwitch). */
  json?: boolean | string;
  progress: boolean;
}

export function addOutputOptions(cmd: Command, opts: { formats?: string; jsonWhat?: string } = {}): Command {
  addOutputOption(cmd, opts.formats);
  addJsonOption(cmd, opts.jsonWhat ?? 'the results file');
  return cmd.option('--no-progress', 'no live view: plain progress lines (the default when output is not a terminal)');
}

/** `-o FILE`, one value per -o, repeatable: never swallows the arguments that follow it. */
export function addOutputOption(cmd: Command, formats = 'format by extension: .json .html .md .xml (JUnit) .csv', what = 'write results'): Command {
  return cmd.option('-o, --output <file>', `${what}; ${formats} (repeat -o for several files)`, collect);
}

/**
 * `--json`: JSON on stdout instead of the text, everywhere. The old spelling `--json FILE` (write a file) still
 * works with a note, so the option takes an optional value; the help shows it as the plain switch it now is.
 */
export function addJsonOption(cmd: Command, what: string): Command {
  const option = new Option('--json [file]', `print ${what} as JSON on stdout instead of the text (-o FILE.json writes it to a file)`);
  (option as Option & { switchInHelp?: boolean }).switchInHelp = true;
  return cmd.addOption(option);
}

/** The help term of an option: `--json [file]` shows as `--json` (its value is the deprecated spelling). */
export function optionTerm(option: Option): string {
  return (option as Option & { switchInHelp?: boolean }).switchInHelp ? option.flags.replace(/\s*\[file\]$/, '') : option.flags;
}

export interface JsonSwitch {
  /** Print JSON on stdout. */
  stdout: boolean;
  /** The old spelling `--json FILE`: write FILE, as -o FILE does. */
  file?: string;
  /** The command's positional argument, when commander gave it to --json (`report --json results.json`). */
  positional?: string;
}

/**
 * What --json asks for. `slot` is the command's optional positional argument, when it has one and it is missing:
 * commander then took it as --json's value (`skillbench suggest --json "request"`), and it is given back.
 */
export function jsonSwitch(json: boolean | string | undefined, slot?: { missing: boolean }): JsonSwitch {
  if (json === undefined || json === false) return { stdout: false };
  if (json === true) return { stdout: true };
  if (slot?.missing) return { stdout: true, positional: json };
  console.error(`skillbench: note: \`--json ${json}\` is the old spelling: write \`-o ${json}\` (--json alone now prints JSON on stdout)`);
  return { stdout: false, file: json };
}

/** The files to write: every -o, then the old spelling `--json FILE`; a file named twice is bad input. */
export function outputFiles(output: string[] | undefined, json: JsonSwitch): string[] {
  const files = [...(output ?? []), ...(json.file ? [json.file] : [])];
  const twice = files.find((f, i) => files.indexOf(f) !== i);
  if (twice !== undefined) throw new UserError(`${twice} is given twice as an output`, 'give each output file once');
  return files;
}

/**
 * The old spelling `-o a.html b.md` (one -o taking several files) still works, with a note: since -o takes one
 * value, the files after the first arrive as the command's excess arguments (the command allows them for this).
 * Anything else left over is bad input, named.
 */
export function legacyOutputs(cmd: Command, output: string[] | undefined): string[] | undefined {
  const extra = cmd.args.slice(cmd.registeredArguments.length);
  if (extra.length === 0) return output;
  const isOutput = (f: string) => /\.(json|html?|md|markdown|xml|csv)$/i.test(f);
  if (!output?.length || !extra.every(isOutput)) {
    throw new UserError(
      `unexpected argument${extra.length > 1 ? 's' : ''} ${extra.map((a) => `"${a}"`).join(' ')} for ${cmd.name()}`,
      `see \`skillbench ${cmd.name()} --help\`: options take their value after them (--skills PATH, -o FILE)`,
    );
  }
  console.error(`skillbench: note: \`-o ${output[output.length - 1]} ${extra.join(' ')}\` is the old spelling: write -o before each file (${[output[output.length - 1], ...extra].map((f) => `-o ${f}`).join(' ')})`);
  return [...output, ...extra];
}

/** `--github-annotations`: failures as GitHub Actions workflow commands on stdout (see src/annotations.ts). */
export function addAnnotationsOption(cmd: Command, what: string): Command {
  return cmd.option('--github-annotations', `also print ${what} as GitHub Actions annotations (::error ...::), shown on the pull request`);
}

/** commander's collector of a repeatable option. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
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
    .option('--script-max-memory-mb <mb>', 'run_skill_script: memory per script process (RLIMIT_DATA; Node 24 counts about 560 MiB of reserved code space per isolate in it)', parsePositiveInt, DEFAULT_MAX_MEMORY_MB)
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
