// Types shared across module boundaries. Each module owns its logic; this file only says what flows between them.

// ---------------------------------------------------------------- catalogue

export type SkillState = 'always' | 'available' | 'never';

export interface Skill {
  name: string;
  description: string;
  /** Markdown after the frontmatter (empty for JSON catalogues that carry none). */
  body: string;
  /** Folder path between the catalogue root and the skill folder ('' when flat), POSIX; from `category` for JSON. */
  category: string;
  /** Absolute real path of the skill folder (symbolic links resolved: reads and script runs are anchored here);
   *  undefined for JSON catalogues. */
  dir?: string;
  /** Absolute path of SKILL.md as found (through a linked folder, if it was reached through one), or of the JSON file. */
  file: string;
  /** Path shown to the model in the catalogue prompt (SKILL.md relative to the catalogue root, POSIX). */
  location: string;
  /** sha256 (hex, first 16 chars) of SKILL.md bytes plus every resource's path and bytes: the skill's version. */
  hash: string;
  /** Every other file in the skill folder, relative POSIX paths, sorted. */
  resources: string[];
  state: SkillState;
  /** Tool profiles this skill unlocks when loaded (metadata.tool-profiles). */
  toolProfiles: string[];
  /** Raw frontmatter, as parsed. */
  frontmatter: Record<string, unknown>;
}

export type Severity = 'error' | 'warning';

export interface Problem {
  file: string;
  line: number;
  severity: Severity;
  message: string;
  fix: string;
  /** Fatal problems make the skill unusable (unparsable, no name or description, duplicate); it is left out of `skills`. */
  fatal?: boolean;
  /** The rule id (`SB012`, see src/rules.ts). */
  rule?: string;
}

export interface Catalogue {
  /** Absolute path of the folder or JSON file it was loaded from. */
  source: string;
  kind: 'folder' | 'json';
  /** Skills in name order, including `never` ones (renderers and tools leave those out). */
  skills: Skill[];
  /** Tool profiles declared in the catalogue-level `tool-profiles.json` (profile name -> tool declarations). */
  toolProfiles: Record<string, ToolDeclaration[]>;
  problems: Problem[];
  /** A project root: the standard skill folders read (`.claude/skills`, `skills`, ...), absolute paths, with counts. */
  folders?: SkillFolderUse[];
}

export interface SkillFolderUse {
  path: string;
  /** Skills found in it. */
  skills: number;
  /** Of those, skills already found in another folder (the same files, reached through a symbolic link). */
  alreadyFound: number;
}

export type CatalogueFormat = 'lines' | 'xml' | 'hermes' | 'markdown';

// ---------------------------------------------------------------- requests

export type RequestKind = 'positive' | 'near-miss' | 'off-topic';

export interface EvalRequest {
  id: string;
  text: string;
  /** The one skill that must be loaded, or null when none should be (or, with `target`, when the target should not). */
  gold: string | null;
  kind?: RequestKind;
  /**
   * A skill-creator request (`should_trigger`) is about one skill, its target: it passes when the target loads
   * (gold = target) or does not load (gold = null). A negative is a near miss for the target only: another skill
   * loading is right, reported apart as "went to another skill", never as a needless load.
   */
  target?: string;
  /** The skills this request chooses among (its own tool list, as in BFCL or MetaTool): every selector sees only these. */
  candidates?: string[];
}

// ---------------------------------------------------------------- providers

export type JsonSchema = Record<string, unknown>;

export interface ToolDeclaration {
  name: string;
  description: string;
  /** Plain JSON Schema of the arguments object. */
  parameters: JsonSchema;
}

export interface FunctionCall {
  /** Provider's call id when it has one (Anthropic, OpenAI); synthesised otherwise. */
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface ToolResult {
  callId: string;
  name: string;
  content: string;
  isError?: boolean;
}

export type Message =
  | { role: 'user'; content: string }
  /** `raw` keeps the provider's own content verbatim (e.g. Gemini thought signatures) for replay in the history. */
  | { role: 'assistant'; text: string; calls: FunctionCall[]; raw?: unknown }
  | { role: 'tool'; results: ToolResult[] };

export interface SystemBlock {
  text: string;
  /** True for the stable prefix (catalogue): marked for prompt caching where the provider supports it. */
  cache?: boolean;
}

export interface ChatRequest {
  model: string;
  system: SystemBlock[];
  messages: Message[];
  tools: ToolDeclaration[];
  toolChoice?: 'auto' | 'none' | 'required';
  maxOutputTokens?: number;
  /** A preference: sent only where the model table says the model takes it (see providers/params.ts). */
  temperature?: number;
  /** The thinking parameter as resolved from the model table (never set by callers: the client sets it). */
  thinking?: ThinkingParam;
  /** Ask for a JSON answer matching this schema (structured output), no tools. */
  responseSchema?: JsonSchema;
}

/** A thinking setting the model takes: a token budget (Gemini 2.5 thinkingBudget, Claude extended thinking), a level
 * (Gemini 3 thinkingLevel, OpenAI reasoning_effort, Claude effort), or Claude's adaptive thinking with an effort. */
export type ThinkingParam = { budget: number } | { level: string } | { adaptive: string };

/** How a response ended, normalised across providers: `stop` (an answer), `tool` (a tool call), or a reason the
 * answer is missing or cut: `length` (output cap), `safety` (blocked), `refusal`, `malformed` (a broken tool call),
 * `other`. */
export type StopKind = 'stop' | 'tool' | 'length' | 'safety' | 'refusal' | 'malformed' | 'other';

export interface Usage {
  /** All input tokens of the call, cached ones included. */
  inputTokens: number;
  /** Input tokens read from the provider's prompt cache (part of inputTokens). */
  cachedInputTokens: number;
  /** Input tokens written to the provider's prompt cache (Anthropic), part of inputTokens. */
  cacheWriteTokens: number;
  outputTokens: number;
  /** Thinking tokens (billed as output), not part of outputTokens. */
  thinkingTokens: number;
}

export interface ChatResponse {
  calls: FunctionCall[];
  text: string;
  usage: Usage;
  /** The provider's own stop reason (finishReason, stop_reason, finish_reason). */
  stopReason?: string;
  /** The stop reason normalised (see StopKind); absent in cache entries written before it existed. */
  stopKind?: StopKind;
  /** Provider-native assistant content, kept for the history. */
  raw?: unknown;
}

export type ProviderId = 'gemini' | 'anthropic' | 'openai';

export interface ChatProvider {
  id: ProviderId;
  model: string;
  chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
  /** Exact input token count of a request, where the provider has an API for it. */
  countTokens?(req: ChatRequest, signal?: AbortSignal): Promise<number>;
}

export type EmbeddingRole = 'document' | 'query';

export interface EmbeddingInput {
  text: string;
  /** For documents: the skill name (Gemini's `title:` prefix). */
  title?: string;
}

export interface EmbeddingProvider {
  id: 'use' | 'gemini' | 'openai';
  model: string;
  embed(inputs: EmbeddingInput[], role: EmbeddingRole): Promise<number[][]>;
}

// ---------------------------------------------------------------- results (the versioned results file)

export interface ScoredSkill {
  name: string;
  score: number;
}

export interface Decision {
  requestId: string;
  /** 0-based repeat index (`--runs N`). */
  run: number;
  /** First skill loaded; null when none was. */
  chosen: string | null;
  /** The name the model asked for when it is not in the catalogue (counts as a wrong load). */
  rawChoice?: string;
  /** A failed call: counted apart, never as "none". */
  error?: string;
  /** Why the call failed: `stop` (the model stopped without deciding: length, safety, refusal, ...; see stopReason),
   * `call` (an HTTP or connection failure after retries), `budget` (--max-cost), `cache` (--cache-only miss). */
  errorKind?: 'stop' | 'call' | 'budget' | 'cache';
  /** Score-based selectors: candidates, best first (at least the top 5). */
  scores?: ScoredSkill[];
  /** Model selectors (results version 2): the tool calls of the answer, as the model made them. */
  calls?: { name: string; args: Record<string, unknown> }[];
  /** Model selectors (results version 2): the text of the answer (what the model said instead of, or beside, a call). */
  answer?: string;
  /** Model selectors: why the answer ended: as the provider said (end_turn, tool_use, STOP, ...) for an answer; for
   * an error row of kind `stop`, the normalised reason (length, safety, refusal, malformed, other). */
  stopReason?: string;
  /**
   * The number the threshold applies to when it is not the top score (fused: the probability, from its fitted
   * decision, that loading the top skill is right).
   */
  confidence?: number;
  usage?: Usage;
  costUsd?: number;
  cached?: boolean;
  latencyMs?: number;
  /** Free-form extras (e.g. suggest's gate answers). */
  detail?: Record<string, unknown>;
}

export interface ThresholdInfo {
  value: number;
  /**
   * fixed: --threshold (a value, or `baseline`: the value the --baseline file's run applied); optimistic: chosen on the
   * same requests; calibrated: chosen on --calibrate requests.
   */
  source: 'fixed' | 'optimistic' | 'calibrated' | 'cross-validated' | 'default';
  /** Where the value was chosen: the --calibrate request file (calibrated), or the --baseline results file (fixed by --threshold baseline). */
  calibrationFile?: string;
  /** calibrated: the calibration set shares `shared` of its `of` requests (same text) with the requests scored: in-sample. */
  inSample?: { shared: number; of: number };
  /**
   * cross-validated: the number of folds. Each request was decided at the threshold (and, for fused, the decision)
   * fitted on the other folds; `value` is the one fitted on every request, which --threshold baseline reuses.
   */
  folds?: number;
}

/**
 * The fused selector's "none" decision, fitted on labelled requests: a logistic model of "loading the top skill is
 * right" on standardised features of the ranking, and the probability at which it loads.
 */
export interface FittedDecision {
  model: 'logistic';
  /** Feature names, in the order of `mean`, `sd` and `weights`. */
  features: string[];
  mean: number[];
  sd: number[];
  weights: number[];
  intercept: number;
  /** Load the top skill when the probability reaches this (the same value as the run's threshold). */
  threshold: number;
  /** Requests it was fitted on: loaded right when their top skill was the gold one, or needless when uncovered. */
  fittedOn: { covered: number; uncovered: number };
}

/** Script and language of a text (see src/language.ts). */
export interface TextLanguage {
  /** ISO 639-1 code, or 'und' when the detector is not sure. */
  language: string;
  /** Script most of its letters are in: Latin, Han, Kana, Hangul, Cyrillic, ... or none. */
  script: string;
}

export interface LanguageSummary {
  detector: string;
  /** By request id. */
  requests: Record<string, TextLanguage>;
  /** By skill name (its description). */
  skills: Record<string, TextLanguage>;
  /** What the offline models cannot read, as printed on stderr. */
  warnings?: string[];
}

export interface SelectorRun {
  /** Selector or arm name: model, similarity, hybrid, keyword, explicit, baseline, suggest, oracle. */
  selector: string;
  /** decision: a yes/no choice; score: ranks then thresholds (sweep applies). */
  kind: 'decision' | 'score';
  provider?: string;
  model?: string;
  threshold?: ThresholdInfo;
  /** fused: the decision it applied (fitted here, on --calibrate requests, or taken from the --baseline file). */
  fit?: FittedDecision;
  /** A reference arm (oracle): drawn as a ceiling, not a competitor. */
  ceiling?: boolean;
  /** Extra cost of the selector not in the decisions (e.g. suggester calls), USD. */
  extraCostUsd?: number;
  decisions: Decision[];
}

/** How much of the run was measured (see src/completeness.ts). */
export interface Completeness {
  /** Decisions that are errors (cache misses of --cache-only not counted: they end the run as bad input). */
  failed: number;
  total: number;
  /** --max-error-rate. */
  maxErrorRate: number;
  /** failed / total <= maxErrorRate. An incomplete run passes no gate. */
  complete: boolean;
  /** Failures by kind: call, budget, "stopped: length", ... */
  byKind?: Record<string, number>;
  /** Why the run stopped calling early (the fail-fast breaker), when it did. */
  stopped?: string;
}

/** One skill of the catalogue a results file was measured on. */
export interface ResultsSkill {
  name: string;
  hash: string;
  category: string;
  /** Version 2: the description as measured, so that a later comparison can show what changed (absent in version 1). */
  description?: string;
}

export interface ResultsFile {
  schema: 'skillbench.results';
  /** 2 adds the skills' descriptions and the model's answers; a version-1 file reads as one without them. */
  version: 1 | 2;
  command: 'eval-trigger' | 'suggest-eval' | 'eval-quality' | 'improve';
  createdAt: string;
  skillbenchVersion: string;
  /** Every option that shaped the run. */
  settings: Record<string, unknown>;
  catalogue: { source: string; format?: CatalogueFormat; skills: ResultsSkill[] };
  requests: EvalRequest[];
  runs: SelectorRun[];
  /** Baseline comparison, when one was run. */
  gate?: GateVerdict;
  /** How much was measured; an incomplete run passes no gate (absent in files written before it existed). */
  completeness?: Completeness;
  tokenAudit?: TokenAudit;
  /** eval-trigger: language and script of every request and description, and what the offline models cannot read. */
  languages?: LanguageSummary;
  /** eval-quality: per-mode answer quality and cost (each run's decisions carry the per-case details). */
  quality?: QualitySummary;
  /** The host profile whose prompt the run reproduced, and what its listing showed of each skill. */
  host?: HostSummary;
  /** improve: the split, every candidate description and the one kept (each scored candidate is a run). */
  improve?: ImproveSummary;
}

// ---------------------------------------------------------------- host profiles

/** What a host's listing showed of the catalogue (skills named in listing order). */
export interface ListingSummary {
  /** Characters (code points) of the listing as sent, and with no budget applied. */
  chars: number;
  fullChars: number;
  /** The listing budget, where it came from, and the overflow step that applied ('fits': none was needed). */
  budget: { chars: number; from: 'profile' | '--listing-budget'; step: string; over: boolean; shortenedTo?: number } | null;
  /** Skills left out of the listing: the model cannot see them. */
  dropped: string[];
  /** Skills listed by name only (their description removed to fit the budget). */
  namesOnly: string[];
  /** Skills whose description was shortened to fit the budget. */
  shortened: string[];
  /** Skills whose description the host's own per-description cut shortened, and that cut. */
  cut: string[];
  cutChars?: number;
}

export interface HostSummary {
  name: string;
  title: string;
  /** 'built-in' or the profile file. */
  origin: string;
  /** --system-prompt FILE, when it supplied the system text. */
  systemFrom?: string;
  placement: 'system' | 'tool-description' | 'user-message';
  /** How a load is read, e.g. "Skill(skill: free string)" or "shell(command) reading a listed SKILL.md". */
  loading: string;
  listing: ListingSummary;
}

/** Why a candidate description was or was not scored by the model selector. */
export type CandidateStatus = 'scored' | 'rejected' | 'duplicate' | 'prescreened-out' | 'unscored';

/** One description `improve` measured or considered. Its decisions are the run whose selector is its id. */
export interface ImproveCandidate {
  /** `original`, or `<iteration>.<n>` (e.g. `2.1`). */
  id: string;
  /** 0 for the original. */
  iteration: number;
  /** The candidate it was rewritten from (the best on train so far), null for the original. */
  parent: string | null;
  description: string;
  /** The rewriter's one-line reason for it. */
  rationale?: string;
  status: CandidateStatus;
  /** Why it was not scored (rejected: a limit; unscored: --max-cost, a failed call, a dry run). */
  reason?: string;
  /** duplicate: the candidate with the same description, whose scores stand for it. */
  duplicateOf?: string;
  /** --prescreen: the offline selector's train score (the skill ranked first on its own requests, not first on the others). */
  prescreen?: Rate;
}

export interface ImproveSummary {
  skill: string;
  /** The SKILL.md the description belongs to (relative to the working folder), absent for JSON catalogues. */
  file?: string;
  split: { seed: number; holdout: number; train: string[]; test: string[] };
  candidates: ImproveCandidate[];
  /** The candidate kept: the best test accuracy among the fully scored ones (ties: train, then the earlier). */
  chosen: string;
  /** The chosen description against the original on the test requests, paired (exact McNemar). */
  comparison: { better: number; worse: number; pValue: number; alpha: number; withinNoise: boolean };
  /** Why the loop ended before its last iteration, if it did. */
  stopped?: string;
  /** How many characters of a description the listing shows (hermes: 60), when it cuts. */
  listingCut?: number;
  /** --write: the file was rewritten with the chosen description. */
  written?: boolean;
}

/** eval-quality, one agent mode (progressive or load-all) over the quality set. */
export interface QualityModeSummary {
  mode: string;
  cases: number;
  /** Cases whose answer passed every check (and the judge, with --judge). */
  pass: Rate;
  /** Runs that ended in a provider error or without an answer (counted as failed). */
  errors: number;
  /** Mean over the cases that ran (errors included): cumulative input tokens, model calls, output tokens. */
  inputTokensPerRequest: number | null;
  callsPerRequest: number | null;
  outputTokensPerRequest: number | null;
  costUsd: number;
  /** --judge: mean score (0-1) over the judged cases. */
  judge?: { n: number; mean: number | null };
}

export interface QualitySummary {
  modes: QualityModeSummary[];
  /** progressive / load-all input tokens per request (null unless both modes ran). */
  tokenRatio: number | null;
  judged: boolean;
}

// ---------------------------------------------------------------- metrics

export interface Rate {
  k: number;
  n: number;
  /** k/n, or null when n is 0. */
  rate: number | null;
  /** Wilson 95% interval (with repeats, on the effective sample size below). */
  low: number | null;
  high: number | null;
  /**
   * Only when some request has more than one decision in n (`--runs N`): n / designEffect, the sample size the
   * interval was computed on (repeats of one request are correlated, not independent decisions).
   */
  effectiveN?: number;
  /** Kish design effect 1 + (m - 1) * rho of the repeats (m: mean decisions per request; rho: intraclass correlation). */
  designEffect?: number;
}

export interface SweepPoint {
  threshold: number;
  wrongLoad: number | null;
  needlessLoad: number | null;
  mean: number | null;
}

export interface Failure {
  requestId: string;
  text: string;
  expected: string | null;
  /** A skill-creator request's target (expected null then means "not the target"). */
  target?: string;
  got: string | null;
  score?: number;
  error?: string;
  run: number;
}

export interface SelectorMetrics {
  selector: string;
  decisions: number;
  accuracy: Rate;
  wrongLoad: Rate;
  needlessLoad: Rate;
  errors: number;
  meanInputTokens: number | null;
  costUsd: number;
  /** Score-based selectors only. */
  separability?: {
    lowestCorrectPositive: number | null;
    highestNegative: number | null;
    /** null: undefined, the set has no uncovered requests (nothing to separate) or no correctly ranked positive. */
    separable: boolean | null;
    bestThreshold: number | null;
    bestMean: number | null;
    sweep: SweepPoint[];
  };
  /** Recall@k of the gold skill in the ranking (covered requests; ties rank against the gold). */
  recall?: { top1: Rate; top3: Rate; top5: Rate; top10: Rate };
  /** gold -> got -> count, for covered requests not chosen correctly. */
  confusion: { gold: string; got: string | null; count: number }[];
  failures: Failure[];
  /** --runs > 1: per request trigger rate and flips. */
  flaky?: { requestId: string; text: string; choices: (string | null)[] }[];
  /** Requests with a target (skill-creator sets): each target skill's figures, then every target pooled. */
  targets?: TargetMetrics[];
}

/** One target skill's figures on its skill-creator requests (errors left out of every rate). */
export interface TargetMetrics {
  /** The target skill, or '(pooled)' for every target request together. */
  skill: string;
  /** Positives where the target loaded. */
  trigger: Rate;
  /** Negatives where the target loaded. */
  falseTrigger: Rate;
  /** Decisions that loaded a skill other than the target (or a name outside the catalogue), on positives and on negatives. */
  otherOnPositives: number;
  otherOnNegatives: number;
  /** Failed calls, counted apart (left out of the rates). */
  errorsOnPositives: number;
  errorsOnNegatives: number;
}

/** One skill's correct loads against the baseline (the per-skill gate). */
export interface SkillLoss {
  selector: string;
  skill: string;
  /** Paired requests of the skill (gold = skill) with an outcome in both runs. */
  paired: number;
  /** Correct in the baseline, and now. */
  before: number;
  after: number;
  /** Correct in the baseline and wrong now; wrong in the baseline and right now. */
  lost: number;
  gained: number;
  /**
   * The run-to-run loss rate seen on the other skills' requests (lost / correct in the baseline, add-half estimate):
   * what noise alone takes from a request that was right.
   */
  noise: number;
  /** P(at least `lost` of `before` requests lost by noise alone): binomial tail at `noise`. */
  pValue: number;
  failed: boolean;
}

export interface GateVerdict {
  passed: boolean;
  reasons: string[];
  /** Per selector: requests whose outcome changed against the baseline. */
  flips: { selector: string; requestId: string; text: string; before: string | null; after: string | null; nowCorrect: boolean }[];
  mcnemar?: { selector: string; better: number; worse: number; pValue: number }[];
  /** Per selector and skill: skills whose correct loads fell (the per-skill gate), worst first. */
  skills?: SkillLoss[];
  /** What the comparison left out and why (requests or selectors in one file only, requests whose calls failed). */
  notes?: string[];
}

// ---------------------------------------------------------------- token audit

export interface TokenAudit {
  tokenizer: string;
  exact: boolean;
  /** The listing preset, or 'template' for a host's own listing form. */
  format: CatalogueFormat | 'template';
  /** The host profile the audit reproduced (absent: generic). */
  host?: string;
  /** What the listing showed (under a host's budget, the skills dropped or shortened). */
  listing?: ListingSummary;
  /** One first-turn decision without its request: system, tools and catalogue, against the bare minimum. */
  decision?: { tokens: number; bareMinimum: number; ratio: number };
  level1: number;
  /** Each skill's own entry in the level-1 listing (its listing alone, less the empty listing). */
  entries?: { name: string; tokens: number }[];
  /** A JSON list with no bodies or files (a tool roster): level 2, level 3, load-all, saving and ratio mean nothing. */
  roster?: boolean;
  level2: { name: string; tokens: number }[];
  level3: { name: string; path: string; tokens: number }[];
  loadAll: number;
  /** loadAll - level1: what progressive disclosure saves on a request that needs no skill. */
  saving: number;
  /** loadAll / level1. */
  ratio: number;
  tools: { base: number; allProfiles: number; reductionPercent: number };
}

// ---------------------------------------------------------------- live progress

/** One lane of a run (a selector or an arm). Callers mutate the counters; the progress view reads them. */
export interface Lane {
  name: string;
  total: number;
  done: number;
  inFlight: number;
  cacheHits: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  errors: number;
  /** A lane that calls no model (offline selectors): no tokens, dollars, cache hits or calls in flight to show. */
  offline?: boolean;
  /** What the lane is doing before it counts anything (e.g. "loading the offline model (first run only)"). */
  status?: string;
}

export interface Progress {
  lane(name: string, total: number, opts?: { offline?: boolean }): Lane;
  /** Ends the live view; the final tables are printed after. */
  stop(): void;
}
