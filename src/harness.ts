// The agent loop: call the model, execute the tools it calls, append the results, repeat until it answers or
// --max-turns is reached. It records every call's prompt tokens (as the provider reports them) and what each level
// of progressive disclosure brought into the conversation, so `progressive` and `load-all` can be compared on the
// same request.
import { BudgetExceededError, type ChatCaller } from './client.js';
import { ProviderError } from './errors.js';
import { SkillLoader, type ExecutedTool, type HarnessMode, type ToolLevel } from './loader.js';
import { genericHost, type Host } from './hosts/profile.js';
import { hostFrame, type HostFrame } from './hosts/request.js';
import { renderLoadAll } from './prompt.js';
import type { SandboxOptions } from './sandbox.js';
import { countTokens } from './tokenizer.js';
import type { Catalogue, CatalogueFormat, FunctionCall, Lane, Message, SystemBlock, ToolResult, Usage } from './types.js';

export type { HarnessMode } from './loader.js';
export const HARNESS_MODES: readonly HarnessMode[] = ['progressive', 'load-all'];
export const DEFAULT_MAX_TURNS = 10;

export const PROGRESSIVE_PREAMBLE =
  'You are a helpful assistant with access to skills: folders of instructions, reference files and scripts for ' +
  'specific tasks. The available skills are listed below. When a request matches a skill, call activate_skill with ' +
  'its name before answering and follow the instructions it returns: read its files with read_skill_file and run ' +
  'its scripts with run_skill_script when the instructions say so. When no skill fits, answer directly.';

/** After a host's own words: the level-3 tools skillbench gives every host's agent. */
export const LEVEL_THREE_NOTE =
  'Once a skill is loaded, read the files it lists with read_skill_file and run its scripts with run_skill_script when its instructions say so.';

export const LOAD_ALL_PREAMBLE =
  'You are a helpful assistant with access to skills: folders of instructions, reference files and scripts for ' +
  'specific tasks. Every skill, with all of its files, is included below. When a request matches a skill, follow ' +
  'its instructions, and run its scripts with run_skill_script when the instructions say so. When no skill fits, ' +
  'answer directly.';

/** Where the tokens of a conversation came from. `system` is level 1 in progressive mode (the catalogue) and the
 *  whole load-all block in load-all mode. */
export type TokenSource = 'system' | 'tools' | 'request' | 'bodies' | 'resources' | 'scripts' | 'assistant' | 'other';
export const TOKEN_SOURCES: readonly TokenSource[] = ['system', 'tools', 'request', 'bodies', 'resources', 'scripts', 'assistant', 'other'];

export type AgentClient = ChatCaller;

export interface HarnessOptions {
  mode: HarnessMode;
  /** The agent whose prompt the loop reproduces (default: generic). */
  host?: Host;
  /** The generic host's listing preset (ignored with `host`). */
  format?: CatalogueFormat;
  maxTurns?: number;
  sandbox?: SandboxOptions;
  maxOutputTokens?: number;
  temperature?: number;
  /** Cache sample index (repeats of the same request). */
  sample?: number;
  lane?: Lane;
  /** Called after each model call and its tool executions (live trace). */
  onCall?: (call: TraceCall) => void;
}

export interface TraceToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  level: ToolLevel;
  isError: boolean;
  /** Characters and offline-estimated tokens of the result sent back to the model. */
  resultChars: number;
  resultTokens: number;
  /** Not executed: the turn limit was reached, nobody would read the result. */
  skipped?: boolean;
  /** The result text (kept for the trace and the JSON output). */
  result: string;
  /** run_skill_script: how the script ended, its wall-clock time and what isolated it (not shown to the model). */
  script?: { exitCode: number | null; timedOut: boolean; truncated: boolean; durationMs: number; sandbox: string };
}

export interface TraceCall {
  /** 1-based. */
  index: number;
  usage: Usage;
  /** Input tokens of every call so far, this one included. */
  cumulativeInputTokens: number;
  /** Offline estimate of what entered the prompt for the first time in this call. */
  newTokens: number;
  cached: boolean;
  latencyMs: number;
  costUsd: number;
  text: string;
  toolCalls: TraceToolCall[];
}

export interface LevelTokens {
  source: TokenSource;
  /** Tokens of what this source brought in, counted once (offline estimate, o200k). */
  once: number;
  /** The same tokens times the number of calls that carried them (what the source cost over the run, estimated). */
  carried: number;
}

export interface AgentRun {
  mode: HarnessMode;
  request: string;
  provider: string;
  model: string;
  /** The final answer, or null when the run stopped without one. */
  answer: string | null;
  stop: 'answer' | 'max-turns' | 'error';
  error?: string;
  /** What ended a run with stop 'error': a --cache-only miss, a --dry-run skip, --max-cost, or a failed call. */
  errorKind?: 'cache-miss' | 'dry-run' | 'budget' | 'provider';
  calls: TraceCall[];
  /** Sums over every call, from the provider's usage. */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
  /** Input tokens of the last call: everything that entered the conversation once (provider count). */
  finalPromptTokens: number;
  /** inputTokens - finalPromptTokens: tokens sent again because the history is resent on every call. */
  resentTokens: number;
  levels: LevelTokens[];
  /** Skills activated (progressive), in order. */
  activated: string[];
  scriptRuns: number;
}

/** Runs one request through the loop. Provider failures end the run with stop 'error' (the trace so far is kept). */
export async function runAgent(client: AgentClient, catalogue: Catalogue, request: string, opts: HarnessOptions): Promise<AgentRun> {
  const maxTurns = opts.maxTurns ?? DEFAULT_MAX_TURNS;
  const frame = opts.mode === 'progressive' ? harnessFrame(catalogue, opts.host ?? genericHost(opts.format)) : undefined;
  const loader = new SkillLoader(catalogue, { mode: opts.mode, sandbox: opts.sandbox, host: frame });
  const prefix = frame ? frame.system.map((b) => b.text).join('\n\n') : loadAllPrefix(catalogue, loader);
  const messages: Message[] = [{ role: 'user', content: frame ? frame.userMessage(request) : request }];
  const ledger = new Ledger();
  // Level 1 counts as the catalogue wherever the host puts it (a listing in the user's turn included).
  const inUserTurn = frame && frame.host.catalogue.placement === 'user-message' ? countTokens(frame.catalogueText) : 0;
  ledger.add('system', countTokens(prefix) + inUserTurn, 1);
  ledger.add('request', countTokens(request), 1);

  const run: AgentRun = {
    mode: opts.mode,
    request,
    provider: client.provider,
    model: client.model,
    answer: null,
    stop: 'max-turns',
    calls: [],
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    costUsd: 0,
    finalPromptTokens: 0,
    resentTokens: 0,
    levels: [],
    activated: loader.activated,
    scriptRuns: 0,
  };

  let lastTools = '';
  let lastBlock = '';
  for (let turn = 1; turn <= maxTurns; turn++) {
    const tools = loader.tools();
    const toolsText = JSON.stringify(tools);
    if (toolsText !== lastTools) ledger.add('tools', countTokens(toolsText) - (lastTools ? countTokens(lastTools) : 0), turn);
    lastTools = toolsText;
    const block = loader.loadedBlock();
    if (block !== lastBlock) ledger.add('other', countTokens(block) - (lastBlock ? countTokens(lastBlock) : 0), turn);
    lastBlock = block;
    const system: SystemBlock[] = prefix ? [{ text: prefix, cache: true }] : [];
    if (block) system.push({ text: block });

    let res;
    try {
      res = await client.chat(
        { system, messages: [...messages], tools, maxOutputTokens: opts.maxOutputTokens, temperature: opts.temperature },
        { sample: opts.sample, lane: opts.lane },
      );
    } catch (err) {
      const kind = stopKind(err);
      if (!kind) throw err;
      run.stop = 'error';
      run.error = (err as Error).message;
      run.errorKind = kind;
      break;
    }
    const { response } = res;
    run.inputTokens += response.usage.inputTokens;
    run.outputTokens += response.usage.outputTokens + response.usage.thinkingTokens;
    run.cachedInputTokens += response.usage.cachedInputTokens;
    run.costUsd += res.costUsd;
    const trace: TraceCall = {
      index: turn,
      usage: response.usage,
      cumulativeInputTokens: run.inputTokens,
      newTokens: 0,
      cached: res.cached,
      latencyMs: Math.round(res.latencyMs),
      costUsd: res.costUsd,
      text: response.text,
      toolCalls: [],
    };
    run.calls.push(trace);

    if (response.calls.length === 0) {
      run.answer = response.text;
      run.stop = 'answer';
      trace.newTokens = ledger.newAt(turn);
      opts.onCall?.(trace);
      break;
    }
    messages.push({ role: 'assistant', text: response.text, calls: response.calls, raw: response.raw });
    // The next call carries this assistant turn and the tool results.
    ledger.add('assistant', countTokens(response.text + JSON.stringify(response.calls.map((c) => ({ name: c.name, args: c.args })))), turn + 1);

    const results: ToolResult[] = [];
    const lastTurn = turn === maxTurns;
    for (const call of response.calls) {
      if (lastTurn) {
        trace.toolCalls.push({ id: call.id, name: call.name, args: call.args, level: 'error', isError: false, resultChars: 0, resultTokens: 0, skipped: true, result: '' });
        continue;
      }
      const done = await loader.execute(call);
      results.push(done.result);
      const traced = traceToolCall(call, done);
      ledger.add(sourceOf(done.level), traced.resultTokens, turn + 1);
      if (done.level === 'script') run.scriptRuns++;
      trace.toolCalls.push(traced);
    }
    trace.newTokens = ledger.newAt(turn);
    opts.onCall?.(trace);
    if (lastTurn) break;
    messages.push({ role: 'tool', results });
  }

  const n = run.calls.length;
  run.finalPromptTokens = n ? run.calls[n - 1]!.usage.inputTokens : 0;
  run.resentTokens = run.inputTokens - run.finalPromptTokens;
  run.levels = ledger.summary(n);
  return run;
}

/** Why a failed model call ends the run, or null when the error is not the run's to report (a bug: rethrown). */
function stopKind(err: unknown): AgentRun['errorKind'] | null {
  if (err instanceof BudgetExceededError) return 'budget';
  if (!(err instanceof ProviderError)) return null;
  return err.name === 'CacheMissError' ? 'cache-miss' : err.name === 'DryRunError' ? 'dry-run' : 'provider';
}

/** A tool call as the trace shows it: its arguments, what came back and its size (offline token estimate). */
function traceToolCall(call: FunctionCall, done: ExecutedTool): TraceToolCall {
  const { result, script } = done;
  return {
    id: call.id,
    name: call.name,
    args: call.args,
    level: done.level,
    isError: Boolean(result.isError),
    resultChars: result.content.length,
    resultTokens: countTokens(result.content),
    result: result.content,
    ...(script ? { script: { exitCode: script.exitCode, timedOut: script.timedOut, truncated: script.truncated, durationMs: script.durationMs, sandbox: script.isolation } } : {}),
  };
}

/** Load-all mode's system text, which never changes during a run: every skill with all of its files. */
export function loadAllPrefix(catalogue: Catalogue, loader: SkillLoader): string {
  return `${LOAD_ALL_PREAMBLE}\n\n${renderLoadAll(catalogue.skills, loader.readResource)}`;
}

/**
 * Progressive mode's first turn under a host: its system text and catalogue, and skillbench's agent words (the
 * generic host has none of its own) or a note on the level-3 tools every host's agent is given.
 */
export function harnessFrame(catalogue: Catalogue, host: Host): HostFrame {
  const agentWords = host.name === 'generic' && host.system === '' ? PROGRESSIVE_PREAMBLE : LEVEL_THREE_NOTE;
  return hostFrame(host, catalogue.skills, { agentWords });
}

function sourceOf(level: ToolLevel): TokenSource {
  switch (level) {
    case 'body':
      return 'bodies';
    case 'resource':
      return 'resources';
    case 'script':
      return 'scripts';
    default:
      return 'other';
  }
}

/** What entered the conversation, from which source, at which call (each item is then resent on every later call). */
class Ledger {
  private items: { source: TokenSource; tokens: number; firstCall: number }[] = [];
  add(source: TokenSource, tokens: number, firstCall: number): void {
    if (tokens !== 0) this.items.push({ source, tokens, firstCall });
  }
  newAt(call: number): number {
    return this.items.filter((i) => i.firstCall === call).reduce((s, i) => s + i.tokens, 0);
  }
  summary(calls: number): LevelTokens[] {
    return TOKEN_SOURCES.map((source) => {
      const sent = this.items.filter((i) => i.source === source && i.firstCall <= calls);
      return {
        source,
        once: sent.reduce((s, i) => s + i.tokens, 0),
        carried: sent.reduce((s, i) => s + i.tokens * (calls - i.firstCall + 1), 0),
      };
    });
  }
}

/** The label of each token source in the trace, by mode. */
export function sourceLabel(source: TokenSource, mode: HarnessMode): string {
  switch (source) {
    case 'system':
      return mode === 'progressive' ? 'catalogue (level 1)' : 'all skills (load-all)';
    case 'bodies':
      return 'skill bodies (level 2)';
    case 'resources':
      return 'files read (level 3)';
    case 'scripts':
      return 'script output (level 3)';
    case 'tools':
      return 'tool declarations';
    case 'request':
      return 'request';
    case 'assistant':
      return "model's tool calls";
    case 'other':
      return 'other (refusals, loaded list, profile tools)';
  }
}

// ---------------------------------------------------------------- trace (e2e output)

const fmt = (n: number) => n.toLocaleString('en-US');

function preview(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}

/** The trace of one run: each call, each tool call with its arguments and result size, tokens per call and cumulated. */
export function formatTrace(run: AgentRun): string {
  const out: string[] = [];
  out.push(`== ${run.mode} · ${run.provider}/${run.model}`);
  if (run.calls.length === 0) {
    out.push(`stopped before the first call: ${run.error ?? 'no call made'}`);
    return out.join('\n');
  }
  for (const c of run.calls) {
    const cache = c.usage.cachedInputTokens ? `, ${fmt(c.usage.cachedInputTokens)} from prompt cache` : '';
    out.push(
      `call ${c.index}: input ${fmt(c.usage.inputTokens)} tokens (~${fmt(c.newTokens)} new${cache}), output ${fmt(c.usage.outputTokens + c.usage.thinkingTokens)}, cumulative input ${fmt(c.cumulativeInputTokens)}${c.cached ? ' [replayed from cache]' : ''}`,
    );
    if (c.toolCalls.length > 0 && c.text.trim()) out.push(`  says: ${preview(c.text)}`);
    for (const t of c.toolCalls) {
      const args = JSON.stringify(t.args);
      if (t.skipped) {
        out.push(`  -> ${t.name} ${args}  (not run: --max-turns reached)`);
        continue;
      }
      const status = t.script ? scriptStatus(t.script) : t.isError ? 'refused' : t.level;
      out.push(`  -> ${t.name} ${args}  [${status}] result ${fmt(t.resultChars)} chars, ~${fmt(t.resultTokens)} tokens`);
      if (t.isError && t.level !== 'script') out.push(`     ${preview(t.result)}`);
    }
    if (c.toolCalls.length === 0) out.push(`  answer (${fmt(c.text.length)} chars)`);
  }
  if (run.stop === 'error') out.push(`stopped: ${run.error}`);
  if (run.stop === 'max-turns') out.push(`stopped: --max-turns reached after ${run.calls.length} calls without a final answer`);
  const share = run.inputTokens ? ` (${Math.round((100 * run.resentTokens) / run.inputTokens)}%)` : '';
  out.push(
    `total: ${fmt(run.inputTokens)} input tokens over ${run.calls.length} call${run.calls.length === 1 ? '' : 's'}: ` +
      `${fmt(run.finalPromptTokens)} entered the conversation once, ${fmt(run.resentTokens)}${share} were history resent on later calls`,
  );
  out.push('brought in, by source (o200k estimate; "carried" = times the calls that resent it):');
  for (const l of run.levels.filter((x) => x.once !== 0)) {
    out.push(`  ${sourceLabel(l.source, run.mode).padEnd(44)} once ${fmt(l.once).padStart(8)}   carried ${fmt(l.carried).padStart(9)}`);
  }
  if (run.answer !== null) out.push('answer:', run.answer.trim());
  return out.join('\n');
}

function scriptStatus(r: NonNullable<TraceToolCall['script']>): string {
  const end = r.timedOut ? 'killed at the timeout' : r.exitCode === null ? 'killed' : `exit ${r.exitCode}`;
  return [end, `${fmt(r.durationMs)} ms`, r.truncated ? 'output truncated' : '', r.sandbox].filter(Boolean).join(', ');
}

/** One line comparing the modes on the same request. */
export function formatComparison(runs: AgentRun[]): string {
  const p = runs.find((r) => r.mode === 'progressive');
  const l = runs.find((r) => r.mode === 'load-all');
  if (!p || !l || p.calls.length === 0 || l.calls.length === 0) return '';
  const ratio = l.inputTokens ? p.inputTokens / l.inputTokens : NaN;
  return (
    `progressive vs load-all: ${fmt(p.inputTokens)} vs ${fmt(l.inputTokens)} input tokens ` +
    `(${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'}x; load-all costs ${Number.isFinite(ratio) && ratio > 0 ? (1 / ratio).toFixed(1) : '-'}x as much), ` +
    `${p.calls.length} vs ${l.calls.length} calls`
  );
}
