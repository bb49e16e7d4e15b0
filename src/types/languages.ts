// Script and language of the requests and descriptions, and what the offline models cannot read.

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
