// The words a request shares with a skill's name and description, as the report shows them for a near miss or a
// needless load: "it loaded expense-report-checker on the words receipt, taxi". Words are compared by their stems
// (the Porter stemmer of wink-nlp-utils, the one the keyword selector uses), common words of the usual languages left out.
import { createRequire } from 'node:module';
import { COMMON_WORDS, wordsOf } from './language.js';

const require = createRequire(import.meta.url);
let stemmer: ((tokens: string[]) => string[]) | undefined;

function stems(words: string[]): string[] {
  stemmer ??= (require('wink-nlp-utils') as { tokens: { stem(t: string[]): string[] } }).tokens.stem;
  return stemmer(words);
}

/** Stems of a skill's name (split on - and _) and description. */
export function skillStems(skill: { name: string; description?: string }): Set<string> {
  return new Set(stems(wordsOf(`${skill.name.replace(/[-_]+/g, ' ')} ${skill.description ?? ''}`)));
}

/** The request's words (as written, once each, in order) whose stem is one of `stemsOfSkill`. */
export function matchedWords(request: string, stemsOfSkill: Set<string>): string[] {
  const words = [...new Set(wordsOf(request))].filter((w) => w.length > 1 && !COMMON_WORDS.has(w) && !/^\p{N}+$/u.test(w));
  const stemmed = stems(words);
  return words.filter((_, i) => stemsOfSkill.has(stemmed[i]!));
}
