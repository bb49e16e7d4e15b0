// `report --merge`: the results files of the N shards of one eval-trigger run (--shard I/N) joined into one results
// file that every report format and the baseline gate read as one run. The shards must be of one run: the same
// command, skillbench version, settings (only --shard, --batch and --cache-only may differ), catalogue and request
// set, every shard present once; anything else is a UserError naming the file and the field that differs.
//
// What a single run computes over all its requests is computed again over all of them here: a score selector's
// optimistic or cross-validated threshold (and fused's fitted decision) is chosen again on the merged decisions'
// scores (fused: the features its decisions keep) and every decision re-taken, and completeness is counted over the
// merged decisions. Decisions keep the order a single
// run gives (repeat, then request-file order).
import { canonicalJson } from './cache.js';
import { completenessOf } from './completeness.js';
import { UserError } from './errors.js';
import { FUSED_FEATURES, type FusedItem } from './selectors/fused.js';
import { fusedRun, thresholdRun, type ThresholdPlan } from './selectors/thresholds.js';
import type { ShardInfo } from './shard.js';
import type { Decision, EvalRequest, ResultsFile, SelectorRun } from './types.js';

export interface ShardFile {
  file: string;
  results: ResultsFile;
}

/** Settings that may differ between the shards of one run: how each shard was run, not what it measured. */
const PER_SHARD_SETTINGS = new Set(['shard', 'batch', 'cacheOnly']);
const FIX = 'merge the results files of one run: every shard of the same eval-trigger command, where only --shard differs';

export function mergeShards(shards: ShardFile[]): ResultsFile {
  if (!shards.length) throw new UserError('report --merge: no results file given', 'pass the results file of every shard: report --merge a.json b.json ...');
  const infos = shards.map(shardInfo);
  const first = shards[0]!;
  for (const s of shards.slice(1)) sameRun(first, s);
  checkShardSet(shards, infos);
  const positions = new Map<string, number>();
  const requests: EvalRequest[] = [];
  shards.forEach((s, i) => {
    s.results.requests.forEach((r, j) => {
      if (positions.has(r.id)) throw new UserError(`${s.file}: request "${r.id}" is also in another shard`, FIX);
      positions.set(r.id, infos[i]!.positions[j]!);
      requests.push(r);
    });
  });
  requests.sort((a, b) => positions.get(a.id)! - positions.get(b.id)!);
  const expected = infos[0]!.of;
  if (requests.length !== expected) {
    throw new UserError(`${first.file}: field "settings.shard.of" says the run has ${expected} requests, the shards hold ${requests.length}`, FIX);
  }
  const runs = first.results.runs.map((run, i) => mergeRun(shards, i, positions, requests));
  const { shard: _shard, ...settings } = first.results.settings;
  const maxErrorRate = first.results.completeness?.maxErrorRate ?? 0;
  const stopped = shards.map((s) => s.results.completeness?.stopped).filter(Boolean).join('; ');
  const merged: ResultsFile = {
    ...first.results,
    createdAt: new Date().toISOString(),
    settings: { ...settings, merged: { shards: infos[0]!.count, files: shards.map((s) => s.file) } },
    requests,
    runs,
    completeness: completenessOf(runs, maxErrorRate, stopped || undefined),
  };
  delete merged.gate; // a shard's gate judged a slice; the merged run is gated by `report --baseline` / the rate gates
  return merged;
}

function shardInfo(s: ShardFile): ShardInfo {
  if (s.results.command !== 'eval-trigger') {
    throw new UserError(`${s.file}: field "command" is "${s.results.command}": only eval-trigger results are written in shards`, FIX);
  }
  const info = s.results.settings.shard as Partial<ShardInfo> | undefined;
  if (!info || typeof info !== 'object') throw new UserError(`${s.file}: field "settings.shard" is missing: not the results of an eval-trigger --shard I/N run`, FIX);
  const int = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
  for (const k of ['index', 'count', 'of'] as const) if (!int(info[k])) throw new UserError(`${s.file}: field "settings.shard.${k}" must be a whole number`, FIX);
  if (typeof info.requestSet !== 'string') throw new UserError(`${s.file}: field "settings.shard.requestSet" must be a string`, FIX);
  if (!Array.isArray(info.positions) || info.positions.length !== s.results.requests.length || !info.positions.every(int)) {
    throw new UserError(`${s.file}: field "settings.shard.positions" must list one position per request`, FIX);
  }
  return info as ShardInfo;
}

/** The same command, version, settings (but the per-shard ones), catalogue and request set as the first file. */
function sameRun(a: ShardFile, b: ShardFile): void {
  const differs = (field: string, x: unknown, y: unknown, fix = FIX): never => {
    throw new UserError(`${b.file}: field "${field}" is ${show(y)}, but ${a.file} has ${show(x)}`, fix);
  };
  if (a.results.skillbenchVersion !== b.results.skillbenchVersion) differs('skillbenchVersion', a.results.skillbenchVersion, b.results.skillbenchVersion, 'run every shard with the same skillbench version');
  const keys = new Set([...Object.keys(a.results.settings), ...Object.keys(b.results.settings)]);
  for (const k of [...keys].sort()) {
    if (PER_SHARD_SETTINGS.has(k)) continue;
    const x = a.results.settings[k];
    const y = b.results.settings[k];
    if (canonicalJson(x) !== canonicalJson(y)) differs(`settings.${k}`, x, y);
  }
  const sa = a.results.settings.shard as ShardInfo;
  const sb = b.results.settings.shard as ShardInfo;
  for (const k of ['count', 'of', 'requestSet'] as const) {
    if (sa[k] !== sb[k]) differs(`settings.shard.${k}`, sa[k], sb[k], k === 'count' ? FIX : 'run every shard on the same request file');
  }
  const ca = a.results.catalogue;
  const cb = b.results.catalogue;
  if (ca.source !== cb.source) differs('catalogue.source', ca.source, cb.source, 'run every shard on the same catalogue');
  if (ca.format !== cb.format) differs('catalogue.format', ca.format, cb.format);
  const skillsA = new Map(ca.skills.map((s) => [s.name, s]));
  for (const [i, s] of cb.skills.entries()) {
    const t = skillsA.get(s.name);
    if (!t) differs(`catalogue.skills[${i}]`, '(no such skill)', s.name, 'run every shard on the same catalogue');
    else if (t.hash !== s.hash) differs(`catalogue.skills[${i}].hash`, t.hash, s.hash, `run every shard on the same catalogue (skill "${s.name}" changed between them)`);
  }
  if (ca.skills.length !== cb.skills.length) differs('catalogue.skills', `${ca.skills.length} skills`, `${cb.skills.length} skills`, 'run every shard on the same catalogue');
  const selectors = (r: ResultsFile) => r.runs.map((x) => x.selector);
  if (canonicalJson(selectors(a.results)) !== canonicalJson(selectors(b.results))) {
    differs('runs', selectors(a.results).join(', '), selectors(b.results).join(', '), 'run every shard with the same selectors (and the same keys, so none is skipped in one shard only)');
  }
}

/** Every shard 1..N once. */
function checkShardSet(shards: ShardFile[], infos: ShardInfo[]): void {
  const count = infos[0]!.count;
  const seen = new Map<number, string>();
  infos.forEach((info, i) => {
    const file = shards[i]!.file;
    if (info.index < 1 || info.index > count) throw new UserError(`${file}: field "settings.shard.index" is ${info.index}, outside 1..${count}`, FIX);
    const other = seen.get(info.index);
    if (other) throw new UserError(`${file}: field "settings.shard.index" is ${info.index}/${count}, like ${other}: each shard once`, 'pass each shard\'s results file once');
    seen.set(info.index, file);
  });
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length) {
    throw new UserError(
      `report --merge: shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${count} missing (given: ${shards.map((s) => s.file).join(', ')})`,
      'pass the results file of every shard: the merged file must hold the whole run',
    );
  }
}

/** One selector's run across the shards, as a single run over every request would have it. */
function mergeRun(shards: ShardFile[], i: number, positions: Map<string, number>, requests: EvalRequest[]): SelectorRun {
  const parts = shards.map((s) => s.results.runs[i]!);
  const head = parts[0]!;
  for (const [j, p] of parts.entries()) {
    for (const k of ['kind', 'provider', 'model', 'ceiling'] as const) {
      if (canonicalJson(p[k] ?? null) !== canonicalJson(head[k] ?? null)) {
        throw new UserError(`${shards[j]!.file}: field "runs[${i}].${k}" is ${show(p[k])}, but ${shards[0]!.file} has ${show(head[k])}`, FIX);
      }
    }
  }
  const decisions = parts.flatMap((p) => p.decisions).sort((a, b) => a.run - b.run || positions.get(a.requestId)! - positions.get(b.requestId)!);
  const extra = parts.reduce((sum, p) => sum + (p.extraCostUsd ?? 0), 0);
  const run: SelectorRun = { ...head, decisions, ...(head.extraCostUsd !== undefined ? { extraCostUsd: extra } : {}) };
  if (!head.threshold) return run;
  const source = head.threshold.source;
  const recomputed = source === 'optimistic' || source === 'cross-validated';
  if (!recomputed || !parts.every((p) => p.threshold?.source === source && p.threshold.folds === head.threshold!.folds)) {
    for (const [j, p] of parts.entries()) {
      if (canonicalJson(p.threshold ?? null) !== canonicalJson(head.threshold)) {
        throw new UserError(`${shards[j]!.file}: field "runs[${i}].threshold" is ${show(p.threshold)}, but ${shards[0]!.file} has ${show(head.threshold)}`, FIX);
      }
    }
    return run;
  }
  if (head.selector === 'fused') parts.forEach((p, j) => checkFeatures(p, shards[j]!.file, i));
  const plan: ThresholdPlan = source === 'optimistic' ? { kind: 'optimistic' } : { kind: 'cross-validated', folds: head.threshold.folds! };
  return decideAgain(run, requests, plan, shards[0]!.file, i);
}

/** Fused's decisions keep the features of their top candidate, which the refit needs (files of earlier versions do not). */
function checkFeatures(run: SelectorRun, file: string, index: number): void {
  run.decisions.forEach((d, k) => {
    if (d.error !== undefined) return;
    const features = d.detail?.features;
    if (Array.isArray(features) && features.length === FUSED_FEATURES.length && features.every((x) => typeof x === 'number')) return;
    throw new UserError(
      `${file}: field "runs[${index}].decisions[${k}].detail.features" is missing: fused's decision cannot be fitted again on every request`,
      'rerun the shards with this skillbench (it keeps the features), or fix the decision with --threshold baseline or --calibrate',
    );
  });
}

/**
 * A score selector's decisions taken again over every request, as one run takes them: an optimistic threshold (or
 * fused's fit) chosen on all of them, or cross-validated on the folds one run assigns (covered and uncovered apart,
 * round-robin in request-file order, which the merge restores). Everything else a decision holds is kept.
 */
function decideAgain(run: SelectorRun, requests: EvalRequest[], plan: ThresholdPlan, file: string, index: number): SelectorRun {
  const byId = new Map(run.decisions.map((d) => [d.requestId, d]));
  const old = requests.map((r) => byId.get(r.id)!);
  const { selector, kind: _kind, threshold: _threshold, fit: _fit, decisions: _decisions, ...extra } = run;
  let again: SelectorRun;
  if (selector === 'fused') {
    const items: FusedItem[] = old.map((d) => {
      if (d.error !== undefined) return { ranking: [], features: [], unreadable: d.error };
      return { ranking: d.scores ?? [], features: d.detail!.features as number[] };
    });
    again = fusedRun(requests, items, plan, undefined, extra);
  } else if (selector === 'similarity' || selector === 'keyword') {
    again = thresholdRun(selector, requests, old.map((d) => (d.error !== undefined ? { error: d.error } : d.scores ?? [])), plan, undefined, extra);
  } else {
    throw new UserError(`${file}: field "runs[${index}].selector" is "${selector}": its threshold cannot be chosen again over the shards`, FIX);
  }
  const fresh = new Map(again.decisions.map((d) => [d.requestId, d]));
  const decisions = run.decisions.map((d): Decision => {
    if (d.error !== undefined) return d;
    const n = fresh.get(d.requestId)!;
    return { ...d, chosen: n.chosen, ...(n.confidence !== undefined ? { confidence: n.confidence } : {}), ...(n.detail ? { detail: { ...d.detail, ...n.detail } } : {}) };
  });
  return { ...run, threshold: again.threshold, ...(again.fit ? { fit: again.fit } : {}), decisions };
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? '(absent)' : s.length > 120 ? `${s.slice(0, 120)}...` : s;
}
