// One eval-trigger run: load the catalogue and requests, decide which selectors can run, run them (score selectors
// ranked once, thresholds fixed, taken from a baseline, calibrated or chosen on the same requests), and assemble the
// results file.
// The command (src/commands/eval-trigger.ts) parses options and prints; everything it computes comes from here.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { ProviderError, UserError } from '../errors.js';
import { chooseThreshold, topOf } from '../metrics.js';
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
import { CHAT_SELECTORS, SELECTOR_NAMES, keepTop, scoreRun, selectableSkills, type SelectorChatClient, type SelectorName } from './index.js';

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
  /** Selectors left out because no model is reachable here, and the one line that says how to enable them. */
  skipped: SelectorName[];
  message?: string;
}

const KEY_VARS = 'GEMINI_API_KEY (or GOOGLE_API_KEY), ANTHROPIC_API_KEY or OPENAI_API_KEY';

/**
 * Which selectors run. With explicit --selectors every one asked for runs (a missing key is then an error from the
 * client, naming the variable). By default, the chat selectors run only when a model is reachable: a key, an explicit
 * --provider (a local server, or a --cache-only replay), or --base-url.
 */
export function availableSelectors(requested: SelectorName[] | undefined, chatReachable: boolean): Availability {
  if (requested) return { run: requested, skipped: [] };
  const run = SELECTOR_NAMES.filter((s) => chatReachable || !CHAT_SELECTORS.includes(s));
  const skipped = SELECTOR_NAMES.filter((s) => !run.includes(s));
  const message = skipped.length
    ? `skillbench: skipped ${skipped.join(', ')} (no model API key found): set ${KEY_VARS}, ` +
      `use a local server with --provider openai --base-url http://localhost:11434/v1, or replay cached answers with --provider <id> --cache-only`
    : undefined;
  return { run, skipped, message };
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

/** Resolves an input path against the working directory; a missing default gets a UserError saying which option to pass. */
export function resolveInput(given: string | undefined, fallback: string, option: string, what: string): string {
  const p = path.resolve(given ?? fallback);
  if (given === undefined && !existsSync(p)) {
    throw new UserError(`no ${fallback} in ${process.cwd()}: ${what} not found`, `pass ${option} PATH`);
  }
  return p;
}

/** Every gold skill must be in the catalogue: a typo would silently count as a wrong load otherwise. */
export function checkGolds(requests: EvalRequest[], skills: Skill[], file: string): void {
  const names = new Set(skills.map((s) => s.name));
  const missing = requests.filter((r) => r.gold !== null && !names.has(r.gold));
  if (missing.length) {
    const first = missing[0]!;
    throw new UserError(
      `${file}: request "${first.id}" field "gold" names "${first.gold}", which is not a selectable skill of the catalogue` +
        (missing.length > 1 ? ` (and ${missing.length - 1} more requests)` : ''),
      'fix the gold names, or pass the --skills catalogue these requests were written for',
    );
  }
}

export interface RunContext {
  catalogue: Catalogue;
  skills: Skill[];
  requests: EvalRequest[];
  calibration?: EvalRequest[];
  progress: Progress;
  /** Created on demand (SDKs load only when a chat selector runs). */
  chatClient: () => Promise<SelectorChatClient & { summary?(): string; dryRunReport?(): unknown; stats?(): { cacheMisses: number } }>;
  embedder: () => Promise<EmbeddingProvider>;
}

/** Runs the selectors: the model's calls start first and run while the offline selectors compute; hybrid once similarity is ready. */
export async function runSelectors(ctx: RunContext, selectors: SelectorName[], opts: EvalTriggerOptions): Promise<SelectorRun[]> {
  const { skills, requests, progress } = ctx;
  const lanes = new Map(selectors.map((s) => [s, progress.lane(s, CHAT_SELECTORS.includes(s) ? requests.length * opts.runs : requests.length)]));
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
    const rankings = rankByKeyword(skills, requests, lanes.get('keyword'));
    const threshold = thresholdFor('keyword', opts, rankings, requests, ctx.calibration, () => rankByKeyword(skills, ctx.calibration!));
    runs.set('keyword', scoreRun('keyword', requests, rankings, await threshold));
  }
  // similarity and hybrid share one ranking; a failed embedding provider makes both runs errors, not a crash.
  let similarity: ScoredSkill[][] | undefined;
  if (selectors.includes('similarity') || selectors.includes('hybrid')) {
    const ranked = await rankSimilarity(ctx, selectors, opts, lanes.get('similarity'));
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
): Promise<{ rankings?: ScoredSkill[][]; runs: SelectorRun[] }> {
  const { skills, requests } = ctx;
  const embedder = await ctx.embedder();
  const source = { provider: embedder.id, model: embedder.model };
  try {
    const { createSimilarityRanker } = await import('./similarity.js');
    const ranker = await createSimilarityRanker(embedder, skills);
    // hybrid shows the model the top k: keep at least k candidates even where a large catalogue keeps 10.
    const rankings = await ranker.rank(requests.map((r) => r.text), { lane, keep: Math.max(keepTop(skills.length), opts.k) });
    if (!selectors.includes('similarity')) return { rankings, runs: [] };
    const threshold = await thresholdFor('similarity', opts, rankings, requests, ctx.calibration, () => ranker.rank(ctx.calibration!.map((r) => r.text)));
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
  requests: EvalRequest[],
  calibration: EvalRequest[] | undefined,
  rankCalibration: () => ScoredSkill[][] | Promise<ScoredSkill[][]>,
): Promise<ThresholdInfo> {
  const fixed = opts.threshold?.[selector] ?? opts.threshold?.['*'];
  // Taken from the baseline: a fixed value, and the file it came from (calibrationFile: where the value was chosen).
  if (fixed !== undefined) return opts.thresholdBaseline ? { value: fixed, source: 'fixed', calibrationFile: opts.thresholdBaseline.file } : { value: fixed, source: 'fixed' };
  if (opts.calibrate && calibration) {
    const value = chooseThreshold(calibrationItems(await rankCalibration(), calibration));
    if (value === null) throw new UserError(`${opts.calibrate}: no request to choose a threshold on`, 'give a request file with covered and uncovered requests');
    return { value, source: 'calibrated', calibrationFile: opts.calibrate };
  }
  const value = chooseThreshold(calibrationItems(rankings, requests)) ?? 0;
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
  return requests.map((r, i) => ({ gold: r.gold, top: topOf(rankings[i]) }));
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
}

interface Inputs {
  catalogue: Catalogue;
  skills: Skill[];
  requests: EvalRequest[];
  calibration?: EvalRequest[];
  skillsPath: string;
  requestsPath: string;
}

/** The catalogue, the requests and the --calibrate requests, checked (usable catalogue, known gold skills). */
async function loadInputs(opts: EvalTriggerOptions): Promise<Inputs> {
  const { defaultSkillsPath } = await import('../skill-folders.js');
  const skillsPath = resolveInput(opts.skills, await defaultSkillsPath(), '--skills', 'the skill catalogue (a folder of SKILL.md files or a JSON file)');
  const requestsPath = resolveInput(opts.requests, 'requests.json', '--requests', 'the request set');
  const [{ loadCatalogue, assertUsable }, { loadRequests }] = await Promise.all([import('../catalogue.js'), import('../requests.js')]);
  const catalogue = await loadCatalogue(skillsPath);
  assertUsable(catalogue);
  const skills = selectableSkills(catalogue.skills);
  const forSkill = opts.skill ? { skill: opts.skill } : undefined;
  const requests = await loadRequests(requestsPath, forSkill);
  checkGolds(requests, skills, opts.requests ?? 'requests.json');
  if (!requests.length) throw new UserError(`${opts.requests ?? 'requests.json'}: no requests`, 'add requests to the file');
  let calibration: EvalRequest[] | undefined;
  if (opts.calibrate) {
    calibration = await loadRequests(path.resolve(opts.calibrate), forSkill);
    checkGolds(calibration, skills, opts.calibrate);
  }
  return { catalogue, skills, requests, calibration, skillsPath, requestsPath };
}

/** Loads inputs, runs the selectors and returns the results file (not yet written, not yet gated). */
export async function evalTrigger(opts: EvalTriggerOptions, deps: EvalTriggerDeps): Promise<EvalTriggerOutcome> {
  const inputs = await loadInputs(opts);
  const note = (await import('../catalogue.js')).catalogueNote(inputs.catalogue);
  if (note) deps.notice(note);
  const { availableChatProvider } = await import('../client.js');
  // A key, an explicit provider (a local server, or a --cache-only replay), or a bare --base-url (OpenAI-compatible).
  const chatReachable = Boolean(opts.provider || opts.baseUrl || availableChatProvider(process.env));
  const availability = availableSelectors(opts.selectors, chatReachable);
  if (availability.message) deps.notice(availability.message);
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
    embedder: async () => client.createEmbedder(opts.embeddings === 'use' || opts.embeddings === undefined ? { ...opts, cacheOnly: false } : opts),
  };
  let runs: SelectorRun[];
  try {
    runs = await runSelectors(ctx, availability.run, opts);
  } finally {
    deps.progress.stop();
  }
  const { auditCatalogue } = await import('../audit.js');
  return {
    results: {
      ...resultsHeader(inputs, availability, opts, deps.skillbenchVersion),
      runs,
      tokenAudit: auditCatalogue(inputs.catalogue, opts.format),
    },
    clientSummary: chat?.summary(),
    cacheMisses: chat?.stats?.().cacheMisses ?? 0,
    dryRun: opts.dryRun && chat ? client.formatDryRun(chat.dryRunReport()) : undefined,
  };
}

/** Everything of the results file but the runs: every option that shaped the run, the catalogue and the requests. */
function resultsHeader(inputs: Inputs, availability: Availability, opts: EvalTriggerOptions, version: string): Omit<ResultsFile, 'runs'> {
  const relative = (p: string) => path.relative(process.cwd(), p) || '.';
  return {
    schema: 'skillbench.results',
    version: 1,
    command: 'eval-trigger',
    createdAt: new Date().toISOString(),
    skillbenchVersion: version,
    settings: {
      skills: relative(inputs.catalogue.source), // the folder read (a project's skills/, when that is all it holds)
      requests: path.relative(process.cwd(), inputs.requestsPath),
      skill: opts.skill,
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
      baseUrl: opts.baseUrl,
      cacheOnly: opts.cacheOnly ?? false,
      thinking: opts.thinking,
    },
    catalogue: {
      source: relative(inputs.catalogue.source),
      format: opts.format,
      skills: inputs.skills.map((s) => ({ name: s.name, hash: s.hash, category: s.category })),
    },
    requests: inputs.requests,
  };
}
