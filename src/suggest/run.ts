// What `skillbench suggest` does, composed from the core pieces: one suggestion for a request, or the three-arm
// evaluation with --eval. Kept apart from the command file so that `--help` loads none of it.
import { readFile } from 'node:fs/promises';
import { ProviderError, UserError } from '../errors.js';
import type { HostCliOptions, ProviderOptions } from '../options.js';
import type { Host } from '../hosts/profile.js';
import type { Catalogue, EvalRequest, HostSummary, ScoredSkill, Skill } from '../types.js';
import { DEFAULT_PREAMBLE, runSuggestEval, suggestAgentHost } from './arms.js';
import type { ChatClient } from '../client.js';
import { MalformedAnswer } from './llm.js';
import { renderArms, renderRanking, renderSuggestion } from './render.js';
import { SuggestFailure, suggestable, suggestSkill, type SuggestSettings } from './suggester.js';
import { createFusedRanker, createSimilarityRanker, type Ranker } from './wide.js';

export interface SuggestCliOptions extends ProviderOptions, SuggestSettings, HostCliOptions {
  skills: string;
  suggesterModel?: string;
  rankOnly?: boolean;
  eval?: boolean;
  requests?: string;
  preamble?: string;
  /** Files to write (-o; without --eval: .json only, the suggestion). */
  output?: string[];
  /** Print JSON on stdout instead of the text. */
  json?: boolean;
  progress: boolean;
}

export type Out = (text: string) => void;

const stdout: Out = (text) => {
  process.stdout.write(text);
};

/** What a user without a key can do once the offline part is done. */
const NEEDS_MODEL_FIX =
  'set GEMINI_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY; or use a local OpenAI-compatible server with ' +
  '--provider openai --base-url URL (e.g. http://localhost:11434/v1 for Ollama); or replay answers cached by an ' +
  'earlier run with --cache-only';

export function settingsFrom(opts: SuggestCliOptions): SuggestSettings {
  const settings: SuggestSettings = {
    wide: opts.wide,
    gate: opts.gate,
    fit: opts.fit,
    shortlist: opts.shortlist,
    excerpt: opts.excerpt,
    chunkSize: opts.chunkSize,
  };
  if (settings.wide === 'model' && settings.chunkSize < 2 * settings.shortlist) {
    throw new UserError(
      `--chunk-size ${settings.chunkSize} is too small for --shortlist ${settings.shortlist}`,
      `use a --chunk-size of at least ${2 * settings.shortlist} (each chunk keeps its ${settings.shortlist} best, so a smaller chunk may never shrink the catalogue)`,
    );
  }
  return settings;
}

async function loadSkills(path: string): Promise<{ catalogue: Catalogue; skills: Skill[] }> {
  const { loadCatalogue, assertUsable } = await import('../catalogue.js');
  const catalogue = await loadCatalogue(path);
  assertUsable(catalogue);
  const skills = suggestable(catalogue.skills);
  if (skills.length === 0) {
    throw new UserError(`${path}: every skill is marked "never"; there is nothing to suggest`, 'mark at least one skill available');
  }
  return { catalogue, skills };
}

/** The offline ranker of `--wide fused|similarity`; a provider failure or a --cache-only miss is the user's to fix. */
async function offlineRanker(opts: SuggestCliOptions, skills: Skill[], mode: 'fused' | 'similarity'): Promise<Ranker> {
  const { createEmbedder } = await import('../client.js');
  try {
    // A person at a terminal is told what the silent wait is (stderr: stdout stays the answer or its JSON).
    const onEmbeddingLoad = process.stderr.isTTY
      ? () => console.error(opts.embeddings === undefined || opts.embeddings === 'use' ? 'skillbench: loading the offline model (first run only)' : `skillbench: embedding the catalogue with ${opts.embeddings}`)
      : undefined;
    const embedder = await createEmbedder(opts, { onEmbeddingLoad });
    const ranker = mode === 'fused' ? await createFusedRanker(embedder, skills) : await createSimilarityRanker(embedder, skills);
    return async (text) => {
      try {
        return await ranker(text);
      } catch (err) {
        throw embeddingError(err, mode);
      }
    };
  } catch (err) {
    throw embeddingError(err, mode);
  }
}

function embeddingError(err: unknown, mode: string): unknown {
  if (!(err instanceof ProviderError)) return err;
  if (err.name === 'UnreadableText') return new UserError(`--wide ${mode}: ${err.message}`, 'use --wide model, or --embeddings gemini or openai, which read other languages');
  const fix =
    err.name === 'CacheMissError'
      ? 'run once without --cache-only to embed the catalogue, or use --embeddings use (offline)'
      : 'check the key and --embedding-model, or use --embeddings use (offline)';
  return new UserError(`--wide ${mode}: the embeddings failed: ${err.message}`, fix);
}

/** The ranker of an offline wide mode, or undefined for --wide model. */
function rankerFor(opts: SuggestCliOptions, skills: Skill[], settings: SuggestSettings): Promise<Ranker> | undefined {
  return settings.wide === 'model' ? undefined : offlineRanker(opts, skills, settings.wide);
}

/** Failures of a suggestion in the single-request command: the user's to fix (key, model, cache), never a stack. */
function suggestionError(err: unknown): unknown {
  const cause = err instanceof SuggestFailure ? err.cause : err;
  if (cause instanceof UserError) return cause;
  if (cause instanceof ProviderError && cause.name === 'CacheMissError') {
    return new UserError(cause.message, 'run once without --cache-only (with a key) to fill the cache');
  }
  if (cause instanceof MalformedAnswer) {
    return new UserError(cause.message, 'try another --model, or a provider with native structured output');
  }
  if (cause instanceof ProviderError) {
    return new UserError(
      `the provider call failed: ${cause.message}`,
      'check the key, --model and --base-url, then rerun (answers already received are cached)',
    );
  }
  if (cause instanceof Error && cause.name === 'BudgetExceededError') {
    return new UserError(cause.message, 'raise --max-cost');
  }
  return cause;
}

function isDryRun(err: unknown): boolean {
  const cause = err instanceof SuggestFailure ? err.cause : err;
  return cause instanceof Error && cause.name === 'DryRunError';
}

export async function runSuggest(request: string | undefined, opts: SuggestCliOptions, out: Out = stdout): Promise<void> {
  if (request === undefined || request.trim() === '') {
    throw new UserError('no request given', 'skillbench suggest "what the user asked", or skillbench suggest --eval --requests FILE');
  }
  const notJson = (opts.output ?? []).find((f) => !f.toLowerCase().endsWith('.json'));
  if (notJson) throw new UserError(`-o ${notJson}: a suggestion is written as JSON only`, 'name the file FILE.json (reports in other formats come from --eval)');
  const settings = settingsFrom(opts);
  if (opts.rankOnly && settings.wide === 'model') {
    throw new UserError('--rank-only ranks offline, which needs --wide fused or --wide similarity', 'add --wide fused, or drop --rank-only');
  }
  const { skills } = await loadSkills(opts.skills);
  // --host: the agent the block is for; its listing says whether the suggested skill is visible there at all.
  const hostView = opts.host !== undefined || opts.listingBudget !== undefined ? await agentListing(opts, skills) : undefined;
  let preRanked: ScoredSkill[] | undefined;
  const ranker = rankerFor(opts, skills, settings);
  if (ranker) {
    preRanked = await (await ranker)(request);
    if (opts.rankOnly) {
      await emit(opts, out, { request, ranking: preRanked.slice(0, Math.max(10, settings.shortlist)) }, () =>
        renderRanking(preRanked!, Math.max(10, settings.shortlist), `ranking by ${settings.wide} (${opts.embeddings}), ${skills.length} skills:`),
      );
      return;
    }
  }
  const { createChatClient, availableChatProvider } = await import('../client.js');
  // A dry run needs no key: with no provider at all it is estimated for the default one (and says so).
  const { dryRunProvider, describeDryRun } = await import('../dryrun.js');
  const dry = dryRunProvider(opts, Boolean(availableChatProvider()));
  let suggester: ChatClient;
  try {
    // Here the suggester is the only model: --suggester-model, when given, wins over --model.
    suggester = await createChatClient(opts.suggesterModel ? { ...dry.opts, model: opts.suggesterModel } : dry.opts);
  } catch (err) {
    if (!(err instanceof UserError) || !preRanked) throw err;
    // The offline part is done: show it, then say what the model steps need.
    const top = settings.shortlist;
    await emit(opts, out, { request, ranking: preRanked.slice(0, Math.max(10, top)), complete: false }, () =>
      renderRanking(preRanked!, Math.max(10, top), `offline shortlist (${settings.wide}, ${opts.embeddings}) of ${skills.length} skills; the first ${top} go to the narrow stage:`),
    );
    throw new UserError(
      `--wide ${settings.wide} ranked the catalogue offline (above); the gate and the narrow stage need a model (${err.message})`,
      NEEDS_MODEL_FIX,
    );
  }
  let suggestion;
  try {
    suggestion = await suggestSkill(request, { chat: suggester, skills, settings }, preRanked);
  } catch (err) {
    if (!opts.dryRun || !isDryRun(err)) throw suggestionError(err);
    const notes = ['(the narrow stage depends on the wide stage\'s answer: one more call when the gate opens)', ...(dry.note ? [dry.note] : [])];
    out(describeDryRun(suggester.dryRunReport(), notes) + '\n');
    return;
  }
  const model = `${suggester.provider}/${suggester.model}`;
  const seen = hostView ? visibilityOf(hostView.summary, suggestion.skill) : '';
  await emit(opts, out, { ...suggestion, model, settings, ...(hostView ? { host: hostView.summary } : {}) }, () =>
    renderSuggestion(suggestion, { model, wide: settings.wide, fit: settings.fit }) + (seen ? `${seen}\n` : ''),
  );
}

/** What the host's listing shows of the suggested skill, when not all of it: the block names it either way. */
function visibilityOf(summary: HostSummary, skill: string | null): string {
  if (skill === null) return '';
  const l = summary.listing;
  if (l.dropped.includes(skill)) return `note: ${summary.name}'s listing drops "${skill}" (over its budget): the agent sees it only through this suggestion`;
  if (l.namesOnly.includes(skill)) return `note: ${summary.name}'s listing shows "${skill}" by name only (over its budget)`;
  return '';
}

/** Prints text, or JSON on stdout (`--json`); each -o FILE.json gets the JSON too. */
async function emit(opts: SuggestCliOptions, out: Out, value: unknown, text: () => string): Promise<void> {
  const body = JSON.stringify(value, null, 2) + '\n';
  out(opts.json ? body : text());
  if (opts.output?.length) {
    const { writeOutputFile } = await import('../fsutil.js');
    for (const file of opts.output) await writeOutputFile(file, body);
  }
}

async function readPreamble(file: string | undefined, option = '--preamble'): Promise<{ text: string; source: string }> {
  if (!file) return { text: DEFAULT_PREAMBLE, source: 'default' };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UserError(`${option} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`, 'pass a text file with the preamble to put above the index');
  }
  if (text.trim() === '') throw new UserError(`${option} ${file}: the file is empty`, `write the preamble in it, or drop ${option} to use the default`);
  return { text, source: file };
}

/**
 * The agent under test: by default Hermes' index and skill_view under skillbench's urging preamble (or the text of
 * --preamble / --system-prompt); with --host, that host's prompt, its system text replaced by either file.
 */
export async function suggestHost(opts: SuggestCliOptions): Promise<{ host: Host; source: string }> {
  if (opts.preamble && opts.systemPrompt) {
    throw new UserError('--preamble and --system-prompt both give the agent\'s system text', 'keep one (--preamble is the older name of --system-prompt)');
  }
  const file = opts.systemPrompt ?? opts.preamble;
  const { resolveHost, withListingBudget } = await import('../hosts/profile.js');
  if (opts.host !== undefined) {
    const host = await resolveHost({ host: opts.host, listingBudget: opts.listingBudget, systemPrompt: file });
    return { host, source: file ?? 'host' };
  }
  const preamble = await readPreamble(file, opts.systemPrompt ? '--system-prompt' : '--preamble');
  const host = suggestAgentHost(preamble.text, preamble.source);
  return { host: opts.listingBudget !== undefined ? withListingBudget(host, opts.listingBudget) : host, source: preamble.source };
}

async function agentListing(opts: SuggestCliOptions, skills: Skill[]): Promise<{ summary: HostSummary }> {
  const { host } = await suggestHost(opts);
  const [{ hostFrame }, { hostSummary, hostNotes }] = await Promise.all([import('../hosts/request.js'), import('../hosts/notes.js')]);
  const summary = hostSummary(host, hostFrame(host, skills).listing);
  const notes = hostNotes(summary);
  if (notes) console.error(notes);
  return { summary };
}

/** Every gold skill must be one the agent can load. */
export function checkGold(requests: EvalRequest[], skills: Skill[], file: string): void {
  const names = new Set(skills.map((s) => s.name));
  const bad = requests.find((r) => r.gold !== null && !names.has(r.gold));
  if (bad) {
    throw new UserError(
      `${file}: request "${bad.id}" has gold "${bad.gold}", which is not a loadable skill of the catalogue`,
      'fix the name, use null when no skill should load, or pass the catalogue it was written for with --skills',
    );
  }
}

export async function runSuggestEvalCommand(opts: SuggestCliOptions, out: Out = stdout): Promise<void> {
  if (!opts.requests) {
    throw new UserError('--eval needs a request set', 'pass --requests FILE: [{"id", "text", "gold": skill name or null}]');
  }
  const settings = settingsFrom(opts);
  if (opts.rankOnly) throw new UserError('--rank-only does not apply to --eval', 'drop --rank-only');
  // Check the output names before the run, so a typo does not throw away a paid run.
  const files = opts.output ?? [];
  const { formatOf, writeOutputs } = await import('../report/index.js');
  for (const file of files) formatOf(file);
  const { catalogue, skills } = await loadSkills(opts.skills);
  const { loadRequests } = await import('../requests.js');
  const requests = await loadRequests(opts.requests);
  if (requests.length === 0) throw new UserError(`${opts.requests}: no requests`, 'add at least one request');
  const withCandidates = requests.find((r) => r.candidates !== undefined);
  if (withCandidates) {
    // The suggester sees the whole catalogue; a candidate list it cannot honour must not be dropped without a word.
    throw new UserError(`${opts.requests}: request "${withCandidates.id}" has a "candidates" list, which suggest --eval does not support`,
      'remove the candidates (suggest ranks the whole catalogue), or measure per-request candidates with eval-trigger');
  }
  checkGold(requests, skills, opts.requests);
  const agentHost = await suggestHost(opts);
  const { hostNotice } = await import('../hosts/notes.js');
  const notice = hostNotice(agentHost.host, skills);
  if (notice) console.error(notice);
  const { createChatClient, availableChatProvider } = await import('../client.js');
  // A dry run needs no key: with no provider at all it is estimated for the default one (and says so).
  const { dryRunProvider, describeDryRun, cacheOnlyNotice } = await import('../dryrun.js');
  const dry = dryRunProvider(opts, Boolean(availableChatProvider()));
  const agent = await createChatClient(dry.opts);
  const suggester = opts.suggesterModel ? await createChatClient({ ...dry.opts, model: opts.suggesterModel }) : agent;
  const ranker = await rankerFor(opts, skills, settings);
  const { createProgress } = await import('../progress.js');
  const progress = createProgress({
    live: Boolean(process.stderr.isTTY) && opts.progress,
    title: opts.dryRun ? 'suggest --eval --dry-run (nothing is called)' : 'suggest --eval',
    dryRun: opts.dryRun,
  });
  let outcome;
  try {
    outcome = await runSuggestEval({
      catalogue,
      requests,
      agent,
      suggester,
      settings,
      ranker,
      host: agentHost.host,
      preambleSource: agentHost.source,
      progress,
      concurrency: opts.concurrency,
      extraSettings: {
        skills: opts.skills,
        requestsFile: opts.requests,
        embeddings: settings.wide !== 'model' ? opts.embeddings : undefined,
        cacheOnly: Boolean(opts.cacheOnly),
      },
    });
  } finally {
    progress.stop();
  }
  const { results, comparison } = outcome;
  const clients = suggester === agent ? [agent] : [agent, suggester];
  if (opts.dryRun) {
    const notes = [`(the suggester's narrow stage depends on its wide stage's answers: up to ${requests.length} more calls)`, ...(dry.note ? [dry.note] : [])];
    out(clients.map((c, i) => describeDryRun(c.dryRunReport(), i === clients.length - 1 ? notes : [])).join('\n') + '\n');
    return;
  }
  const { completenessOf, incompleteFailure } = await import('../completeness.js');
  const stopped = clients.map((c) => c.stats().runStopped).find(Boolean);
  results.completeness = completenessOf(results.runs, opts.maxErrorRate ?? 0, stopped);
  if (opts.cacheOnly) {
    const notice = cacheOnlyNotice(clients.reduce((sum, c) => ({ cacheHits: sum.cacheHits + c.stats().cacheHits, cacheMisses: sum.cacheMisses + c.stats().cacheMisses }), { cacheHits: 0, cacheMisses: 0 }), opts.cacheDir, 'model requests');
    if (notice) console.error(notice);
  }
  if (files.length) await writeOutputs(results, files);
  const { cacheMissFailure } = await import('../client.js');
  const missing = cacheMissFailure(clients.map((c) => c.stats())) ?? incompleteFailure(results.completeness);
  if (opts.json) {
    out(JSON.stringify(results, null, 2) + '\n');
    if (missing) throw missing;
    return;
  }
  const { computeMetrics } = await import('../metrics.js');
  const { renderTerminalReport } = await import('../report/terminal.js');
  const metrics = results.runs.map((run) => computeMetrics(run, requests));
  const { layoutFor } = await import('../colors.js');
  out(renderTerminalReport(results, metrics, layoutFor()));
  out('\n' + renderArms(results, metrics, comparison));
  out('\n' + clients.map((c) => c.summary()).join('\n') + '\n');
  if (files.length) out(`wrote ${files.join(', ')}\n`);
  if (missing) throw missing;
}
