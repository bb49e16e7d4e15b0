// What the offline models can read. Each request and description gets a script (the Unicode script most of its
// letters are in, counted here) and a language (eld, the Efficient Language Detector, 'small' database, offline;
// 'und' when its answer is not reliable, e.g. "What is 2 + 2?").
// Who reads what:
// - `use` (Universal Sentence Encoder lite) has an English vocabulary: Latin text in another language is embedded
//   poorly (a warning), text in another script not at all: every Chinese sentence becomes the same vector;
// - `keyword` (wink's tokenizer) keeps ASCII letters only: text in another script has no word it can read;
// - `fused` reads any script through its character n-grams; its semantic signal (use) only where use can.
// A decision that no signal of a selector can make is an error row (never a quiet "no skill"); a degraded one is a
// warning, with figures per language in the report.
import type { EvalRequest, LanguageSummary, Skill, TextLanguage } from './types.js';

/** The detector and its database, as recorded in results files (the version is the one package.json pins). */
export const DETECTOR = 'eld 2.1.0 (small)';

const SCRIPTS: [string, RegExp][] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Han', /\p{Script=Han}/u],
  ['Kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['Hangul', /\p{Script=Hangul}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  ['Hebrew', /\p{Script=Hebrew}/u],
  ['Devanagari', /\p{Script=Devanagari}/u],
  ['Thai', /\p{Script=Thai}/u],
];

/** The script most of a text's letters are in ('Kana' wins over 'Han' in Japanese text), or 'none' without letters. */
export function dominantScript(text: string): string {
  const counts = new Map<string, number>();
  for (const ch of text) {
    if (!/\p{L}/u.test(ch)) continue;
    const script = SCRIPTS.find(([, re]) => re.test(ch))?.[0] ?? 'other';
    counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  if (!counts.size) return 'none';
  // Japanese mixes kanji (Han) with kana: any real share of kana makes it Japanese, not Chinese.
  const kana = counts.get('Kana') ?? 0;
  if (kana && kana >= 0.2 * (counts.get('Han') ?? 0)) counts.set('Kana', kana + (counts.get('Han') ?? 0));
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}

interface Detector {
  detect(text: string): { language: string; isReliable(): boolean };
}
let detector: Detector | undefined;

async function loadDetector(): Promise<Detector> {
  detector ??= ((await import('eld/small')) as unknown as { eld: Detector }).eld;
  return detector;
}

function languageOf(d: Detector, text: string): TextLanguage {
  const script = dominantScript(text);
  const found = script === 'none' ? null : d.detect(text);
  const language = found && found.language && found.isReliable() ? found.language : 'und';
  return { language, script };
}

/** `use` reads English, and Latin text whose language is not known (short or mixed); nothing in another script. */
export function useReads(t: TextLanguage): 'yes' | 'poorly' | 'no' {
  if (t.script === 'none') return 'yes';
  if (t.script !== 'Latin') return 'no';
  return t.language === 'en' || t.language === 'und' ? 'yes' : 'poorly';
}

/** The keyword baseline's tokenizer keeps ASCII letters and digits: Latin text only (accented letters are dropped). */
export function keywordReads(t: TextLanguage): boolean {
  return t.script === 'Latin' || t.script === 'none';
}

/** Language and script of every request and description. */
export async function detectLanguages(requests: EvalRequest[], skills: Skill[]): Promise<LanguageSummary> {
  const d = await loadDetector();
  return {
    detector: DETECTOR,
    requests: Object.fromEntries(requests.map((r) => [r.id, languageOf(d, r.text)])),
    skills: Object.fromEntries(skills.map((s) => [s.name, languageOf(d, s.description)])),
  };
}

/** A group name for per-language figures: the language, or the script when the language is not known. */
export function languageGroup(t: TextLanguage): string {
  if (t.language !== 'und') return t.language;
  return t.script === 'Latin' || t.script === 'none' ? 'und' : `und-${t.script}`;
}

/** "fr 12, de 2" */
function countText(items: TextLanguage[]): string {
  const counts = new Map<string, number>();
  for (const t of items) counts.set(languageGroup(t), (counts.get(languageGroup(t)) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, n]) => `${k} ${n}`).join(', ');
}

export interface LanguageWarningContext {
  selectors: readonly string[];
  /** The embedding provider of similarity and fused (only `use` is English-only). */
  embeddings: string;
}

/** One line per problem: how many texts, in what, and which selectors it affects and how. Empty when all is readable. */
export function languageWarnings(summary: LanguageSummary, ctx: LanguageWarningContext): string[] {
  const out: string[] = [];
  const reqs = Object.values(summary.requests);
  const descs = Object.values(summary.skills);
  const has = (s: string) => ctx.selectors.includes(s);
  const use = ctx.embeddings === 'use';
  const unreadable = reqs.filter((t) => useReads(t) === 'no');
  const poorly = reqs.filter((t) => useReads(t) === 'poorly');
  if (unreadable.length) {
    const who = [
      use && has('similarity') ? 'similarity (use) cannot read them: error rows' : '',
      has('keyword') ? 'keyword cannot read them (ASCII words only): error rows' : '',
      use && has('fused') ? 'fused reads them by character n-grams alone (error rows where no description shares their script)' : '',
    ].filter(Boolean);
    if (who.length) out.push(`${unreadable.length} of ${reqs.length} requests are in a script other than Latin (${countText(unreadable)}): ${who.join('; ')}`);
  }
  if (poorly.length && use && (has('similarity') || has('fused'))) {
    const who = [
      has('similarity') ? "similarity's scores for them are near guesses" : '',
      has('fused') ? 'fused ranks them by words and character n-grams alone' : '',
    ].filter(Boolean);
    out.push(
      `${poorly.length} of ${reqs.length} requests are not in English (${countText(poorly)}); the offline embedding model (use) reads English only: ` +
        `${who.join(', ')}. Figures per language are in the report; --embeddings gemini or openai embed other languages`,
    );
  }
  const badDescs = descs.filter((t) => useReads(t) !== 'yes');
  if (badDescs.length && use && (has('similarity') || has('fused'))) {
    out.push(
      `${badDescs.length} of ${descs.length} skill descriptions are not in English (${countText(badDescs)}): the offline embedding model (use) reads English only, ` +
        'so similarity (and fused\'s semantic signal) compare them poorly',
    );
  }
  return out;
}
