// The one order every list of a catalogue is sorted in: plain code units, so prompts are byte-identical everywhere.
import type { Skill } from '../types.js';

/** Plain code-unit order: the same on every machine and locale (byte-identical prompts depend on it). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortByName(skills: Skill[]): Skill[] {
  return [...skills].sort((a, b) => compareStrings(a.name, b.name));
}
