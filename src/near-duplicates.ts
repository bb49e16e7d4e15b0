// Near-duplicate descriptions (a `validate` warning): skills whose descriptions' word counts have a cosine similarity at
// or above a threshold, found without comparing every pair (50 million pairs at 10,000 skills).
//
// How: all-pairs similarity search with prefix filtering. Each description's words are ordered rarest first (by how
// many descriptions hold them, one global order); its prefix is the shortest run of those words whose leaving out
// would bring the largest possible cosine with any other description below the threshold. Two descriptions at or
// above the threshold always share a word of both prefixes (see prefixOf), so only prefix words are indexed and looked
// up. Rare words make short lists: near-linear on real catalogues. Skills found similar form a group; a word's list keeps the latest member of each group only, so a
// thousand copies of one description cost a thousand comparisons, not half a million; and no skill is compared with
// more than MAX_CANDIDATES others. Every warning is a real pair at or above the threshold; a skill similar only to an
// older member of a group (not to the one indexed) can be missed: the price of the bound.
import { compareStrings, skillFieldLine } from './catalogue.js';
import { ruleId } from './rules.js';
import type { Problem, Skill } from './types.js';

/** Cosine similarity of two descriptions' word counts at or above which they are reported as near duplicates. */
export const NEAR_DUPLICATE_THRESHOLD = 0.8;
/** Warnings listed; the rest are counted in one more warning. */
export const MAX_NEAR_DUPLICATE_WARNINGS = 50;
/** Skills one description is compared with, at most (their cosine computed)... */
export const MAX_CANDIDATES = 32;
/** ...and entries of the index read for it, at most: a catalogue whose every word is common stays linear too. */
export const MAX_SCANNED = 4096;

const STOP_WORDS = new Set(
  (
    'the and for with from that this when use used using you your are can not any all into its via per such ' +
    'les des une pour avec dans par sur est qui que quand pas aux ces son ses tout'
  ).split(' '),
);

/** Word counts of a description: lowercase words of 3+ letters or digits, minus common English and French words. */
export function termVector(text: string): Map<string, number> {
  const v = new Map<string, number>();
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []) {
    if (!STOP_WORDS.has(w)) v.set(w, (v.get(w) ?? 0) + 1);
  }
  return v;
}

/** Cosine similarity of two word-count vectors. */
export function cosine(a: Map<string, number>, b: Map<string, number>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [w, n] of small) dot += n * (large.get(w) ?? 0);
  return dot === 0 ? 0 : dot / (norm(a) * norm(b));
}

function norm(v: Map<string, number>): number {
  let s = 0;
  for (const n of v.values()) s += n * n;
  return Math.sqrt(s);
}

/**
 * The descriptions as sparse unit vectors, packed in flat arrays (one allocation each, whatever the catalogue's size):
 * description d holds positions start[d] to start[d + 1] - 1, its words as ranks in the global order (rarest first),
 * ascending, with their weights and, per position, the norm of the weights from there on.
 */
interface Vectors {
  skills: Skill[];
  start: Int32Array;
  words: Int32Array;
  weights: Float64Array;
  rest: Float64Array;
  /** How many of each description's first words make its prefix (see prefixLength). */
  prefix: Int32Array;
  vocabulary: number;
}

/** Search statistics, for tests and benchmarks: postings read and pairs whose cosine was computed. */
export interface NearDuplicateStats {
  scanned: number;
  comparisons: number;
}

/**
 * One warning per skill whose description is nearly the same as an earlier one's (name order), naming both and their
 * cosine; at most MAX_NEAR_DUPLICATE_WARNINGS, then one warning counting the rest and their groups.
 */
export function nearDuplicates(skills: Skill[], threshold = NEAR_DUPLICATE_THRESHOLD, stats?: NearDuplicateStats): Problem[] {
  const floor = threshold - 1e-12; // the threshold itself counts (identical descriptions: cosine 1 give or take rounding)
  const v = toVectors([...skills].sort((a, b) => compareStrings(a.name, b.name)), threshold);
  const n = v.skills.length;
  /** Per word: the documents indexed under it, as (document, norm from that word on) pairs; one per group (a
   *  group's newer member takes its older member's place). */
  const lists: (number[] | undefined)[] = new Array(v.vocabulary);
  const group = new Int32Array(n).fill(-1);
  const seenBy = new Int32Array(n).fill(-1);
  const found: { doc: number; like: number; sim: number }[] = [];
  let groups = 0;
  let comparisons = 0;
  let scanned = 0;
  for (let d = 0; d < n; d++) {
    const first = v.start[d]!;
    let best = -1;
    let bestSim = 0;
    let met = 0;
    let read = 0;
    search: for (let i = first; i < first + v.prefix[d]!; i++) {
      const list = lists[v.words[i]!];
      if (!list) continue;
      const restHere = v.rest[i]!;
      for (let p = list.length - 2; p >= 0; p -= 2) {
        if (++read > MAX_SCANNED) break search;
        const o = list[p]!;
        if (seenBy[o] === d) continue;
        // First met under this word: every word the two share comes at or after it (earlier ones were looked up), so
        // the norms of what is left of each bound their cosine.
        if (restHere * list[p + 1]! < floor) continue;
        seenBy[o] = d;
        comparisons++;
        const sim = dotAtLeast(v, d, o, Math.max(floor, bestSim));
        if (sim > bestSim) {
          best = o;
          bestSim = sim;
        }
        if (++met >= MAX_CANDIDATES) break search;
      }
    }
    scanned += Math.min(read, MAX_SCANNED);
    const joined = best >= 0;
    group[d] = joined ? group[best]! : groups++;
    if (joined) found.push({ doc: d, like: best, sim: Math.min(1, bestSim) });
    for (let i = first; i < first + v.prefix[d]!; i++) {
      const word = v.words[i]!;
      const list = (lists[word] ??= []);
      // Joining a group is rare (a near copy): only then is the list searched for the group's older member, whose
      // entry the newcomer takes over.
      let at = list.length;
      if (joined) for (let p = 0; p < list.length; p += 2) if (group[list[p]!] === group[d]) at = p;
      list[at] = d;
      list[at + 1] = v.rest[i]!;
    }
  }
  if (stats) Object.assign(stats, { comparisons, scanned });
  return toWarnings(
    found.map((f) => ({ skill: v.skills[f.doc]!, like: v.skills[f.like]!, sim: f.sim, group: group[f.doc]! })),
    threshold,
  );
}

/** The descriptions' unit vectors, their words in one global order: rarest first (by how many descriptions hold them). */
function toVectors(skills: Skill[], threshold: number): Vectors {
  const counts = skills.map((s) => termVector(s.description));
  const df = new Map<string, number>();
  let total = 0;
  for (const c of counts) {
    total += c.size;
    for (const w of c.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const order = [...df.keys()].sort((a, b) => df.get(a)! - df.get(b)! || compareStrings(a, b));
  const rank = new Map(order.map((w, i) => [w, i]));
  const v: Vectors = {
    skills,
    start: new Int32Array(skills.length + 1),
    words: new Int32Array(total),
    weights: new Float64Array(total),
    rest: new Float64Array(total),
    prefix: new Int32Array(skills.length),
    vocabulary: order.length,
  };
  let at = 0;
  counts.forEach((c, d) => {
    v.start[d] = at;
    const ranked = [...c.keys()].map((w) => rank.get(w)!).sort((a, b) => a - b);
    const norm = Math.sqrt([...c.values()].reduce((s, x) => s + x * x, 0));
    ranked.forEach((r, i) => {
      v.words[at + i] = r;
      v.weights[at + i] = c.get(order[r]!)! / norm;
    });
    let mass = 0;
    for (let i = ranked.length - 1; i >= 0; i--) v.rest[at + i] = Math.sqrt((mass += v.weights[at + i]! ** 2));
    v.prefix[d] = prefixLength(v.rest, at, at + ranked.length, threshold);
    at += ranked.length;
  });
  v.start[skills.length] = at;
  return v;
}

/**
 * How many of the rarest words make the prefix: the words up to the point where the rest weighs less than the
 * threshold. With every description's words in one global order, the first word two descriptions share is in both
 * their prefixes when their cosine reaches the threshold (else the rest of either, from that word on, bounds the
 * cosine below it, by Cauchy-Schwarz). So a description is indexed under its prefix and looks only its prefix up.
 */
function prefixLength(rest: Float64Array, from: number, to: number, threshold: number): number {
  let i = from;
  while (i < to && rest[i]! >= threshold - 1e-12) i++;
  return i - from;
}

/**
 * Dot product of two descriptions (both word lists ascending: a merge), or -1 as soon as it cannot reach `floor`: what
 * is left of each vector bounds what is left to add (Cauchy-Schwarz), so most dissimilar pairs stop after a few words.
 */
function dotAtLeast(v: Vectors, a: number, b: number, floor: number): number {
  const { words, weights, rest } = v;
  const aEnd = v.start[a + 1]!;
  const bEnd = v.start[b + 1]!;
  let i = v.start[a]!;
  let j = v.start[b]!;
  let s = 0;
  while (i < aEnd && j < bEnd) {
    if (s + rest[i]! * rest[j]! < floor) return -1;
    const x = words[i]!;
    const y = words[j]!;
    if (x === y) s += weights[i++]! * weights[j++]!;
    else if (x < y) i++;
    else j++;
  }
  return s >= floor ? s : -1;
}

function toWarnings(found: { skill: Skill; like: Skill; sim: number; group: number }[], threshold: number): Problem[] {
  const out: Problem[] = found.slice(0, MAX_NEAR_DUPLICATE_WARNINGS).map(({ skill, like, sim }) => ({
    file: skill.file,
    line: skillFieldLine(skill, 'description'),
    severity: 'warning' as const,
    message: `descriptions of "${like.name}" and "${skill.name}" are nearly the same (cosine ${sim.toFixed(2)} >= ${threshold.toFixed(2)}); a model will confuse them`,
    fix: 'say what sets each apart, or merge them',
    rule: ruleId('near-duplicate-descriptions'),
  }));
  const rest = found.slice(MAX_NEAR_DUPLICATE_WARNINGS);
  if (rest.length > 0) {
    const groups = new Set(rest.map((f) => f.group)).size;
    const first = rest[0]!.skill;
    out.push({
      file: first.file,
      line: skillFieldLine(first, 'description'),
      severity: 'warning',
      message: `${rest.length} more skills have a description nearly the same as another's (${groups} group${groups === 1 ? '' : 's'}), not listed: only the first ${MAX_NEAR_DUPLICATE_WARNINGS} are`,
      fix: 'say what sets each skill apart, or merge them, then run validate again to see the next ones',
      rule: ruleId('near-duplicate-descriptions'),
    });
  }
  return out;
}
