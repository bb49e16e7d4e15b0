// A rough guess of a request's language, for the report's language filter (a request set often mixes languages, and
// an English-only offline model fails on the others). The script first (Han, kana, Hangul, Cyrillic, Arabic, ...);
// for Latin script, the language whose most common words the text uses most. A guess for grouping, never a figure:
// with too little evidence the answer is "unknown".

const STOPWORDS: Record<string, string[]> = {
  English: ['the', 'and', 'is', 'are', 'to', 'of', 'in', 'for', 'my', 'me', 'you', 'can', 'this', 'that', 'with', 'it', 'what', 'how', 'do', 'i', 'on', 'a', 'an', 'be', 'please', 'from', 'have', 'was', 'should', 'need', 'at', 'by', 'or', 'as', 'if', 'so', 'all', 'any', 'will', 'has', 'not', 'no', 'your', 'our', 'we', 'they', 'there', 'here', 'which', 'when', 'about', 'into', 'these', 'those', 'them', 'its', 'get', 'give', 'before', 'after', 'then', 'than', 'also', 'just', 'some', 'more', 'most', 'other', 'such', 'only', 'very', 'could', 'would', 'like', 'want'],
  French: ['le', 'la', 'les', 'de', 'des', 'du', 'et', 'est', 'un', 'une', 'pour', 'dans', 'que', 'qui', 'pas', 'sur', 'je', 'tu', 'vous', 'mon', 'mes', 'ce', 'cette', 'avec', 'au', 'aux', 'il', 'elle', 'peux', 'faire'],
  German: ['der', 'die', 'das', 'und', 'ist', 'nicht', 'ich', 'sie', 'mit', 'für', 'auf', 'ein', 'eine', 'den', 'dem', 'zu', 'von', 'mein', 'meine', 'wie', 'was', 'kannst', 'bitte', 'auch', 'es', 'im'],
  Spanish: ['el', 'los', 'las', 'y', 'es', 'en', 'que', 'por', 'para', 'con', 'una', 'del', 'mi', 'mis', 'puedes', 'como', 'qué', 'este', 'esta', 'lo', 'se', 'al', 'pero', 'su'],
  Italian: ['il', 'lo', 'gli', 'della', 'di', 'che', 'è', 'per', 'con', 'una', 'non', 'mi', 'puoi', 'questo', 'questa', 'sono', 'nel', 'alla', 'come', 'anche', 'del'],
  Portuguese: ['o', 'os', 'as', 'e', 'é', 'do', 'da', 'dos', 'das', 'em', 'que', 'para', 'com', 'uma', 'não', 'meu', 'minha', 'pode', 'você', 'isso', 'no', 'na'],
  Dutch: ['de', 'het', 'een', 'en', 'is', 'van', 'ik', 'je', 'niet', 'dat', 'op', 'met', 'voor', 'mijn', 'kun', 'kan', 'wat', 'hoe', 'er', 'zijn'],
};

const SCRIPTS: [RegExp, string][] = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'Japanese'],
  [/\p{Script=Hangul}/u, 'Korean'],
  [/\p{Script=Han}/u, 'Chinese'],
  [/\p{Script=Cyrillic}/u, 'Cyrillic script'],
  [/\p{Script=Arabic}/u, 'Arabic script'],
  [/\p{Script=Hebrew}/u, 'Hebrew'],
  [/\p{Script=Greek}/u, 'Greek'],
  [/\p{Script=Devanagari}/u, 'Devanagari script'],
  [/\p{Script=Thai}/u, 'Thai'],
];

/** Lower-case words of a text (letters, marks, digits and inner apostrophes or hyphens). */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’-][\p{L}\p{M}\p{N}]+)*/gu) ?? [];
}

/** A name for the language of a text: English, French, ..., a script name, or "unknown". */
export function guessLanguage(text: string): string {
  for (const [re, name] of SCRIPTS) {
    const letters = text.match(/\p{L}/gu)?.length ?? 0;
    const inScript = text.match(new RegExp(re.source, 'gu'))?.length ?? 0;
    if (letters && inScript / letters > 0.3) return name;
  }
  // Elided articles (l'outil, d'un) count as their article.
  const tokens = wordsOf(text).flatMap((w) => w.split(/['’]/));
  let best = 'unknown';
  let bestHits = 0;
  for (const [language, list] of Object.entries(STOPWORDS)) {
    const set = new Set(list);
    const hits = tokens.filter((t) => set.has(t)).length;
    if (hits > bestHits) {
      best = language;
      bestHits = hits;
    }
  }
  return bestHits >= 2 || (bestHits === 1 && tokens.length <= 4) ? best : 'unknown';
}

/** The common words of every listed language, left out of "the words it matched". */
export const COMMON_WORDS = new Set(Object.values(STOPWORDS).flat());
