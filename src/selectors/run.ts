// One eval-trigger run: load the catalogue and requests, detect their languages, decide which selectors can run, run
// them (score selectors ranked once; thresholds fixed, taken from a baseline, calibrated, cross-validated or chosen on
// the same requests: thresholds.ts), and assemble the results file.
// The command (src/commands/eval-trigger.ts) parses options and prints; everything it computes comes from here.
import path from 'node:path';
import { UserError } from '../errors.js';
import { safeUrl } from '../secrets.js';
import { RESULTS_VERSION, resultsSkill } from '../results.js';
import type { Host } from '../hosts/profile.js';
import type { HostCliOptions, ProviderOptions } from '../options.js';
import type {
  Catalogue,
  CatalogueFormat,
  Decision,
  EmbeddingProvider,
  EvalRequest,
  FittedDecision,
  LanguageSummary,
  Progress,
  ResultsFile,
  SelectorRun,
  Skill,
} from '../types.js';
import type { EvalInputs } from '../eval-inputs.js';
import {
  CHAT_SELECTORS, SCORE_RANGES, SCORE_SELECTORS, SELECTOR_NAMES, keepTop, type Prefilter, type SelectorChatClient, type SelectorName,
} from './index.js';
import type { CvSetting, ScoreSelector, ThresholdPlan } from './thresholds.js';
import { selectShard, type ShardInfo } from '../shard.js';

export interface EvalTriggerOptions extends ProviderOptions, HostCliOptions {
  skills?: string;
  requests?: string;
  skill?: string;
  /** --format: the generic host's listing preset (default: its lean `lines`). */
  format?: CatalogueFormat;
  /** Explicit --selectors (undefined: every selector that can run here). */
  selectors?: SelectorName[];
  k: number;
  /** --threshold: one value for similarity and keyword, or per selector. */
  threshold?: Partial<Record<'similarity' | 'keyword' | '*', number>>;
  /**
   * --threshold baseline: the --baseline results file (as given, and read) whose score selectors' thresholds this run
   * applies. Resolved into `threshold` before any call; the applied thresholds record the file as their source.
   */
  thresholdBaseline?: { file: string; results: ResultsFile };
  calibrate?: string;
  /** --cv K folds, or off; unset: 5 folds when the requests allow it. */
  cv?: CvSetting;
  /** Where hybrid's shortlist comes from (default fused). */
  prefilter?: Prefilter;
  runs: number;
  /** --shard I/N: run only the requests of this slice (src/shard.ts). */
  shard?: { index: number; count: number };
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
        `--threshold ${own === undefined ? value : `${selector}=${value}`}: outside the score range of ${selector} (${range.what}, ${range.min} to ${range.max === Number.POSITIVE_INFINITY ? 'Infinity' : range.max}): it would ${value > range.max ? 'never load a skill' : 'load the top skill on every request'}`,
        `give ${selector} a threshold ${range.max === Number.POSITIVE_INFINITY ? `of ${range.min} or more` : `between ${range.min} and ${range.max}`}${own === undefined ? ', or one per selector (similarity=0.5,keyword=0.3)' : ''}`,
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

/**
 * `0.6` (similarity and keyword) or `similarity=0.6,keyword=0.3`. (`baseline` is read by the command, with --baseline.)
 * fused decides with a fitted model, not a number: --threshold baseline reuses one.
 */
export function parseThreshold(value: string): NonNullable<EvalTriggerOptions['threshold']> {
  const out: NonNullable<EvalTriggerOptions['threshold']> = {};
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [key, num] = part.includes('=') ? part.split('=', 2) as [string, string] : ['*', part];
    if (key === 'fused') {
      throw new UserError(`--threshold: "${part}": fused decides with a fitted model, not a fixed number`,
        'reuse a baseline\'s fused decision with --threshold baseline --baseline FILE, or fit it with --calibrate FILE or --cv K');
    }
    const x = Number(num);
    if (!['*', 'similarity', 'keyword'].includes(key) || !Number.isFinite(x)) {
      throw new UserError(`--threshold: cannot read "${part}"`, 'give a number (every score selector), similarity=0.6,keyword=0.3, or baseline (with --baseline FILE)');
    }
    out[key as 'similarity' | 'keyword' | '*'] = x;
  }
  return out;
}

export interface RunContext {
  /** The host whose prompt the chat selectors reproduce. */
  host: Host;
  catalogue: Catalogue;
  skills: Skill[];
  requests: EvalRequest[];
  calibration?: EvalRequest[];
  /** Calibration requests also scored (same text): the calibrated threshold is then labelled in-sample. */
  calibrationShared?: number;
  languages: LanguageSummary;
  calibrationLanguages?: LanguageSummary['requests'];
  progress: Progress;
  /** Created on demand (SDKs load only when a chat selector runs). */
  chatClient: () => Promise<SelectorChatClient & { summary?(): string; dryRunReport?(): unknown; stats?(): { cacheMisses: number; cacheHits?: number; runStopped?: string | null }; batch?: { hold(): () => void } }>;
  /** `onLoad`: called before the embedding model is first loaded (a vector is not cached), so the wait can be named. */
  embedder: (onLoad?: () => void) => Promise<EmbeddingProvider>;
  /** Where each score selector's threshold comes from (decided before any call). */
  plans: Partial<Record<ScoreSelector, ThresholdPlan>>;
}

/** Runs the selectors: the model's calls start first and run while the offline selectors compute; hybrid once its prefilter is ready. */
export async function runSelectors(ctx: RunContext, selectors: SelectorName[], opts: EvalTriggerOptions): Promise<SelectorRun[]> {
  const { skills, requests, progress } = ctx;
  const lanes = new Map(selectors.map((s) => {
    const chat = CHAT_SELECTORS.includes(s);
    return [s as string, progress.lane(s, chat ? requests.length * opts.runs : requests.length, { offline: !chat })];
  }));
  const runs = new Map<SelectorName, SelectorRun>();
  const chat: Promise<void>[] = [];
  // The client first: a missing key fails before anything is computed, and the model's calls (network-bound) run
  // while the offline selectors compute (CPU-bound).
  const needsChat = selectors.includes('model') || selectors.includes('hybrid');
  const client = needsChat ? await ctx.chatClient() : undefined;
  // --batch: model and hybrid calls go in one batch, submitted once hybrid (after the similarity ranking) has asked.
  // (Should an offline step throw first, the held calls are simply never submitted: nothing is paid for.)
  const releaseBatch = client?.batch?.hold() ?? (() => {});
  if (client && selectors.includes('model')) {
    const { runModelSelector } = await import('./model.js');
    const model = runModelSelector(client, skills, requests, { host: ctx.host, runs: opts.runs, lane: lanes.get('model') }).then((r) => void runs.set('model', r));
    model.catch(() => undefined); // awaited below; if an offline step throws first, this must not be an unhandled rejection
    chat.push(model);
  }

  if (selectors.includes('explicit')) {
    const { runExplicitSelector } = await import('./explicit.js');
    runs.set('explicit', runExplicitSelector(skills, requests));
    lanes.get('explicit')!.done = requests.length;
  }
  const prefilter = selectors.includes('hybrid') ? (opts.prefilter ?? 'fused') : undefined;
  const { runOfflineSelectors } = await import('./offline.js');
  const offline = await runOfflineSelectors(
    {
      skills,
      requests,
      calibration: ctx.calibration,
      languages: ctx.languages,
      calibrationLanguages: ctx.calibrationLanguages,
      // The silent wait named: loading the embedding model (a first run; later runs read cached vectors) and embedding.
      embedder: () => ctx.embedder(() => {
        const statusLane = lanes.get('fused') ?? lanes.get('similarity') ?? lanes.get('hybrid');
        if (statusLane) statusLane.status = (opts.embeddings ?? 'use') === 'use' ? 'loading the offline model (first run only)' : `embedding with ${opts.embeddings}`;
      }),
      lanes,
      plans: ctx.plans,
      // hybrid shows the model the top k: keep at least k candidates even where a large catalogue keeps 10.
      keep: Math.max(keepTop(skills.length), opts.k),
      prefilter,
    },
    selectors,
  );
  for (const run of offline.runs) runs.set(run.selector as SelectorName, run);
  if (client && prefilter) {
    const { runHybridSelector } = await import('./hybrid.js');
    if (offline.prefilter) {
      chat.push(
        runHybridSelector(client, skills, requests, offline.prefilter, { k: opts.k, host: ctx.host, runs: opts.runs, lane: lanes.get('hybrid'), prefilter }).then((r) => void runs.set('hybrid', r)),
      );
    } else {
      runs.set('hybrid', { selector: 'hybrid', kind: 'decision', decisions: errorDecisions(requests, opts.runs, offline.prefilterError ?? `the ${prefilter} prefilter did not run`) });
    }
  }
  releaseBatch();
  await Promise.all(chat);
  // In the order asked for (or the default order).
  return selectors.filter((s) => runs.has(s)).map((s) => runs.get(s)!);
}

function errorDecisions(requests: EvalRequest[], runs: number, error: string): Decision[] {
  const out: Decision[] = [];
  for (let run = 0; run < runs; run++) for (const r of requests) out.push({ requestId: r.id, run, chosen: null, error });
  return out;
}

/**
 * Where each score selector's decision comes from: --threshold (a value, or the baseline's), the baseline's fitted
 * fused decision, --calibrate requests, else --cv (by default 5 folds when the requests allow it, else optimistic).
 */
async function thresholdPlans(
  requests: EvalRequest[],
  selectors: SelectorName[],
  opts: EvalTriggerOptions,
  baselineFit: FittedDecision | undefined,
  calibrationShared?: number,
  calibrationCount?: number,
): Promise<Partial<Record<ScoreSelector, ThresholdPlan>>> {
  const { foldPlan } = await import('./thresholds.js');
  const plans: Partial<Record<ScoreSelector, ThresholdPlan>> = {};
  let folds: ThresholdPlan | undefined;
  // Calibration requests also scored here: the calibrated figure is optimistic on them, and says how many.
  const inSample = calibrationShared ? { shared: calibrationShared, of: calibrationCount ?? 0 } : undefined;
  for (const selector of ['fused', 'similarity', 'keyword'] as const) {
    if (!selectors.includes(selector)) continue;
    const fixed = selector === 'fused' ? undefined : (opts.threshold?.[selector] ?? opts.threshold?.['*']);
    if (fixed !== undefined) plans[selector] = { kind: 'fixed', value: fixed, from: opts.thresholdBaseline?.file };
    else if (selector === 'fused' && baselineFit) plans[selector] = { kind: 'baseline-fit', fit: baselineFit, from: opts.thresholdBaseline!.file };
    else if (opts.calibrate) plans[selector] = { kind: 'calibrated', file: opts.calibrate, ...(inSample ? { inSample } : {}) };
    else plans[selector] = folds ??= foldPlan(opts.cv, requests, opts.requests ?? 'requests.json');
  }
  return plans;
}

/** --threshold baseline resolved: each score selector that runs gets the threshold (fused: the decision) its baseline run applied. */
async function fromBaseline(opts: EvalTriggerOptions, from: NonNullable<EvalTriggerOptions['thresholdBaseline']>, selectors: SelectorName[]) {
  if (opts.calibrate) {
    throw new UserError('--threshold baseline and --calibrate both set the thresholds', 'keep one: the baseline\'s thresholds, or thresholds chosen on --calibrate requests');
  }
  if (opts.cv !== undefined && opts.cv !== 'off') {
    throw new UserError('--threshold baseline and --cv both set the thresholds', 'keep one: the baseline\'s thresholds, or thresholds fitted by cross-validation on these requests');
  }
  const scoring = selectors.filter((s) => SCORE_SELECTORS.includes(s));
  if (!scoring.length) {
    throw new UserError('--threshold baseline: no score selector (fused, similarity, keyword) runs, so there is no threshold to take from the baseline',
      'add fused, similarity or keyword to --selectors, or leave out --threshold');
  }
  const { baselineThresholds } = await import('../gate.js');
  const { fusedFitFromBaseline } = await import('./thresholds.js');
  const classic = scoring.filter((s) => s !== 'fused');
  if (classic.includes('keyword')) {
    const { KEYWORD_SCORING } = await import('./keyword.js');
    const then = from.results.runs.find((r) => r.selector === 'keyword' && !r.ceiling);
    if (then && then.threshold && then.model !== KEYWORD_SCORING) {
      throw new UserError(
        `${from.file}: --threshold baseline: the baseline's keyword scores were computed another way (written by an earlier skillbench, before keyword scores stopped saturating at 1): its threshold does not apply to these scores`,
        'rerun the baseline with this skillbench, or pass --threshold keyword=X',
      );
    }
  }
  const threshold = classic.length ? baselineThresholds(from.results, from.file, classic, { provider: opts.embeddings ?? 'use', model: opts.embeddingModel }) : {};
  const fit = scoring.includes('fused') ? fusedFitFromBaseline(from.results, from.file, { provider: opts.embeddings ?? 'use', model: opts.embeddingModel }) : undefined;
  return { threshold, fit };
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

/**
 * Language and script of every request, --calibrate request and description; one warning line per thing the offline
 * models cannot read (printed and kept in the results file).
 */
async function describeLanguages(inputs: EvalInputs, selectors: SelectorName[], opts: EvalTriggerOptions, deps: EvalTriggerDeps) {
  const { detectLanguages, languageWarnings } = await import('../language.js');
  const languages = await detectLanguages(inputs.requests, inputs.skills);
  const calibrationLanguages = inputs.calibration ? (await detectLanguages(inputs.calibration, [])).requests : undefined;
  const warnings = languageWarnings(languages, { selectors, embeddings: opts.embeddings ?? 'use' });
  for (const w of warnings) deps.notice(`skillbench: warning: ${w}`);
  if (warnings.length) languages.warnings = warnings;
  return { languages, calibrationLanguages };
}

/** --shard: keeps the slice's requests (in `inputs`) and says what the shard holds. */
function pickShard(inputs: EvalInputs, spec: NonNullable<EvalTriggerOptions['shard']>, deps: EvalTriggerDeps): ShardInfo {
  const { requests, info } = selectShard(inputs.requests, spec);
  inputs.requests = requests;
  deps.notice(
    `skillbench: shard ${spec.index}/${spec.count}: ${requests.length} of ${info.of} requests; join every shard's results with ` +
      '`skillbench report --merge` (the score selectors\' optimistic or cross-validated thresholds, and fused\'s decision, are fitted again there, on all the requests)',
  );
  return info;
}

/** Loads inputs, runs the selectors and returns the results file (not yet written, not yet gated). */
export async function evalTrigger(opts: EvalTriggerOptions, deps: EvalTriggerDeps): Promise<EvalTriggerOutcome> {
  // The host first: a bad --host file or --system-prompt fails before anything is loaded or paid for.
  const { resolveHost } = await import('../hosts/profile.js');
  const host = await resolveHost(opts);
  const { loadEvalInputs } = await import('../eval-inputs.js');
  const inputs = await loadEvalInputs(opts, deps.notice);
  // A shard decides whether to cross-validate on the whole request set, as the single run it is part of does:
  // `report --merge` then fits every fold again over all the requests.
  const planRequests = inputs.requests;
  const shard = opts.shard ? pickShard(inputs, opts.shard, deps) : undefined;
  if (opts.batch && opts.selectors && !opts.selectors.some((s) => CHAT_SELECTORS.includes(s))) {
    deps.notice(`skillbench: --batch applies to the model and hybrid selectors only; ${opts.selectors.join(', ')} make no model call`);
  }
  const [{ hostFrame }, { hostSummary, hostNotes }] = await Promise.all([import('../hosts/request.js'), import('../hosts/notes.js')]);
  const summary = hostSummary(host, hostFrame(host, inputs.skills).listing);
  // Before any call: the skills the host's listing drops or shortens, and the requests that will miss them.
  const notes = hostNotes(summary, inputs.requests);
  if (notes) deps.notice(notes);
  const [{ availableChatProvider }, { someRequestNamesASkill }] = await Promise.all([import('../client.js'), import('./explicit.js')]);
  // A key, an explicit provider (a local server, or a --cache-only replay), or a bare --base-url (OpenAI-compatible).
  const chatReachable = Boolean(opts.provider || opts.baseUrl || availableChatProvider(process.env));
  const availability = availableSelectors(opts.selectors, chatReachable, someRequestNamesASkill(inputs.requests));
  checkThresholdRange(opts.threshold, availability.run);
  if (opts.dryRun) return dryRunOnly(inputs, availability, opts, host, deps);
  if (availability.message) for (const line of availability.message.split('\n')) deps.notice(line);
  if (opts.runs > 1 && !availability.run.some((s) => CHAT_SELECTORS.includes(s))) {
    deps.notice(`skillbench: --runs ${opts.runs} repeats model and hybrid requests only; ${availability.run.join(', ')} decide the same every time, so each runs once`);
  }
  if (opts.calibrate && !availability.run.some((s) => SCORE_SELECTORS.includes(s))) {
    throw new UserError('--calibrate: no score selector (fused, similarity, keyword) runs, so there is no threshold to calibrate', 'add fused, similarity or keyword to --selectors');
  }
  if (opts.calibrate && opts.cv !== undefined && opts.cv !== 'off') {
    throw new UserError('--calibrate and --cv both choose the thresholds', 'keep one: fitted on --calibrate requests, or cross-validated on --requests');
  }
  // Before any call: a baseline that cannot give every score selector its threshold fails here, nothing paid for.
  let baselineFit: FittedDecision | undefined;
  if (opts.thresholdBaseline) {
    const resolved = await fromBaseline(opts, opts.thresholdBaseline, availability.run);
    opts = { ...opts, threshold: resolved.threshold };
    baselineFit = resolved.fit;
  }
  const plans = await thresholdPlans(planRequests, availability.run, opts, baselineFit, inputs.calibrationShared, inputs.calibration?.length);
  const languages = await describeLanguages(inputs, availability.run, opts, deps);

  const client = await import('../client.js');
  let chat: Awaited<ReturnType<typeof client.createChatClient>> | undefined;
  const ctx: RunContext = {
    ...inputs,
    ...languages,
    plans,
    host,
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
      ...resultsHeader(inputs, availability, opts, host, deps.skillbenchVersion, shard),
      runs,
      completeness: completenessOf(runs, opts.maxErrorRate ?? 0, chat?.stats?.().runStopped),
      tokenAudit: auditCatalogue(inputs.catalogue, host),
      host: summary,
      languages: ctx.languages,
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
async function dryRunOnly(inputs: EvalInputs, availability: Availability, opts: EvalTriggerOptions, host: Host, deps: EvalTriggerDeps): Promise<EvalTriggerOutcome> {
  const { describeDryRun, offlineDryRun } = await import('../dryrun.js');
  const header = resultsHeader(inputs, availability, opts, host, deps.skillbenchVersion);
  const chatSelectors = availability.run.filter((s) => CHAT_SELECTORS.includes(s));
  const offline = availability.run.filter((s) => !CHAT_SELECTORS.includes(s));
  if (!chatSelectors.length) {
    deps.progress.stop();
    return { results: { ...header, runs: [] }, cacheMisses: 0, cacheHits: 0, dryRun: offlineDryRun(offline, inputs.requests.length, availability.skipped) };
  }
  const client = await import('../client.js');
  const chat = await client.createChatClient(opts);
  // hybrid's shortlists still come from its offline prefilter, which reads the requests' languages.
  const languages = await describeLanguages(inputs, chatSelectors, opts, { ...deps, notice: () => undefined });
  const ctx: RunContext = {
    ...inputs,
    ...languages,
    plans: {},
    host,
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
function resultsHeader(inputs: EvalInputs, availability: Availability, opts: EvalTriggerOptions, host: Host, version: string, shard?: ShardInfo): Omit<ResultsFile, 'runs'> {
  const format = host.catalogue.listing.format;
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
      host: host.name,
      hostOrigin: host.origin,
      systemPrompt: host.systemFrom,
      listingBudget: opts.listingBudget,
      format: format ?? 'template',
      selectors: availability.run,
      skipped: availability.skipped,
      k: opts.k,
      threshold: opts.threshold,
      thresholdFrom: opts.thresholdBaseline?.file,
      calibrate: opts.calibrate,
      cv: opts.cv,
      prefilter: availability.run.includes('hybrid') ? (opts.prefilter ?? 'fused') : undefined,
      runs: opts.runs,
      provider: opts.provider,
      model: opts.model,
      embeddings: opts.embeddings,
      embeddingModel: opts.embeddingModel,
      baseUrl: safeUrl(opts.baseUrl),
      cacheOnly: opts.cacheOnly ?? false,
      thinking: opts.thinking,
      ...(opts.batch ? { batch: true } : {}),
      ...(shard ? { shard } : {}),
    },
    catalogue: {
      source: relative(inputs.catalogue.source),
      ...(format ? { format } : {}),
      skills: inputs.skills.map(resultsSkill),
    },
    requests: inputs.requests,
  };
}
