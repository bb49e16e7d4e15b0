// The versioned results file: every decision with its scores and usage, enough to recompute every figure and to
// serve as a baseline. Reading validates schema, version and field types; a bad file is a UserError naming the
// file and the field.
import { resolve } from 'node:path';
import { UserError } from './errors.js';
import { writeOutputFile } from './fsutil.js';
import { readJsonFile } from './jsonfile.js';
import type { ResultsFile, ResultsSkill, Skill } from './types.js';
import { validateImprove } from './improve/validate.js';

export const RESULTS_SCHEMA = 'skillbench.results';
/**
 * 2: each skill's description (catalogue.skills[].description) and the model's answers (decisions[].calls, answer,
 * stopReason). Version 1 files still read: every field version 2 adds is optional, so they read as files without them.
 */
export const RESULTS_VERSION = 2;
const READABLE_VERSIONS = [1, 2];

/** A skill as the results file records it: its name, version hash, category, and the description measured. */
export function resultsSkill(skill: Skill): ResultsSkill {
  return { name: skill.name, hash: skill.hash, category: skill.category, description: skill.description };
}
const COMMANDS = ['eval-trigger', 'suggest-eval', 'eval-quality', 'improve'];

export async function writeResults(path: string, results: ResultsFile): Promise<void> {
  await writeOutputFile(path, JSON.stringify(results, null, 2) + '\n');
}

export async function readResults(path: string): Promise<ResultsFile> {
  const data = await readJsonFile(resolve(path), {
    shown: path,
    what: 'the results file',
    readFix: 'pass the path of a file written by -o FILE.json',
    fix: 'pass a results file written by skillbench -o FILE.json',
  });
  return validateResults(data, path);
}

/** Checks the shape of a parsed results file; throws a UserError naming the file and the first bad field. */
export function validateResults(data: unknown, file: string): ResultsFile {
  const bad = (field: string, expected: string): never => {
    throw new UserError(`${file}: field "${field}" ${expected}`, `pass a results file written by skillbench -o FILE.json (version ${READABLE_VERSIONS.join(' or ')}), or rerun to write a new one`);
  };
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  if (!isObj(data)) bad('(top level)', 'must be a JSON object');
  const root = data as Record<string, unknown>;
  if (root.schema !== RESULTS_SCHEMA) bad('schema', `must be "${RESULTS_SCHEMA}" (got ${JSON.stringify(root.schema)})`);
  if (!READABLE_VERSIONS.includes(root.version as number)) {
    throw new UserError(`${file}: field "version" is ${JSON.stringify(root.version)}; this skillbench reads versions ${READABLE_VERSIONS.join(' and ')}`,
      typeof root.version === 'number' && root.version > RESULTS_VERSION
        ? 'read it with the newer skillbench that wrote it, or rerun the evaluation with this one'
        : `rerun the evaluation with this skillbench to write a version-${RESULTS_VERSION} file`);
  }
  if (typeof root.command !== 'string' || !COMMANDS.includes(root.command)) bad('command', `must be one of ${COMMANDS.join(', ')}`);
  if (typeof root.createdAt !== 'string') bad('createdAt', 'must be a string (ISO date)');
  if (typeof root.skillbenchVersion !== 'string') bad('skillbenchVersion', 'must be a string');
  if (!isObj(root.settings)) bad('settings', 'must be an object');
  if (!isObj(root.catalogue)) bad('catalogue', 'must be an object');
  const cat = root.catalogue as Record<string, unknown>;
  if (typeof cat.source !== 'string') bad('catalogue.source', 'must be a string');
  if (!Array.isArray(cat.skills)) bad('catalogue.skills', 'must be an array');
  (cat.skills as unknown[]).forEach((s, i) => {
    const f = `catalogue.skills[${i}]`;
    if (!isObj(s)) bad(f, 'must be an object');
    for (const key of ['name', 'hash', 'category']) if (typeof (s as Record<string, unknown>)[key] !== 'string') bad(`${f}.${key}`, 'must be a string');
    const description = (s as Record<string, unknown>).description;
    if (description !== undefined && typeof description !== 'string') bad(`${f}.description`, 'must be a string');
  });
  if (!Array.isArray(root.requests)) bad('requests', 'must be an array');
  const ids = new Set<string>();
  (root.requests as unknown[]).forEach((r, i) => {
    const f = `requests[${i}]`;
    if (!isObj(r)) bad(f, 'must be an object');
    const req = r as Record<string, unknown>;
    if (typeof req.id !== 'string') bad(`${f}.id`, 'must be a string');
    if (typeof req.text !== 'string') bad(`${f}.text`, 'must be a string');
    if (req.gold !== null && typeof req.gold !== 'string') bad(`${f}.gold`, 'must be a skill name or null');
    if (req.kind !== undefined && !['positive', 'near-miss', 'off-topic'].includes(req.kind as string)) bad(`${f}.kind`, 'must be positive, near-miss or off-topic');
    if (req.target !== undefined && typeof req.target !== 'string') bad(`${f}.target`, 'must be a skill name');
    if (req.target !== undefined && req.gold !== null && req.gold !== req.target) bad(`${f}.target`, 'must equal gold when gold is set');
    if (req.candidates !== undefined && !(Array.isArray(req.candidates) && req.candidates.every((c) => typeof c === 'string'))) bad(`${f}.candidates`, 'must be a list of skill names');
    if (ids.has(req.id as string)) bad(`${f}.id`, `must be unique ("${String(req.id)}" is used twice)`);
    ids.add(req.id as string);
  });
  if (root.languages !== undefined) validateLanguages(root.languages, bad, isObj);
  if (!Array.isArray(root.runs)) bad('runs', 'must be an array');
  (root.runs as unknown[]).forEach((run, i) => {
    const f = `runs[${i}]`;
    if (!isObj(run)) bad(f, 'must be an object');
    const r = run as Record<string, unknown>;
    if (typeof r.selector !== 'string') bad(`${f}.selector`, 'must be a string');
    if (r.kind !== 'decision' && r.kind !== 'score') bad(`${f}.kind`, 'must be "decision" or "score"');
    if (r.threshold !== undefined) {
      if (!isObj(r.threshold) || !num(r.threshold.value)) bad(`${f}.threshold.value`, 'must be a number');
      if (!['fixed', 'optimistic', 'calibrated', 'cross-validated', 'default'].includes((r.threshold as Record<string, unknown>).source as string)) {
        bad(`${f}.threshold.source`, 'must be fixed, optimistic, calibrated, cross-validated or default');
      }
      const inSample = (r.threshold as Record<string, unknown>).inSample;
      if (inSample !== undefined && !(isObj(inSample) && num(inSample.shared) && num(inSample.of))) bad(`${f}.threshold.inSample`, 'must be {shared, of} (numbers)');
      const folds = (r.threshold as Record<string, unknown>).folds;
      if (folds !== undefined && !(Number.isInteger(folds) && (folds as number) >= 2)) bad(`${f}.threshold.folds`, 'must be a whole number >= 2');
    }
    if (r.fit !== undefined) validateFit(r.fit, `${f}.fit`, bad, isObj, num);
    if (r.extraCostUsd !== undefined && !num(r.extraCostUsd)) bad(`${f}.extraCostUsd`, 'must be a number');
    if (r.ceiling !== undefined && typeof r.ceiling !== 'boolean') bad(`${f}.ceiling`, 'must be true or false');
    if (!Array.isArray(r.decisions)) bad(`${f}.decisions`, 'must be an array');
    (r.decisions as unknown[]).forEach((d, j) => validateDecision(d, `${f}.decisions[${j}]`, ids, bad, isObj, num));
  });
  if (root.completeness !== undefined) {
    const c = root.completeness;
    if (!isObj(c)) bad('completeness', 'must be an object');
    const comp = c as Record<string, unknown>;
    for (const key of ['failed', 'total', 'maxErrorRate']) if (!num(comp[key])) bad(`completeness.${key}`, 'must be a number');
    if (typeof comp.complete !== 'boolean') bad('completeness.complete', 'must be true or false');
  }
  if (root.host !== undefined) validateHost(root.host, bad, isObj, num);
  if (root.command === 'improve' || root.improve !== undefined) {
    validateImprove(root.improve, ids, new Set((root.runs as { selector: string }[]).map((r) => r.selector)), bad);
  }
  return data as ResultsFile;
}

/** The host summary (what the reports print about the listing): names and lists of skill names. */
function validateHost(h: unknown, bad: (field: string, expected: string) => never, isObj: (v: unknown) => v is Record<string, unknown>, num: (v: unknown) => boolean): void {
  if (!isObj(h)) bad('host', 'must be an object');
  const host = h as Record<string, unknown>;
  for (const key of ['name', 'title', 'origin', 'placement', 'loading']) if (typeof host[key] !== 'string') bad(`host.${key}`, 'must be a string');
  if (!isObj(host.listing)) bad('host.listing', 'must be an object');
  const l = host.listing as Record<string, unknown>;
  for (const key of ['chars', 'fullChars']) if (!num(l[key])) bad(`host.listing.${key}`, 'must be a number');
  for (const key of ['dropped', 'namesOnly', 'shortened', 'cut']) {
    if (!Array.isArray(l[key]) || !(l[key] as unknown[]).every((x) => typeof x === 'string')) bad(`host.listing.${key}`, 'must be an array of skill names');
  }
  if (l.budget !== null && l.budget !== undefined) {
    if (!isObj(l.budget) || !num(l.budget.chars) || typeof l.budget.step !== 'string' || typeof l.budget.over !== 'boolean') bad('host.listing.budget', 'must be {chars, from, step, over} or null');
  }
}

function validateDecision(
  d: unknown,
  f: string,
  ids: Set<string>,
  bad: (field: string, expected: string) => never,
  isObj: (v: unknown) => v is Record<string, unknown>,
  num: (v: unknown) => boolean,
): void {
  if (!isObj(d)) bad(f, 'must be an object');
  const dec = d as Record<string, unknown>;
  if (typeof dec.requestId !== 'string') bad(`${f}.requestId`, 'must be a string');
  if (!ids.has(dec.requestId as string)) bad(`${f}.requestId`, `names request "${String(dec.requestId)}", which is not in "requests"`);
  if (!Number.isInteger(dec.run) || (dec.run as number) < 0) bad(`${f}.run`, 'must be a whole number >= 0');
  if (dec.chosen !== null && typeof dec.chosen !== 'string') bad(`${f}.chosen`, 'must be a skill name or null');
  if (dec.rawChoice !== undefined && typeof dec.rawChoice !== 'string') bad(`${f}.rawChoice`, 'must be a string');
  if (dec.error !== undefined && typeof dec.error !== 'string') bad(`${f}.error`, 'must be a string');
  if (dec.errorKind !== undefined && !['stop', 'call', 'budget', 'cache'].includes(dec.errorKind as string)) bad(`${f}.errorKind`, 'must be stop, call, budget or cache');
  if (dec.stopReason !== undefined && typeof dec.stopReason !== 'string') bad(`${f}.stopReason`, 'must be a string');
  if (dec.scores !== undefined) {
    if (!Array.isArray(dec.scores)) bad(`${f}.scores`, 'must be an array');
    (dec.scores as unknown[]).forEach((s, k) => {
      if (!isObj(s) || typeof s.name !== 'string') bad(`${f}.scores[${k}].name`, 'must be a string');
      if (!num((s as Record<string, unknown>).score)) bad(`${f}.scores[${k}].score`, 'must be a number');
    });
  }
  if (dec.calls !== undefined) {
    if (!Array.isArray(dec.calls)) bad(`${f}.calls`, 'must be an array');
    (dec.calls as unknown[]).forEach((c, k) => {
      if (!isObj(c) || typeof c.name !== 'string') bad(`${f}.calls[${k}].name`, 'must be a string');
      if (!isObj((c as Record<string, unknown>).args)) bad(`${f}.calls[${k}].args`, 'must be an object');
    });
  }
  if (dec.answer !== undefined && typeof dec.answer !== 'string') bad(`${f}.answer`, 'must be a string');
  if (dec.stopReason !== undefined && typeof dec.stopReason !== 'string') bad(`${f}.stopReason`, 'must be a string');
  if (dec.usage !== undefined) {
    if (!isObj(dec.usage)) bad(`${f}.usage`, 'must be an object');
    for (const key of ['inputTokens', 'cachedInputTokens', 'cacheWriteTokens', 'outputTokens', 'thinkingTokens']) {
      if (!num((dec.usage as Record<string, unknown>)[key])) bad(`${f}.usage.${key}`, 'must be a number');
    }
  }
  if (dec.confidence !== undefined && !num(dec.confidence)) bad(`${f}.confidence`, 'must be a number');
  if (dec.costUsd !== undefined && !num(dec.costUsd)) bad(`${f}.costUsd`, 'must be a number');
  if (dec.cached !== undefined && typeof dec.cached !== 'boolean') bad(`${f}.cached`, 'must be true or false');
  if (dec.latencyMs !== undefined && !num(dec.latencyMs)) bad(`${f}.latencyMs`, 'must be a number');
}

/** runs[].fit: fused's fitted decision, reused by --threshold baseline (so every number in it is checked). */
function validateFit(
  fit: unknown,
  f: string,
  bad: (field: string, expected: string) => never,
  isObj: (v: unknown) => v is Record<string, unknown>,
  num: (v: unknown) => boolean,
): void {
  if (!isObj(fit)) bad(f, 'must be an object');
  const x = fit as Record<string, unknown>;
  if (x.model !== 'logistic') bad(`${f}.model`, 'must be "logistic"');
  if (!Array.isArray(x.features) || !x.features.every((n) => typeof n === 'string')) bad(`${f}.features`, 'must be an array of feature names');
  const width = (x.features as string[]).length;
  for (const key of ['mean', 'sd', 'weights']) {
    const v = x[key];
    if (!Array.isArray(v) || v.length !== width || !v.every(num)) bad(`${f}.${key}`, `must be ${width} numbers (one per feature)`);
  }
  if ((x.sd as number[]).some((v) => v <= 0)) bad(`${f}.sd`, 'must be positive numbers');
  if (!num(x.intercept)) bad(`${f}.intercept`, 'must be a number');
  if (!num(x.threshold)) bad(`${f}.threshold`, 'must be a number');
  const on = x.fittedOn as Record<string, unknown> | undefined;
  if (!isObj(on) || !Number.isInteger(on.covered) || !Number.isInteger(on.uncovered)) bad(`${f}.fittedOn`, 'must be {covered, uncovered} counts');
}

/** languages: what the reports group requests by (src/language.ts). */
function validateLanguages(
  languages: unknown,
  bad: (field: string, expected: string) => never,
  isObj: (v: unknown) => v is Record<string, unknown>,
): void {
  if (!isObj(languages)) bad('languages', 'must be an object');
  const l = languages as Record<string, unknown>;
  if (typeof l.detector !== 'string') bad('languages.detector', 'must be a string');
  for (const key of ['requests', 'skills']) {
    if (!isObj(l[key])) bad(`languages.${key}`, 'must be an object');
    for (const [id, t] of Object.entries(l[key] as Record<string, unknown>)) {
      if (!isObj(t) || typeof t.language !== 'string' || typeof t.script !== 'string') bad(`languages.${key}.${id}`, 'must be {language, script} strings');
    }
  }
  if (l.warnings !== undefined && !(Array.isArray(l.warnings) && l.warnings.every((w) => typeof w === 'string'))) bad('languages.warnings', 'must be an array of strings');
}
