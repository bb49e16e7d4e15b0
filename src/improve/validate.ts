// Reading an improve results file: the `improve` block is checked field by field (with the file's request ids and
// run names), so a report never renders a candidate, a split or a choice that the file does not support.
import type { CandidateStatus } from '../types.js';

type Bad = (field: string, expected: string) => never;

const STATUSES: readonly CandidateStatus[] = ['scored', 'rejected', 'duplicate', 'prescreened-out', 'unscored'];

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

export function validateImprove(value: unknown, requestIds: Set<string>, runNames: Set<string>, bad: Bad): void {
  if (!isObj(value)) bad('improve', 'must be an object (the split, the candidates and the one kept)');
  const s = value as Record<string, unknown>;
  if (typeof s.skill !== 'string') bad('improve.skill', 'must be a skill name');
  if (s.file !== undefined && typeof s.file !== 'string') bad('improve.file', 'must be a path');
  if (!isObj(s.split)) bad('improve.split', 'must be an object');
  const split = s.split as Record<string, unknown>;
  if (!Number.isInteger(split.seed)) bad('improve.split.seed', 'must be a whole number');
  if (!num(split.holdout) || (split.holdout as number) <= 0 || (split.holdout as number) >= 1) bad('improve.split.holdout', 'must be a number between 0 and 1');
  const seen = new Set<string>();
  for (const part of ['train', 'test'] as const) {
    const ids = split[part];
    if (!Array.isArray(ids)) bad(`improve.split.${part}`, 'must be a list of request ids');
    (ids as unknown[]).forEach((id, i) => {
      if (typeof id !== 'string' || !requestIds.has(id)) bad(`improve.split.${part}[${i}]`, `names request ${JSON.stringify(id)}, which is not in "requests"`);
      if (seen.has(id as string)) bad(`improve.split.${part}[${i}]`, `puts request "${String(id)}" in both parts`);
      seen.add(id as string);
    });
  }
  if (!Array.isArray(s.candidates) || !s.candidates.length) bad('improve.candidates', 'must be a non-empty list');
  const ids = new Set<string>();
  (s.candidates as unknown[]).forEach((c, i) => {
    const f = `improve.candidates[${i}]`;
    if (!isObj(c)) bad(f, 'must be an object');
    const cand = c as Record<string, unknown>;
    if (typeof cand.id !== 'string' || ids.has(cand.id)) bad(`${f}.id`, 'must be a unique string');
    ids.add(cand.id as string);
    if (!Number.isInteger(cand.iteration) || (cand.iteration as number) < 0) bad(`${f}.iteration`, 'must be a whole number >= 0');
    if (cand.parent !== null && (typeof cand.parent !== 'string' || !ids.has(cand.parent))) bad(`${f}.parent`, 'must be null or the id of an earlier candidate');
    if (typeof cand.description !== 'string') bad(`${f}.description`, 'must be a string');
    if (cand.rationale !== undefined && typeof cand.rationale !== 'string') bad(`${f}.rationale`, 'must be a string');
    if (!STATUSES.includes(cand.status as CandidateStatus)) bad(`${f}.status`, `must be one of ${STATUSES.join(', ')}`);
    if (cand.reason !== undefined && typeof cand.reason !== 'string') bad(`${f}.reason`, 'must be a string');
    if (cand.status === 'scored' && !runNames.has(cand.id as string)) bad(`${f}.status`, `is "scored" but no run is named "${String(cand.id)}"`);
    if (cand.status === 'duplicate' && (typeof cand.duplicateOf !== 'string' || !runNames.has(cand.duplicateOf))) bad(`${f}.duplicateOf`, 'must name a scored candidate');
    if (cand.prescreen !== undefined) {
      const p = cand.prescreen as Record<string, unknown>;
      if (!isObj(p) || !num(p.k) || !num(p.n)) bad(`${f}.prescreen`, 'must be a rate {k, n, rate, low, high}');
    }
  });
  if (typeof s.chosen !== 'string' || !ids.has(s.chosen)) bad('improve.chosen', 'must be the id of a candidate');
  if (!isObj(s.comparison)) bad('improve.comparison', 'must be an object');
  const cmp = s.comparison as Record<string, unknown>;
  for (const key of ['better', 'worse', 'pValue', 'alpha']) if (!num(cmp[key])) bad(`improve.comparison.${key}`, 'must be a number');
  if (typeof cmp.withinNoise !== 'boolean') bad('improve.comparison.withinNoise', 'must be true or false');
  if (s.stopped !== undefined && typeof s.stopped !== 'string') bad('improve.stopped', 'must be a string');
  if (s.listingCut !== undefined && !Number.isInteger(s.listingCut)) bad('improve.listingCut', 'must be a whole number');
  if (s.written !== undefined && typeof s.written !== 'boolean') bad('improve.written', 'must be true or false');
}
