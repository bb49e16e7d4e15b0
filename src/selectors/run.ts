// One eval-trigger run: load the catalogue and requests, decide which selectors can run, run them (score selectors
// ranked once, thresholds fixed, taken from a baseline, calibrated or chosen on the same requests), and assemble the
// results file.
// The command (src/commands/eval-trigger.ts) parses options and prints; everything it computes comes from here.
import path from 'node:path';
import { ProviderError, UserError } from '../errors.js';
import { safeUrl } from '../secrets.js';
import { chooseThreshold, scoredItem, topOf } from '../metrics.js';
import { RESULTS_VERSION, resultsSkill } from '../results.js';
import type { ProviderOptions } from '../options.js';
import type {
  Catalogue,
  CatalogueFormat,
  Decision,
  EmbeddingProvider,
  EvalRequest,
  Lane,
  Progress,
  ResultsFile,
  ScoredSkill,
  SelectorRun,
  Skill,
  ThresholdInfo,
} from '../types.js';
import type { EvalInputs } from '../eval-inputs.js';
import {
  CHAT_SELECTORS, SCORE_RANGES, SELECTOR_NAMES, hasCandidates, keepTop, restrictRankings, scoreRun, type SelectorChatClient, type SelectorName,
} from './index.js';

export interface EvalTriggerOptions extends ProviderOptions {
  skills?: string;
  requests?: string;
  skill?: string;
  format: CatalogueFormat;
  /** Explicit --selectors (undefined: every selector that can run here). */
  selectors?: SelectorName[];
  k: number;
  /** --threshold: one value for every score selector, or per selector. */
  threshold?: Partial<Record<'similarity' | 'keyword' | '*', number>>;
  /**
   * --threshold baseline: the --baseline results file (as given, and read) whose score selectors' thresholds this run
   * applies. Resolved into `threshold` before any call; the applied thresholds record the file as their source.
   */
  thresholdBaseline?: { file: string; results: ResultsFile };
  calibrate?: string;
  runs: number;
}

export interface Availability {
  run: SelectorName[];
  /** Selectors left out by default (no model reachable here; explicit when no request names a skill), and the lines that say why. */
  skipped: SelectorName[];
  message?: string;
}

const KEY_VARS = 'GEMINI_API_KEY (or GOOGLE_API_KEY), ANTHROPIC_API_KEY or OPENAI_API_KEY';

/**
 * Which selectors run. With explicit --selectors every one asked for runs (a missing key is then an error from the
 * client, naming the variable). By default, the chat selectors run only when a model is reachable: a key, an explicit
 * --provider (a local server, or a --cache-only replay), or --base-url; and `explicit` only when some request names a
 * skill (/name, @name): on other sets it loads nothing by construction, a figure about nothing.
 */
export function availableSelectors(requested: SelectorName[] | undefined, chatReachable: boolean, someRequestNamesASkill = true): Availability {
  if (requested) return { run: requested, skipped: [] };
  const noModel = chatReachable ? [] : CHAT_SELECTORS;
  const noMention: SelectorName[] = someRequestNamesASkill ? [] : ['explicit'];
  const run = SELECTOR_NAMES.filter((s) => !noModel.includes(s) && !noMention.includes(s));
  const skipped = SELECTOR_NAMES.filter((s) => !run.includes(s));
  const lines: string[] = [];
  if (noModel.length) {
    lines.push(`skillbench: skipped ${noModel.join(', ')} (no model API key found): set ${KEY_VARS}, ` +
      `use a local server with --provider openai --base-url http://localhost:11434/v1, or replay cached answers with --provider <id> --cache-only`);
  }
  if (noMention.length) lines.push('skillbench: skipped explicit (no request names a skill with /name or @name, so it would load nothing): pass --selectors to run it anyway');
  return { run, skipped, message: lines.length ? lines.join('\n') : undefined };
}

/** A --threshold number outside a running score selector's score range is refused (it would load everything or nothing). */
export function checkThresholdRange(threshold: EvalTriggerOptions['threshold'], selectors: readonly string[]): void {
  if (!threshold) return;
  for (const [selector, range] of Object.entries(SCORE_RANGES)) {
    const own = threshold[selector as keyof typeof SCORE_RANGES];
    const value = own ?? threshold['*'];
    if (value === undefined || (own === undefined && !selectors.includes(selector))) continue;
    if (value < range.min || value > range.max) {
      throw new UserError(
        `--threshold ${own === undefined ? value : `${selector}=${value}`}: outside the score range of ${selector} (${range.what}, ${range.min} to ${range.max}): it would ${value > range.max ? 'never load a skill' : 'load the top skill on every request'}`,
        `give ${selector} a threshold between ${range.min} and ${range.max}${own === undefined ? ', or one per selector (similarity=0.5,keyword=0.3)' : ''}`,
      );
    }
  }
}

export function parseSelectors(value: string): SelectorName[] {
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (!names.length) throw new UserError('--selectors: no selector given', `give a comma-separated list of ${SELECTOR_NAMES.join(', ')}`);
  for (const n of names) {
    if (!(SELECTOR_NAMES as readonly string[]).includes(n)) {
      throw new UserError(`--selectors: unknown selector "${n}"`, `use a comma-separated list of ${SELECTOR_NAMES.join(', ')}`);
    }
  }
  return [...new Set(names)] as SelectorName[];
}

/** `0.6` (every score selector) or `similarity=0.6,keyword=0.3`. (`baseline` is read by the command, with --baseline.) */
export function parseThreshold(value: string): NonNullable<EvalTriggerOptions['threshold']> {
  const out: NonNullable<EvalTriggerOptions['threshold']> = {};
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [key, num] = part.includes('=') ? part.split('=', 2) as [string, string] : ['*', part];
    const x = Number(num);
    if (!['*', 'similarity', 'keyword'].includes(key) || !Number.isFinite(x)) {
      throw new UserError(`--threshold: cannot read "${part}"`, 'give a number (every score selector), similarity=0.6,keyword=0.3, or baseline (with --baseline FILE)');
    }
    out[key as 'similarity' | 'keyword' | '*'] = x;
  }
  return out;
}

export interface RunContext {
  catalogue: Catalogue;
  skills: Skill[];
  requests: EvalRequest[];
  calibration?: EvalRequest[];
  /** Calibration requests also scored (same text): the calibrated threshold is then labelled in-sample. */
  calibrationShared?: number;
  progress: Progress;
  /** Created on demand (SDKs load only when a chat selector runs). */
  chatClient: () => Promise<SelectorChatClient & { summary?(): string; dryRunReport?(): unknown; stats?(): { cacheMisses: number; cacheHits?: number; runStopped?: string | null } }>;
  /** `onLoad`: called before the embedding model is first loaded (a vector is not cached), so the wait can be named. */
  embedder: (onLoad?: () => void) => Promise<EmbeddingProvider>;
}

/** Runs the selectors: the model's calls start first and run while the offline selectors compute; hybrid once similarity is ready. */
export async function runSelectors(ctx: RunContext, selectors: SelectorName[], opts: EvalTriggerOptions): Promise<SelectorRun[]> {
  const { skills, requests, progress } = ctx;
  const lanes = new Map(selectors.map((s) => {
    const chat = CHAT_SELECTORS.includes(s);
    return [s, progress.lane(s, chat ? requests.length * opts.runs : requests.length, { offline: !chat })];
  }));
  const runs = new Map<SelectorName, SelectorRun>();
  const chat: Promise<void>[] = [];
  // The client first: a missing key fails before anything is computed, and the model's calls (network-bound) run
  // while the offline selectors compute (CPU-bound).
  const needsChat = selectors.includes('model') || selectors.includes('hybrid');
  const client = needsChat ? await ctx.chatClient() : undefined;
  if (client && selectors.includes('model')) {
    const { runModelSelector } = await import('./model.js');
    const model = runModelSelector(client, skills, requests, { format: opts.format, runs: opts.runs, lane: lanes.get('model') }).then((r) => void runs.set('model', r));
    model.catch(() => undefined); // awaited below; if an offline step throws first, this must not be an unhandled rejection
    chat.push(model);
  }

  if (selectors.includes('explicit')) {
    const { runExplicitSelector } = await import('./explicit.js');
    runs.set('explicit', runExplicitSelector(skills, requests));
    lanes.get('explicit')!.done = requests.length;
  }
  if (selectors.includes('keyword')) {
    const { rankByKeyword } = await import('./keyword.js');
    // Requests with their own candidates: every skill ranked, then cut to the candidates (see restrictRankings).
    const rank = (rs: EvalRequest[], lane?: Lane) =>
      hasCandidates(rs) ? restrictRankings(rankByKeyword(skills, rs, lane, skills.length), rs, keepTop) : rankByKeyword(skills, rs, lane);
    const rankings = rank(requests, lanes.get('keyword'));
    const threshold = thresholdFor('keyword', opts, rankings, ctx, () => rank(ctx.calibration!));
    runs.set('keyword', scoreRun('keyword', requests, rankings, await threshold));
  }
  // similarity and hybrid share one ranking; a failed embedding provider makes both runs errors, not a crash.
  let similarity: ScoredSkill[][] | undefined;
  if (selectors.includes('similarity') || selectors.includes('hybrid')) {
    const ranked = await rankSimilarity(ctx, selectors, opts, lanes.get('similarity'), lanes.get('similarity') ?? lanes.get('hybrid'));
    similarity = ranked.rankings;
    for (const run of ranked.runs) runs.set(run.selector as SelectorName, run);
  }
  if (client && selectors.includes('hybrid') && similarity) {
    const { runHybridSelector } = await import('./hybrid.js');
    chat.push(
      runHybridSelector(client, skills, requests, similarity, { k: opts.k, format: opts.format, runs: opts.runs, lane: lanes.get('hybrid') }).then((r) => void runs.set('hybrid', r)),
    );
  }
  await Promise.all(chat);
  // In the order asked for (or the default order).
  return selectors.filter((s) => runs.has(s)).map((s) => runs.get(s)!);
}

/**
 * The similarity ranking of every request (kept deep enough for hybrid's k) and the similarity run. When the embedding
 * provider fails (after its retries), no ranking: the similarity and hybrid runs are then all error decisions.
 */
async function rankSimilarity(
  ctx: RunContext,
  selectors: SelectorName[],
  opts: EvalTriggerOptions,
  lane: Lane | undefined,
  statusLane: Lane | undefined,
): Promise<{ rankings?: ScoredSkill[][]; runs: SelectorRun[] }> {
  const { skills, requests } = ctx;
  // The silent wait named: loading the embedding model (a first run; later runs read cached vectors) and embedding.
  const offline = (opts.embeddings ?? 'use') === 'use';
  const embedder = await ctx.embedder(() => {
    if (statusLane) statusLane.status = offline ? 'loading the offline model (first run only)' : `embedding with ${opts.embeddings}`;
  });
  const source = { provider: embedder.id, model: embedder.model };
  try {
    const { createSimilarityRanker } = await import('./similarity.js');
    const ranker = await createSimilarityRanker(embedder, skills);
    if (statusLane?.status) statusLane.status = 'embedding the requests';
    // hybrid shows the model the top k: keep at least k candidates even where a large catalogue keeps 10.
    const keep = (count: number) => Math.max(keepTop(count), opts.k);
    // Requests with their own candidates: every skill ranked, then cut to the candidates (see restrictRankings).
    const rank = async (rs: EvalRequest[], l?: Lane) => {
      const texts = rs.map((r) => r.text);
      return hasCandidates(rs) ? restrictRankings(await ranker.rank(texts, { lane: l, keep: skills.length }), rs, keep) : ranker.rank(texts, { lane: l, keep: keep(skills.length) });
    };
    const rankings = await rank(requests, lane);
    if (statusLane) statusLane.status = undefined;
    if (!selectors.includes('similarity')) return { rankings, runs: [] };
    const threshold = await thresholdFor('similarity', opts, rankings, ctx, () => rank(ctx.calibration!));
    return { rankings, runs: [scoreRun('similarity', requests, rankings, threshold, source)] };
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    const error = `embeddings: ${err.message}`;
    const runs: SelectorRun[] = [];
    if (selectors.includes('similarity')) runs.push({ selector: 'similarity', kind: 'score', ...source, decisions: errorDecisions(requests, 1, error) });
    if (selectors.includes('hybrid')) runs.push({ selector: 'hybrid', kind: 'decision', decisions: errorDecisions(requests, opts.runs, error) });
    return { runs };
  }
}

function errorDecisions(requests: EvalRequest[], runs: number, error: string): Decision[] {
  const out: Decision[] = [];
  for (let run = 0; run < runs; run++) for (const r of requests) out.push({ requestId: r.id, run, chosen: null, error });
  return out;
}

/**
 * The threshold a score selector applies: --threshold (a value, or the baseline's), else chosen on --calibrate requests,
 * else on these (optimistic).
 */
async function thresholdFor(
  selector: 'similarity' | 'keyword',
  opts: EvalTriggerOptions,
  rankings: ScoredSkill[][],
  ctx: Pick<RunContext, 'requests' | 'calibration' | 'calibrationShared'>,
  rankCalibration: () => ScoredSkill[][] | Promise<ScoredSkill[][]>,
): Promise<ThresholdInfo> {
  const fixed = opts.threshold?.[selector] ?? opts.threshold?.['*'];
  // Taken from the baseline: a fixed value, and the file it came from (calibrationFile: where the value was chosen).
  if (fixed !== undefined) return opts.thresholdBaseline ? { value: fixed, source: 'fixed', calibrationFile: opts.thresholdBaseline.file } : { value: fixed, source: 'fixed' };
  const { calibration } = ctx;
  if (opts.calibrate && calibration) {
    const value = chooseThreshold(calibrationItems(await rankCalibration(), calibration));
    if (value === null) throw new UserError(`${opts.calibrate}: no request to choose a threshold on`, 'give a request file with covered and uncovered requests');
    const info: ThresholdInfo = { value, source: 'calibrated', calibrationFile: opts.calibrate };
    // Requests both chosen on and scored: the figure on them is optimistic, and the report says how many.
    if (ctx.calibrationShared) info.inSample = { shared: ctx.calibrationShared, of: calibration.length };
    return info;
  }
  const value = chooseThreshold(calibrationItems(rankings, ctx.requests)) ?? 0;
  return { value, source: 'optimistic' };
}

/** --threshold baseline resolved: each score selector that runs gets the threshold its baseline run applied. */
async function thresholdsFromBaseline(opts: EvalTriggerOptions, from: NonNullable<EvalTriggerOptions['thresholdBaseline']>, selectors: SelectorName[]) {
  if (opts.calibrate) {
    throw new UserError('--threshold baseline and --calibrate both set the thresholds', 'keep one: the baseline\'s thresholds, or thresholds chosen on --calibrate requests');
  }
  const { baselineThresholds } = await import('../gate.js');
  return baselineThresholds(from.results, from.file, selectors, { provider: opts.embeddings ?? 'use', model: opts.embeddingModel });
}

function calibrationItems(rankings: ScoredSkill[][], requests: EvalRequest[]) {
  return requests.map((r, i) => scoredItem(r, topOf(rankings[i])));
}

export interface EvalTriggerDeps {
  progress: Progress;
  /** Called with the one-line notice about skipped selectors. */
  notice: (line: string) => void;
  skillbenchVersion: string;
}

export interface EvalTriggerOutcome {
  results: ResultsFile;
  /** The chat client's end-of-run summary (calls, cache hits, tokens, dollars), when a model was used. */
  clientSummary?: string;
  /** --dry-run: what the run would call and cost (the decisions are then placeholders, not results). */
  dryRun?: string;
  /** --cache-only requests that were not in the cache (counted as errors in the decisions). */
  cacheMisses: number;
  /** Model requests answered from the cache. */
  cacheHits: number;
}

/** Loads inputs, runs the selectors and returns the results file (not yet written, not yet gated). */
export async function evalTrigger(opts: EvalTriggerOptions, deps: EvalTriggerDeps): Promise<EvalTriggerOutcome> {
  const { loadEvalInputs } = await import('../eval-inputs.js');
  const inputs = await loadEvalInputs(opts, deps.notice);
  const [{ availableChatProvider }, { someRequestNamesASkill }] = await Promise.all([import('../client.js'), import('./explicit.js')]);
  // A key, an explicit provider (a local server, or a --cache-only replay), or a bare --base-url (OpenAI-compatible).
  const chatReachable = Boolean(opts.provider || opts.baseUrl || availableChatProvider(process.env));
  const availability = availableSelectors(opts.selectors, chatReachable, someRequestNamesASkill(inputs.requests));
  checkThresholdRange(opts.threshold, availability.run);
  if (opts.dryRun) return dryRunOnly(inputs, availability, opts, deps);
  if (availability.message) for (const line of availability.message.split('\n')) deps.notice(line);
  if (opts.runs > 1 && !availability.run.some((s) => CHAT_SELECTORS.includes(s))) {
    deps.notice(`skillbench: --runs ${opts.runs} repeats model and hybrid requests only; ${availability.run.join(', ')} decide the same every time, so each runs once`);
  }
  if (opts.calibrate && !availability.run.some((s) => s === 'similarity' || s === 'keyword')) {
    throw new UserError('--calibrate: no score selector (similarity, keyword) runs, so there is no threshold to calibrate', 'add similarity or keyword to --selectors');
  }
  // Before any call: a baseline that cannot give every score selector its threshold fails here, nothing paid for.
  if (opts.thresholdBaseline) opts = { ...opts, threshold: await thresholdsFromBaseline(opts, opts.thresholdBaseline, availability.run) };

  const client = await import('../client.js');
  let chat: Awaited<ReturnType<typeof client.createChatClient>> | undefined;
  const ctx: RunContext = {
    ...inputs,
    progress: deps.progress,
    chatClient: async () => (chat ??= await client.createChatClient(opts)),
    // The offline model costs nothing to recompute: --cache-only applies to paid embeddings only.
    embedder: async (onLoad) => client.createEmbedder(opts.embeddings === 'use' || opts.embeddings === undefined ? { ...opts, cacheOnly: false } : opts, { onEmbeddingLoad: onLoad }),
  };
  let runs: SelectorRun[];
  try {
    runs = await runSelectors(ctx, availability.run, opts);
  } finally {
    deps.progress.stop();
  }
  const { auditCatalogue } = await import('../audit.js');
  const { completenessOf } = await import('../completeness.js');
  return {
    results: {
      ...resultsHeader(inputs, availability, opts, deps.skillbenchVersion),
      runs,
      completeness: completenessOf(runs, opts.maxErrorRate ?? 0, chat?.stats?.().runStopped),
      tokenAudit: auditCatalogue(inputs.catalogue, opts.format),
    },
    clientSummary: chat?.summary(),
    cacheMisses: chat?.stats?.().cacheMisses ?? 0,
    cacheHits: chat?.stats?.().cacheHits ?? 0,
  };
}

/**
 * --dry-run: only the selectors that call a model run, against a client that calls nothing (hybrid still ranks by
 * similarity offline, for its shortlists); the outcome is the estimate alone. With no such selector nothing runs.
 */
async function dryRunOnly(inputs: EvalInputs, availability: Availability, opts: EvalTriggerOptions, deps: EvalTriggerDeps): Promise<EvalTriggerOutcome> {
  const { describeDryRun, offlineDryRun } = await import('../dryrun.js');
  const header = resultsHeader(inputs, availability, opts, deps.skillbenchVersion);
  const chatSelectors = availability.run.filter((s) => CHAT_SELECTORS.includes(s));
  const offline = availability.run.filter((s) => !CHAT_SELECTORS.includes(s));
  if (!chatSelectors.length) {
    deps.progress.stop();
    return { results: { ...header, runs: [] }, cacheMisses: 0, cacheHits: 0, dryRun: offlineDryRun(offline, inputs.requests.length, availability.skipped) };
  }
  const client = await import('../client.js');
  const chat = await client.createChatClient(opts);
  const ctx: RunContext = {
    ...inputs,
    progress: deps.progress,
    chatClient: async () => chat,
    embedder: async (onLoad) => client.createEmbedder({ ...opts, cacheOnly: false }, { onEmbeddingLoad: onLoad }),
  };
  try {
    await runSelectors(ctx, chatSelectors, opts);
  } finally {
    deps.progress.stop();
  }
  const notes = [
    `estimated: ${chatSelectors.join(', ')}${opts.runs > 1 ? ` (${opts.runs} runs each)` : ''}`,
    ...(offline.length ? [`not run: ${offline.join(', ')} (no model call, nothing to estimate)`] : []),
  ];
  return { results: { ...header, runs: [] }, cacheMisses: 0, cacheHits: 0, dryRun: describeDryRun(chat.dryRunReport(), notes) };
}

/** Everything of the results file but the runs: every option that shaped the run, the catalogue and the requests. */
function resultsHeader(inputs: EvalInputs, availability: Availability, opts: EvalTriggerOptions, version: string): Omit<ResultsFile, 'runs'> {
  const relative = (p: string) => path.relative(process.cwd(), p) || '.';
  return {
    schema: 'skillbench.results',
    version: RESULTS_VERSION,
    command: 'eval-trigger',
    createdAt: new Date().toISOString(),
    skillbenchVersion: version,
    settings: {
      skills: relative(inputs.catalogue.source), // the folder read (a project's skills/, when that is all it holds)
      requests: path.relative(process.cwd(), inputs.requestsPath) || '.',
      skill: opts.skill,
      evalSets: inputs.evalSets?.map((s) => ({ ...s, file: path.relative(process.cwd(), s.file) })),
      format: opts.format,
      selectors: availability.run,
      skipped: availability.skipped,
      k: opts.k,
      threshold: opts.threshold,
      thresholdFrom: opts.thresholdBaseline?.file,
      calibrate: opts.calibrate,
      runs: opts.runs,
      provider: opts.provider,
      model: opts.model,
      embeddings: opts.embeddings,
      embeddingModel: opts.embeddingModel,
      baseUrl: safeUrl(opts.baseUrl),
      cacheOnly: opts.cacheOnly ?? false,
      thinking: opts.thinking,
    },
    catalogue: {
      source: relative(inputs.catalogue.source),
      format: opts.format,
      skills: inputs.skills.map(resultsSkill),
    },
    requests: inputs.requests,
  };
}
