// What `skillbench improve` does, composed from the core pieces: load the catalogue and the requests, split them
// (stratified, seeded), score the original description with the model selector in the whole catalogue, then per
// iteration ask the rewriter for candidates from the train failures of the best description on train, check them
// against the spec limits, optionally pre-screen them offline, score them the same way, and finally keep the best
// on test with its paired comparison against the original. Every call goes through the shared client: a rerun
// replays, an interrupted run resumes, --dry-run estimates, --max-cost stops with the best so far.
// The command (src/commands/improve.ts) parses options and prints; everything it shows comes from here.
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { IncompleteRun, ProviderError, UserError } from '../errors.js';
import { completenessOf } from '../completeness.js';
import type { HostCliOptions, ProviderOptions } from '../options.js';
import { safeUrl } from '../secrets.js';
import { loaded } from '../metrics.js';
import { DESCRIPTION_MAX } from '../validate.js';
import { RESULTS_VERSION, resultsSkill } from '../results.js';
import { runModelSelector } from '../selectors/model.js';
import { DescriptionEditError, replaceDescription, type DescriptionEdit } from '../skillfile.js';
import type { ChatClient } from '../client.js';
import type { Catalogue, CatalogueFormat, EvalRequest, ImproveCandidate, ImproveSummary, Progress, ResultsFile, SelectorRun, Skill } from '../types.js';
import { bestOnTest, bestOnTrain, figuresOf, fullyScored, pairedComparison, type CandidateFigures } from './figures.js';
import { keepBest, offlineRanker, prescreenScore, type OfflineRanker, type PrescreenSelector } from './prescreen.js';
import { proposeDescriptions, type Proposal, type RewriterStage } from './rewriter.js';
import { splitRequests, type Split } from './split.js';
import { dryRunEstimate, type DryRunStop } from './dryrun.js';
import type { SuggesterCall } from '../suggest/llm.js';
import type { Host } from '../hosts/profile.js';

export interface ImproveOptions extends ProviderOptions, HostCliOptions {
  skills?: string;
  requests?: string;
  skill: string;
  /** --format: the generic host's listing preset (default: its lean `lines`). */
  format?: CatalogueFormat;
  iterations: number;
  candidates: number;
  holdout: number;
  seed: number;
  rewriterModel?: string;
  prescreen?: PrescreenSelector;
  prescreenKeep: number;
  write?: boolean;
}

export interface ImproveDeps {
  progress: Progress;
  notice: (line: string) => void;
  skillbenchVersion: string;
}

export interface ImproveOutcome {
  results: ResultsFile;
  /** Each client's end-of-run summary (the scorer's, then the rewriter's when it is another model). */
  clientSummaries: string[];
  /** --dry-run: what the loop would call and cost (nothing is written then). */
  dryRun?: string;
  cacheMisses: number;
  /** --cache-only missed: said before the report, whose rows would otherwise look measured. */
  cacheNotice?: string;
  /** The SKILL.md edit that writes the chosen description (a folder catalogue, a candidate other than the original). */
  edit?: { file: string; shown: string; before: string; edit: DescriptionEdit };
  /** Why the chosen description cannot be written in place (the command says so and prints it). */
  editProblem?: string;
  /** What ended the loop early as an error (a failed or malformed rewriter call): thrown after the outputs are written. */
  failure?: Error;
}

/** Significance level of the paired comparison of the chosen description with the original. */
export const NOISE_ALPHA = 0.05;

interface Inputs {
  catalogue: Catalogue;
  skills: Skill[];
  target: Skill;
  requests: EvalRequest[];
  skillsPath: string;
  requestsPath: string;
}

/** The catalogue and the requests (any accepted shape: own format, skill-creator sets, a folder of per-skill eval
 * sets read whole), checked like eval-trigger's; the skill must have at least two requests of its own. */
async function loadInputs(opts: ImproveOptions, notice: (line: string) => void): Promise<Inputs> {
  const { loadEvalInputs } = await import('../eval-inputs.js');
  const inputs = await loadEvalInputs({ skills: opts.skills, requests: opts.requests, skill: opts.skill, skillAsTarget: true }, notice);
  const target = inputs.skills.find((s) => s.name === opts.skill)!; // loadEvalInputs refuses a --skill it cannot select
  const shown = opts.requests ?? path.relative(process.cwd(), inputs.requestsPath);
  const positives = inputs.requests.filter((r) => r.gold === opts.skill).length;
  if (positives < 2) {
    throw new UserError(
      `${shown}: ${positives} request${positives === 1 ? '' : 's'} with gold "${opts.skill}"; improve needs at least 2 (one to learn from, one to test on)`,
      `add requests that should load ${opts.skill}`,
    );
  }
  if (positives === inputs.requests.length) notice(`skillbench: ${shown} has no request that must not load ${opts.skill}: false triggers cannot be measured; add near misses and other skills' requests`);
  return { catalogue: inputs.catalogue, skills: inputs.skills, target, requests: inputs.requests, skillsPath: inputs.skillsPath, requestsPath: inputs.requestsPath };
}

/** The SKILL.md text of the target, when the catalogue is a folder; checked editable before anything is paid for. */
async function skillFileOf(inputs: Inputs, write: boolean, notice: (line: string) => void): Promise<{ file: string; shown: string; text: string } | undefined> {
  const { catalogue, target } = inputs;
  if (catalogue.kind === 'json') {
    if (write) {
      throw new UserError(`--write edits a SKILL.md, and ${path.relative(process.cwd(), catalogue.source)} is a JSON catalogue`, 'drop --write and copy the chosen description (printed at the end) into the JSON file');
    }
    return undefined;
  }
  const shown = path.relative(process.cwd(), target.file) || target.file;
  const text = await readFile(target.file, 'utf8');
  try {
    replaceDescription(text, target.description);
  } catch (err) {
    if (!(err instanceof DescriptionEditError)) throw err;
    if (write) throw new UserError(`${shown}: its description cannot be rewritten in place (${err.message})`, 'drop --write and copy the chosen description by hand, or write the description as a `description:` line of the frontmatter');
    notice(`skillbench: ${shown}: the description cannot be rewritten in place (${err.message}); no diff will be shown`);
    return undefined;
  }
  return { file: target.file, shown, text };
}

function checkNumbers(opts: ImproveOptions): void {
  if (!(opts.holdout > 0 && opts.holdout < 1)) throw new UserError(`--holdout ${opts.holdout}: the share of requests held out for the test part must be between 0 and 1 (exclusive)`, 'use e.g. --holdout 0.4');
  if (!Number.isInteger(opts.seed) || opts.seed < 0) throw new UserError(`--seed ${opts.seed}: must be a whole number >= 0`, 'use e.g. --seed 42');
}

/** The loop's state: candidates in the order proposed, the runs of the scored ones, the rewriter's calls. */
class Loop {
  readonly candidates: ImproveCandidate[] = [];
  readonly runs: SelectorRun[] = [];
  readonly rewriterCalls: SuggesterCall<RewriterStage>[] = [];
  stopped?: string;
  failure?: Error;
  dryRunStop?: DryRunStop;

  constructor(
    readonly inputs: Inputs,
    readonly split: Split,
    readonly opts: ImproveOptions,
    readonly scorer: ChatClient,
    readonly rewriter: ChatClient,
    readonly progress: Progress,
    /** The agent whose prompt the scoring reproduces (--host; the generic host by default). */
    readonly host: Host,
    readonly ranker?: OfflineRanker,
  ) {}

  get skill(): string {
    return this.inputs.target.name;
  }

  figures(): CandidateFigures[] {
    return figuresOf({ candidates: this.candidates, split: this.split, skill: this.skill }, this.inputs.requests, this.runs);
  }

  /** The catalogue with the target's description replaced. */
  skillsWith(description: string): Skill[] {
    return this.inputs.skills.map((s) => (s.name === this.skill ? { ...s, description } : s));
  }

  trainRequests(): EvalRequest[] {
    const train = new Set(this.split.train);
    return this.inputs.requests.filter((r) => train.has(r.id));
  }

  /** Scores candidates with the model selector on every request (train and test), all at once through the client. */
  async score(list: ImproveCandidate[], iteration: number): Promise<void> {
    const requests = this.inputs.requests;
    const runs = await Promise.all(
      list.map(async (c) => ({
        c,
        run: { ...(await runModelSelector(this.scorer, this.skillsWith(c.description), requests, { host: this.host, runs: 1, lane: this.progress.lane(c.id, requests.length) })), selector: c.id },
      })),
    );
    let uncached = 0;
    for (const { c, run } of runs) {
      const failed = run.decisions.filter((d) => d.error !== undefined);
      if (this.opts.dryRun && failed.length) {
        // Not in the cache: nothing was called. The estimate takes over from here.
        uncached += failed.length;
        c.status = 'unscored';
        c.reason = 'dry run: not in the cache';
        continue;
      }
      const budget = failed.filter((d) => d.errorKind === 'budget').length;
      if (budget && c.id !== 'original') {
        // --max-cost: a candidate scored on part of the requests cannot be compared; its paid answers stay cached.
        c.status = 'unscored';
        c.reason = `--max-cost reached with ${requests.length - budget} of ${requests.length} requests scored`;
        continue;
      }
      this.runs.push(run);
    }
    if (uncached) this.dryRunStop = { iteration, uncachedScoring: uncached, atRewriter: false };
    if (this.scorer.stats().budgetExceeded) this.stopped ??= `--max-cost reached during iteration ${iteration}: the best description so far is kept`;
  }

  /** One iteration: rewrite the best description on train, check and pre-screen the proposals, score the rest. */
  async iterate(iteration: number): Promise<boolean> {
    if (this.overBudget()) {
      this.stopped = `--max-cost reached before iteration ${iteration} (the scorer's and the rewriter's calls together): the best description so far is kept`;
      return false;
    }
    const figures = this.figures();
    const current = bestOnTrain(figures);
    if (!current) {
      this.stopped = 'the original description could not be scored on every request: nothing to improve on';
      return false;
    }
    const failures = this.trainFailures(current);
    if (!failures.missed.length && !failures.falseTriggers.length) {
      this.stopped = `no train request fails because of ${this.skill} with ${current.candidate.id}: nothing left to learn from`;
      return false;
    }
    const proposals = await this.propose(iteration, current, failures, figures);
    if (!proposals) return false;
    const fresh = this.accept(iteration, current.candidate.id, proposals);
    if (!fresh.length) {
      // The next prompt would differ only by this round's repeats: asking again is paying for the same ideas.
      this.stopped = `iteration ${iteration}: the rewriter proposed nothing new (repeats, or over the limits)`;
      return false;
    }
    const kept = await this.prescreen(fresh);
    if (this.overBudget()) {
      for (const c of kept) Object.assign(c, { status: 'unscored', reason: '--max-cost reached before it was scored' });
      this.stopped = `--max-cost reached after the rewriter call of iteration ${iteration}: the best description so far is kept`;
      return false;
    }
    await this.score(kept, iteration);
    return !this.dryRunStop && !this.stopped;
  }

  /** With a separate --rewriter-model each client enforces --max-cost on its own calls; between steps the two are
   * checked together, so the run stops once their sum reaches the limit (it may pass it by one step's spending). */
  overBudget(): boolean {
    if (this.opts.maxCost === undefined || this.rewriter === this.scorer) return false;
    return this.scorer.stats().spentUsd + this.rewriter.stats().spentUsd >= this.opts.maxCost;
  }

  trainFailures(current: CandidateFigures) {
    const train = new Set(this.split.train);
    const byId = new Map(this.inputs.requests.map((r) => [r.id, r]));
    const missed: { text: string; loaded: string | null }[] = [];
    const falseTriggers: { text: string; expected: string | null }[] = [];
    const handled: string[] = [];
    for (const d of current.run!.decisions) {
      const r = byId.get(d.requestId);
      if (!r || !train.has(r.id) || d.error !== undefined) continue;
      if (r.gold === this.skill) {
        if (d.chosen === this.skill) handled.push(r.text);
        else missed.push({ text: r.text, loaded: loaded(d) });
      } else if (loaded(d) === this.skill) falseTriggers.push({ text: r.text, expected: r.gold });
    }
    return { missed, falseTriggers, handled };
  }

  async propose(iteration: number, current: CandidateFigures, failures: ReturnType<Loop['trainFailures']>, figures: CandidateFigures[]): Promise<Proposal[] | null> {
    const lane = this.progress.lane(`rewrite ${iteration}`, 1);
    const history = figures
      .filter((f) => fullyScored(f) && f.candidate.id !== current.candidate.id)
      .map((f) => ({ description: f.candidate.description, train: `${f.train!.accuracy.k}/${f.train!.accuracy.n}` }));
    try {
      return await proposeDescriptions(
        this.rewriter,
        {
          skill: this.inputs.target,
          current: current.candidate.description,
          others: this.inputs.skills.filter((s) => s.name !== this.skill),
          ...failures,
          history,
          count: this.opts.candidates,
          maxChars: DESCRIPTION_MAX,
          listingCut: listingCut(this.host),
        },
        this.rewriterCalls,
        lane,
      );
    } catch (err) {
      this.rewriterFailed(err, iteration);
      return null;
    } finally {
      lane.done = 1;
    }
  }

  /** What a failed rewriter call does to the loop: a dry run estimates from here, --max-cost keeps the best so far,
   * a cache miss is reported with the others, a failed call or a malformed answer ends the run as an error. */
  rewriterFailed(err: unknown, iteration: number): void {
    const name = err instanceof Error ? err.name : '';
    if (name === 'DryRunError') {
      this.dryRunStop = { iteration, uncachedScoring: 0, atRewriter: true };
      return;
    }
    if (name === 'BudgetExceededError') {
      this.stopped = `--max-cost reached before the rewriter call of iteration ${iteration}: the best description so far is kept`;
      return;
    }
    if (name === 'CacheMissError') {
      this.stopped = `the rewriter call of iteration ${iteration} is not in the cache (--cache-only)`;
      return;
    }
    if (name === 'MalformedAnswer') {
      this.stopped = `iteration ${iteration}: ${(err as Error).message}`;
      this.failure = new UserError(`the rewriter (${this.rewriter.provider}/${this.rewriter.model}) did not answer with the JSON asked for at iteration ${iteration}: ${(err as Error).message}`, 'try another --rewriter-model (one with native structured output); the results so far were written');
      return;
    }
    if (err instanceof ProviderError) {
      this.stopped = `iteration ${iteration}: the rewriter call failed: ${err.message}`;
      this.failure = new IncompleteRun(1, this.rewriterCalls.length + 1, `the rewriter call of iteration ${iteration} failed (${err.message})`);
      return;
    }
    throw err;
  }

  /** Proposals become candidates: empty or over the spec's limit are rejected, repeats point at the scored one. */
  accept(iteration: number, parent: string, proposals: Proposal[]): ImproveCandidate[] {
    const fresh: ImproveCandidate[] = [];
    proposals.slice(0, this.opts.candidates).forEach((p, i) => {
      const description = p.description.trim();
      const c: ImproveCandidate = { id: `${iteration}.${i + 1}`, iteration, parent, description, ...(p.rationale ? { rationale: p.rationale } : {}), status: 'scored' };
      const chars = [...description].length;
      const same = this.candidates.find((x) => x.description === description);
      if (!description) Object.assign(c, { status: 'rejected', reason: 'empty description' });
      else if (chars > DESCRIPTION_MAX) Object.assign(c, { status: 'rejected', reason: `${chars.toLocaleString('en-US')} characters, over the spec's ${DESCRIPTION_MAX.toLocaleString('en-US')}` });
      else if (same && this.runs.some((r) => r.selector === same.id)) Object.assign(c, { status: 'duplicate', duplicateOf: same.id, reason: `the same description as ${same.id}` });
      else if (same) Object.assign(c, { status: 'rejected', reason: `the same description as ${same.id} (${same.status})` });
      this.candidates.push(c);
      if (c.status === 'scored') fresh.push(c);
    });
    return fresh;
  }

  /** --prescreen: the offline score of every fresh candidate on train; the model scores only the best few. */
  async prescreen(fresh: ImproveCandidate[]): Promise<ImproveCandidate[]> {
    if (!this.ranker || !fresh.length) return fresh;
    const train = this.trainRequests();
    const scored = [];
    for (const c of fresh) {
      c.prescreen = prescreenScore(await this.ranker(this.skillsWith(c.description), train), train, this.skill);
      scored.push({ c, score: c.prescreen });
    }
    const { kept, dropped } = keepBest(scored, this.opts.prescreenKeep);
    for (const { c } of dropped) {
      c.status = 'prescreened-out';
      c.reason = `${this.opts.prescreen} pre-screen: ${c.prescreen!.k}/${c.prescreen!.n} on train, below the ${this.opts.prescreenKeep} kept`;
    }
    return kept.map(({ c }) => c);
  }

  /** The original's offline score, for the pre-screen's reference. */
  async prescreenOriginal(original: ImproveCandidate): Promise<void> {
    if (!this.ranker) return;
    const train = this.trainRequests();
    original.prescreen = prescreenScore(await this.ranker(this.skillsWith(original.description), train), train, this.skill);
  }
}

/** How many characters of a description the host's listing shows, when it cuts them (Hermes: 60). */
export function listingCut(host: Host): number | undefined {
  return host.catalogue.listing.cut?.chars;
}

export async function improve(opts: ImproveOptions, deps: ImproveDeps): Promise<ImproveOutcome> {
  checkNumbers(opts);
  // The host first: a bad --host file or --system-prompt fails before anything is loaded or paid for.
  const { resolveHost } = await import('../hosts/profile.js');
  const host = await resolveHost(opts);
  const inputs = await loadInputs(opts, deps.notice);
  const { hostNotice } = await import('../hosts/notes.js');
  const notice = hostNotice(host, inputs.skills);
  if (notice) deps.notice(notice);
  const skillFile = await skillFileOf(inputs, Boolean(opts.write), deps.notice);
  const split = splitRequests(inputs.requests, opts.skill, { seed: opts.seed, holdout: opts.holdout });
  const client = await import('../client.js');
  // A dry run needs no key: with no provider at all it is estimated for the default one (and says so).
  const { dryRunProvider, cacheOnlyNotice } = await import('../dryrun.js');
  const dry = dryRunProvider(opts, Boolean(client.availableChatProvider()));
  const callOpts: ImproveOptions = { ...opts, ...dry.opts };
  const scorer = await client.createChatClient(callOpts);
  const rewriter = opts.rewriterModel && opts.rewriterModel !== scorer.model ? await client.createChatClient({ ...callOpts, model: opts.rewriterModel }) : scorer;
  // The offline model costs nothing to recompute: --cache-only applies to paid embeddings only.
  const embedder = () => client.createEmbedder(opts.embeddings === 'use' || opts.embeddings === undefined ? { ...opts, cacheOnly: false } : opts);
  const ranker = opts.prescreen ? await offlineRanker(opts.prescreen, embedder) : undefined;
  const loop = new Loop(inputs, split, callOpts, scorer, rewriter, deps.progress, host, ranker);

  const original: ImproveCandidate = { id: 'original', iteration: 0, parent: null, description: inputs.target.description, status: 'scored' };
  loop.candidates.push(original);
  try {
    await loop.prescreenOriginal(original);
    await loop.score([original], 0);
    for (let i = 1; i <= opts.iterations && !loop.dryRunStop && !loop.stopped; i++) {
      if (!(await loop.iterate(i))) break;
    }
  } finally {
    deps.progress.stop();
  }
  const clients = rewriter === scorer ? [scorer] : [scorer, rewriter];
  const cacheMisses = clients.reduce((n, c) => n + c.stats().cacheMisses, 0);
  if (opts.dryRun) {
    const plan = { opts: callOpts, host, loop: { stop: loop.dryRunStop, completed: loop.candidates }, inputs, scorer, rewriter };
    const estimate = await dryRunEstimate(plan);
    return { results: await assemble(loop, callOpts, deps, scorer, rewriter), clientSummaries: [], cacheMisses, dryRun: dry.note ? `${estimate}\n  ${dry.note}` : estimate };
  }
  const hits = clients.reduce((n, c) => n + c.stats().cacheHits, 0);
  const cacheNotice = cacheOnlyNotice({ cacheHits: hits, cacheMisses }, opts.cacheDir, 'model requests') ?? undefined;
  const results = await assemble(loop, callOpts, deps, scorer, rewriter);
  const outcome: ImproveOutcome = { results, clientSummaries: clients.map((c) => c.summary()), cacheMisses, cacheNotice, failure: loop.failure };
  const chosen = results.improve!.candidates.find((c) => c.id === results.improve!.chosen)!;
  if (chosen.id !== 'original' && skillFile) {
    try {
      outcome.edit = { file: skillFile.file, shown: skillFile.shown, before: skillFile.text, edit: replaceDescription(skillFile.text, chosen.description) };
    } catch (err) {
      if (!(err instanceof DescriptionEditError)) throw err;
      outcome.editProblem = `${skillFile.shown}: the chosen description cannot be written in place (${err.message})`;
    }
  }
  return outcome;
}

/** The results file: the header, one run per scored candidate, and the improve summary. */
async function assemble(loop: Loop, opts: ImproveOptions, deps: ImproveDeps, scorer: ChatClient, rewriter: ChatClient): Promise<ResultsFile> {
  const { inputs, split, host } = loop;
  const [{ hostFrame }, { hostSummary }] = await Promise.all([import('../hosts/request.js'), import('../hosts/notes.js')]);
  const format = host.catalogue.listing.format;
  const figures = loop.figures();
  const original = figures.find((f) => f.candidate.id === 'original')!;
  const chosen = bestOnTest(figures) ?? original;
  const comparison = chosen !== original && chosen.run && original.run ? pairedComparison(chosen.run, original.run, new Map(inputs.requests.map((r) => [r.id, r])), split.test) : { better: 0, worse: 0, pValue: 1 };
  const relative = (p: string) => path.relative(process.cwd(), p) || '.';
  const summary: ImproveSummary = {
    skill: inputs.target.name,
    ...(inputs.catalogue.kind === 'folder' ? { file: relative(inputs.target.file) } : {}),
    split: { seed: split.seed, holdout: split.holdout, train: split.train, test: split.test },
    candidates: loop.candidates,
    chosen: chosen.candidate.id,
    comparison: { ...comparison, alpha: NOISE_ALPHA, withinNoise: comparison.pValue >= NOISE_ALPHA },
    ...(loop.stopped ? { stopped: loop.stopped } : {}),
    ...(listingCut(host) ? { listingCut: listingCut(host) } : {}),
  };
  return {
    schema: 'skillbench.results',
    version: RESULTS_VERSION,
    command: 'improve',
    createdAt: new Date().toISOString(),
    skillbenchVersion: deps.skillbenchVersion,
    settings: {
      skills: relative(inputs.skillsPath),
      requests: path.relative(process.cwd(), inputs.requestsPath),
      skill: opts.skill,
      host: host.name,
      hostOrigin: host.origin,
      systemPrompt: host.systemFrom,
      format: format ?? 'template',
      iterations: opts.iterations,
      candidates: opts.candidates,
      holdout: opts.holdout,
      seed: opts.seed,
      provider: scorer.provider,
      model: scorer.model,
      rewriterModel: rewriter.model,
      prescreen: opts.prescreen,
      prescreenKeep: opts.prescreen ? opts.prescreenKeep : undefined,
      baseUrl: safeUrl(opts.baseUrl),
      cacheOnly: opts.cacheOnly ?? false,
      thinking: opts.thinking,
      maxCost: opts.maxCost,
    },
    catalogue: { source: relative(inputs.catalogue.source), ...(format ? { format } : {}), skills: inputs.skills.map(resultsSkill) },
    host: hostSummary(host, hostFrame(host, inputs.skills).listing),
    requests: inputs.requests,
    runs: loop.runs,
    completeness: completenessOf(loop.runs, opts.maxErrorRate ?? 0, scorer.stats().runStopped),
    improve: summary,
  };
}
