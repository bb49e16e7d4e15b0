// eval-quality: a set of requests whose answers are checked (required facts, regexes, forbidden content, and
// optionally a model judge against a rubric), each run through the agent loop in progressive and load-all mode,
// so answer quality and token cost of the two modes are compared on the same requests.
import pLimit from 'p-limit';
import { UserError } from './errors.js';
import { readJsonFile } from './jsonfile.js';
import { runAgent, type AgentClient, type AgentRun, type HarnessMode } from './harness.js';
import { wilson } from './metrics.js';
import { RESULTS_VERSION, resultsSkill } from './results.js';
import type { SandboxOptions } from './sandbox.js';
import type { Catalogue, CatalogueFormat, Decision, EvalRequest, Lane, QualityModeSummary, QualitySummary, ResultsFile, SelectorRun, Usage } from './types.js';

export interface QualityChecks {
  /** Substrings the answer must contain (case and spacing ignored). */
  contains?: string[];
  /** Regular expressions the answer must match (as written, JavaScript syntax). */
  regex?: string[];
  /** Substrings the answer must not contain (case and spacing ignored). */
  forbidden?: string[];
}

export interface QualityCase {
  id: string;
  request: string;
  /** The skill the request needs (null: none). */
  skill: string | null;
  checks: QualityChecks;
  /** What a good answer does, for --judge. */
  rubric?: string;
}

export interface CheckOutcome {
  passed: boolean;
  /** One line per failed check. */
  failures: string[];
}

export interface JudgeVerdict {
  score: number;
  reason: string;
}

// ---------------------------------------------------------------- cases

export async function loadQualityCases(path: string): Promise<QualityCase[]> {
  const data = await readJsonFile(path, {
    what: 'the quality cases',
    readFix: 'pass --cases FILE, a JSON list of {id, request, skill, checks}',
    fix: 'write a JSON list of {id, request, skill, checks: {contains, regex, forbidden}}',
  });
  return parseQualityCases(data, path);
}

export function parseQualityCases(data: unknown, file: string): QualityCase[] {
  const FIX = 'each case is {"id": "...", "request": "...", "skill": "<name>" | null, "checks": {"contains"?: [...], "regex"?: [...], "forbidden"?: [...]}, "rubric"?: "..."}';
  if (!Array.isArray(data) || data.length === 0) throw new UserError(`${file}: expected a non-empty JSON list of cases`, FIX);
  const ids = new Set<string>();
  return data.map((raw: unknown, i: number) => {
    const bad = (field: string, what: string): never => {
      throw new UserError(`${file}: case ${i}${isObj(raw) && typeof raw.id === 'string' ? ` ("${raw.id}")` : ''}: field "${field}" ${what}`, FIX);
    };
    if (!isObj(raw)) return bad('(case)', 'must be an object');
    const id = raw.id === undefined ? `case-${i + 1}` : raw.id;
    if (typeof id !== 'string' || id === '') return bad('id', 'must be a non-empty string');
    if (ids.has(id)) return bad('id', `"${id}" is used twice`);
    ids.add(id);
    if (typeof raw.request !== 'string' || raw.request.trim() === '') return bad('request', 'must be a non-empty string');
    if (raw.skill !== null && raw.skill !== undefined && typeof raw.skill !== 'string') return bad('skill', 'must be a skill name or null');
    if (!isObj(raw.checks)) return bad('checks', 'must be an object {contains?, regex?, forbidden?}');
    const checks: QualityChecks = {};
    for (const key of ['contains', 'regex', 'forbidden'] as const) {
      const v = raw.checks[key];
      if (v === undefined) continue;
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '')) return bad(`checks.${key}`, 'must be a list of non-empty strings');
      checks[key] = v as string[];
    }
    for (const [j, source] of (checks.regex ?? []).entries()) {
      try {
        new RegExp(source);
      } catch (err) {
        return bad(`checks.regex[${j}]`, `is not a valid regular expression (${(err as Error).message})`);
      }
    }
    const unknown = Object.keys(raw.checks).filter((k) => !['contains', 'regex', 'forbidden'].includes(k));
    if (unknown.length) return bad(`checks.${unknown[0]}`, 'is not a known check (contains, regex, forbidden)');
    if (!checks.contains?.length && !checks.regex?.length && !checks.forbidden?.length && typeof raw.rubric !== 'string') {
      return bad('checks', 'has no check: give at least one of contains, regex, forbidden (or a rubric for --judge)');
    }
    if (raw.rubric !== undefined && (typeof raw.rubric !== 'string' || raw.rubric.trim() === '')) return bad('rubric', 'must be a non-empty string');
    return { id, request: raw.request, skill: (raw.skill as string | null | undefined) ?? null, checks, ...(typeof raw.rubric === 'string' ? { rubric: raw.rubric } : {}) };
  });
}

/** Every case's skill must be in the catalogue (a typo would otherwise read as a quality failure). */
export function assertCaseSkills(cases: QualityCase[], catalogue: Catalogue, file: string): void {
  const names = new Set(catalogue.skills.map((s) => s.name));
  const missing = cases.filter((c) => c.skill !== null && !names.has(c.skill));
  if (missing.length) {
    throw new UserError(
      `${file}: ${missing.map((c) => `case "${c.id}" needs skill "${c.skill}"`).join(', ')}, not in the catalogue ${catalogue.source}`,
      'fix the "skill" field or pass the right --skills catalogue',
    );
  }
}

/** A case with only a rubric can be graded by the judge alone: without --judge it would pass whatever it answered. */
export function assertGradable(cases: QualityCase[], judge: boolean, file: string): void {
  if (judge) return;
  const rubricOnly = cases.filter((c) => !c.checks.contains?.length && !c.checks.regex?.length && !c.checks.forbidden?.length);
  if (rubricOnly.length) {
    throw new UserError(
      `${file}: ${rubricOnly.map((c) => `case "${c.id}"`).join(', ')} ha${rubricOnly.length > 1 ? 've' : 's'} only a "rubric", which is graded with --judge alone`,
      'pass --judge, or add "contains", "regex" or "forbidden" checks',
    );
  }
}

// ---------------------------------------------------------------- checks

const normalise = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Applies the checks to an answer. */
export function checkAnswer(answer: string, checks: QualityChecks): CheckOutcome {
  const failures: string[] = [];
  const text = normalise(answer);
  for (const c of checks.contains ?? []) if (!text.includes(normalise(c))) failures.push(`missing "${c}"`);
  for (const r of checks.regex ?? []) if (!new RegExp(r).test(answer)) failures.push(`no match for /${r}/`);
  for (const f of checks.forbidden ?? []) if (text.includes(normalise(f))) failures.push(`contains forbidden "${f}"`);
  return { passed: failures.length === 0, failures };
}

// ---------------------------------------------------------------- judge

export const JUDGE_SCHEMA = {
  type: 'object',
  properties: {
    score: { type: 'number', minimum: 0, maximum: 1, description: '0 = fails the rubric, 1 = fully meets it' },
    reason: { type: 'string', description: 'one or two sentences' },
  },
  required: ['score', 'reason'],
};

const JUDGE_SYSTEM =
  'You grade an assistant\'s answer against a rubric. Judge only what the rubric asks; do not reward length or ' +
  'style. Reply with JSON: {"score": a number from 0 (fails) to 1 (fully meets the rubric), "reason": one or two sentences}.';

/** Grades an answer against the case's rubric with the model (structured output). */
export async function judgeAnswer(client: AgentClient, c: QualityCase, answer: string, lane?: Lane): Promise<{ verdict: JudgeVerdict; usage: Usage; costUsd: number }> {
  const res = await client.chat(
    {
      system: [{ text: JUDGE_SYSTEM, cache: true }],
      messages: [{ role: 'user', content: `<request>\n${c.request}\n</request>\n\n<rubric>\n${c.rubric}\n</rubric>\n\n<answer>\n${answer}\n</answer>` }],
      tools: [],
      responseSchema: JUDGE_SCHEMA,
      temperature: 0,
    },
    { lane },
  );
  return { verdict: parseVerdict(res.response.text), usage: res.response.usage, costUsd: res.costUsd };
}

export function parseVerdict(text: string): JudgeVerdict {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  let v: unknown;
  try {
    v = json ? JSON.parse(json) : undefined;
  } catch {
    v = undefined;
  }
  if (!isObj(v) || typeof v.score !== 'number' || !Number.isFinite(v.score)) throw new Error(`judge answer is not {"score", "reason"} JSON: ${text.slice(0, 200)}`);
  return { score: Math.min(1, Math.max(0, v.score)), reason: typeof v.reason === 'string' ? v.reason : '' };
}

// ---------------------------------------------------------------- the evaluation

export interface QualityOptions {
  modes: HarnessMode[];
  format?: CatalogueFormat;
  maxTurns?: number;
  sandbox?: SandboxOptions;
  /** Cases run at once (each is a sequential loop). */
  parallel?: number;
  judge?: boolean;
  /** A judged case passes at score >= this. */
  judgeThreshold?: number;
  lanes?: Partial<Record<HarnessMode, Lane>>;
  casesFile?: string;
  skillbenchVersion?: string;
  settings?: Record<string, unknown>;
}

export interface CaseOutcome {
  case: QualityCase;
  mode: HarnessMode;
  run: AgentRun;
  check: CheckOutcome;
  judge?: JudgeVerdict | { error: string };
  passed: boolean;
}

/** Runs every case in every mode; returns the outcomes and the results file (command eval-quality). */
export async function evalQuality(
  client: AgentClient,
  catalogue: Catalogue,
  cases: QualityCase[],
  opts: QualityOptions,
): Promise<{ outcomes: CaseOutcome[]; results: ResultsFile }> {
  const limit = pLimit(Math.max(1, opts.parallel ?? 4));
  const judgeCost: Record<string, number> = {};
  const jobs = opts.modes.flatMap((mode) =>
    cases.map((c) =>
      limit(async (): Promise<CaseOutcome> => {
        const lane = opts.lanes?.[mode];
        const run = await runAgent(client, catalogue, c.request, { mode, format: opts.format, maxTurns: opts.maxTurns, sandbox: opts.sandbox, lane });
        const answer = run.answer ?? '';
        const check = run.answer === null ? { passed: false, failures: [run.stop === 'error' ? `no answer: ${run.error}` : 'no answer: --max-turns reached'] } : checkAnswer(answer, c.checks);
        let judge: CaseOutcome['judge'];
        if (opts.judge && c.rubric && run.answer !== null) {
          try {
            const j = await judgeAnswer(client, c, answer, lane);
            judge = j.verdict;
            judgeCost[mode] = (judgeCost[mode] ?? 0) + j.costUsd;
          } catch (err) {
            judge = { error: (err as Error).message };
          }
        }
        const judgePassed = judge === undefined || ('score' in judge && judge.score >= (opts.judgeThreshold ?? 0.7));
        if (lane) lane.done++;
        return { case: c, mode, run, check, judge, passed: check.passed && judgePassed };
      }),
    ),
  );
  const outcomes = await Promise.all(jobs);
  const results = toResults(catalogue, cases, outcomes, opts, judgeCost);
  return { outcomes, results };
}

function toResults(catalogue: Catalogue, cases: QualityCase[], outcomes: CaseOutcome[], opts: QualityOptions, judgeCost: Record<string, number>): ResultsFile {
  const requests: EvalRequest[] = cases.map((c) => ({ id: c.id, text: c.request, gold: c.skill }));
  const runs: SelectorRun[] = opts.modes.map((mode) => ({
    selector: mode,
    kind: 'decision',
    provider: outcomes[0]?.run.provider,
    model: outcomes[0]?.run.model,
    ...(judgeCost[mode] ? { extraCostUsd: judgeCost[mode] } : {}),
    decisions: outcomes.filter((o) => o.mode === mode).map(toDecision),
  }));
  return {
    schema: 'skillbench.results',
    version: RESULTS_VERSION,
    command: 'eval-quality',
    createdAt: new Date().toISOString(),
    skillbenchVersion: opts.skillbenchVersion ?? '0.0.0',
    settings: { modes: opts.modes, format: opts.format ?? 'xml', maxTurns: opts.maxTurns ?? 10, judge: Boolean(opts.judge), judgeThreshold: opts.judgeThreshold ?? 0.7, cases: opts.casesFile, ...opts.settings },
    catalogue: { source: catalogue.source, format: opts.format ?? 'xml', skills: catalogue.skills.map(resultsSkill) },
    requests,
    runs,
    quality: summarise(opts.modes, outcomes, Boolean(opts.judge), judgeCost),
  };
}

function toDecision(o: CaseOutcome): Decision {
  const r = o.run;
  const usage: Usage = { inputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, thinkingTokens: 0 };
  for (const c of r.calls) for (const k of Object.keys(usage) as (keyof Usage)[]) usage[k] += c.usage[k];
  return {
    requestId: o.case.id,
    run: 0,
    // Progressive: the first skill activated. Load-all loads everything up front: no choice to record.
    chosen: o.mode === 'progressive' ? (r.activated[0] ?? null) : null,
    ...(r.stop === 'error' ? { error: r.error ?? 'provider error' } : {}),
    usage,
    costUsd: r.costUsd,
    cached: r.calls.length > 0 && r.calls.every((c) => c.cached),
    latencyMs: r.calls.reduce((s, c) => s + c.latencyMs, 0),
    detail: {
      mode: o.mode,
      passed: o.passed,
      failures: o.check.failures,
      ...(o.judge ? { judge: o.judge } : {}),
      stop: r.stop,
      calls: r.calls.length,
      inputTokens: r.inputTokens,
      resentTokens: r.resentTokens,
      levels: Object.fromEntries(r.levels.map((l) => [l.source, l.once])),
      tools: r.calls.flatMap((c) => c.toolCalls.map((t) => `${t.name}(${JSON.stringify(t.args)})${t.isError ? ' !' : ''}`)),
      answer: r.answer,
    },
  };
}

export function summarise(modes: HarnessMode[], outcomes: CaseOutcome[], judged: boolean, judgeCost: Record<string, number> = {}): QualitySummary {
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const summaries: QualityModeSummary[] = modes.map((mode) => {
    const os = outcomes.filter((o) => o.mode === mode);
    const ran = os.filter((o) => o.run.calls.length > 0);
    const scores = os.flatMap((o) => (o.judge && 'score' in o.judge ? [o.judge.score] : []));
    return {
      mode,
      cases: os.length,
      pass: wilson(os.filter((o) => o.passed).length, os.length),
      errors: os.filter((o) => o.run.stop !== 'answer').length,
      inputTokensPerRequest: mean(ran.map((o) => o.run.inputTokens)),
      callsPerRequest: mean(ran.map((o) => o.run.calls.length)),
      outputTokensPerRequest: mean(ran.map((o) => o.run.outputTokens)),
      costUsd: os.reduce((s, o) => s + o.run.costUsd, 0) + (judgeCost[mode] ?? 0),
      ...(judged ? { judge: { n: scores.length, mean: mean(scores) } } : {}),
    };
  });
  const p = summaries.find((s) => s.mode === 'progressive')?.inputTokensPerRequest;
  const l = summaries.find((s) => s.mode === 'load-all')?.inputTokensPerRequest;
  return { modes: summaries, tokenRatio: p != null && l ? p / l : null, judged };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
