// The level-1 listing as a host renders it: its entry template, grouping, escaping, per-description cut, and its
// listing budget with the overflow steps (shorten every description, then names only, then drop skills, in the order
// the profile gives). The result says what became of every skill, so every command can name the skills the model
// could not see in full.
import { compareStrings } from '../catalogue.js';
import type { Skill } from '../types.js';
import type { Escape, ListingSpec, OverflowStep, OverflowStepName } from './profile.js';

/**
 * What the listing shows of a skill: all of its description, the host's per-description cut of it, a description
 * shortened to fit the budget, its name only, or nothing (dropped: the model cannot see it).
 */
export type EntryStatus = 'full' | 'cut' | 'shortened' | 'name-only' | 'dropped';

export interface ListingEntry {
  name: string;
  status: EntryStatus;
  /** Characters of the description as listed (0 for name-only and dropped). */
  shownChars: number;
  /** Characters of the description as the host would show it without a budget (after its per-description cut). */
  fullChars: number;
}

export interface Listing {
  text: string;
  /** Every visible skill, in listing order (dropped ones included). */
  entries: ListingEntry[];
  /** Characters (Unicode code points) of `text`. */
  chars: number;
  /** Characters of the listing with no budget applied. */
  fullChars: number;
  /** The budget, which overflow step made the listing fit (`fits`: none was needed), and whether it is still over. */
  budget: { chars: number; step: 'fits' | OverflowStepName; over: boolean; shortenedTo?: number } | null;
}

/** Skills a model may see: every state but `never`, sorted by name. */
export function visible(skills: Skill[]): Skill[] {
  return skills.filter((s) => s.state !== 'never').sort((a, b) => compareStrings(a.name, b.name));
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Characters as skillbench counts them for budgets and cuts: Unicode code points. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The first `chars` code points of a description ending in `marker`, when it is longer than `chars`. */
export function cutText(text: string, chars: number, marker: string): string {
  const points = [...text];
  if (points.length <= chars) return text;
  return points.slice(0, Math.max(0, chars - charCount(marker))).join('') + marker;
}

type Mode = { kind: 'full' } | { kind: 'shortened'; to: number; marker: string } | { kind: 'name-only' } | { kind: 'dropped' };

interface Item {
  skill: Skill;
  /** The description after the host's fields, flattening and per-description cut. */
  description: string;
  cut: boolean;
}

/** Renders the listing of `skills` (never-state ones left out) under `spec`, applying its budget. */
export function renderListing(skills: Skill[], spec: ListingSpec): Listing {
  const items = ordered(visible(skills), spec).map((skill) => describe(skill, spec));
  const full: Mode[] = items.map(() => ({ kind: 'full' }));
  const fullText = assemble(items, full, spec);
  const fullChars = charCount(fullText);
  if (!spec.budget || fullChars <= spec.budget.chars) {
    return result(items, full, fullText, spec.budget ? { chars: spec.budget.chars, step: 'fits', over: false } : null);
  }
  let last: { modes: Mode[]; text: string; step: OverflowStepName; to?: number } | undefined;
  for (const step of spec.budget.overflow) {
    const attempt = applyStep(step, items, spec, spec.budget.chars);
    last = { ...attempt, step: step.step };
    if (attempt.fits) break;
  }
  const chars = charCount(last!.text);
  return result(items, last!.modes, last!.text, {
    chars: spec.budget.chars,
    step: last!.step,
    over: chars > spec.budget.chars,
    ...(last!.to !== undefined ? { shortenedTo: last!.to } : {}),
  }, fullChars);
}

/** Listing order: by category (sorted) when the listing is grouped, else by name. */
function ordered(skills: Skill[], spec: ListingSpec): Skill[] {
  if (!grouped(skills, spec)) return skills;
  const cat = (s: Skill) => groupKey(s, spec);
  return [...skills].sort((a, b) => compareStrings(cat(a), cat(b)) || compareStrings(a.name, b.name));
}

/** The key a skill is grouped and ordered by: its shown category name, or its folder. */
function groupKey(s: Skill, spec: ListingSpec): string {
  return spec.group!.sort === 'folder' ? s.category : s.category || spec.group!.defaultCategory;
}

function grouped(skills: Skill[], spec: ListingSpec): boolean {
  if (!spec.group) return false;
  return spec.group.when === 'always' || skills.some((s) => s.category !== '');
}

function describe(skill: Skill, spec: ListingSpec): Item {
  const parts = spec.fields.map((f) => (f === 'description' ? skill.description : skill.frontmatter[f])).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  let text = parts.join(spec.fieldSeparator);
  if (spec.flatten) text = text.split(/\s+/).filter(Boolean).join(' ');
  if (spec.cut) {
    const cutDown = cutText(text, spec.cut.chars, spec.cut.marker);
    return { skill, description: cutDown, cut: cutDown !== text };
  }
  return { skill, description: text, cut: false };
}

function applyStep(step: OverflowStep, items: Item[], spec: ListingSpec, budget: number): { modes: Mode[]; text: string; fits: boolean; to?: number } {
  const fits = (modes: Mode[]) => {
    const text = assemble(items, modes, spec);
    return { text, ok: charCount(text) <= budget };
  };
  if (step.step === 'shorten') {
    const marker = step.marker ?? '...';
    const min = Math.max(step.minChars ?? 20, charCount(marker) + 1);
    const at = (to: number): Mode[] => items.map((it) => (charCount(it.description) > to ? { kind: 'shortened', to, marker } : { kind: 'full' }));
    const longest = Math.max(...items.map((it) => charCount(it.description)));
    const floor = fits(at(min));
    if (!floor.ok || min >= longest) return { modes: at(min), text: floor.text, fits: floor.ok, to: min };
    // The longest cut that fits: every description keeps as much as the budget allows, none more than another.
    let lo = min;
    let hi = longest;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(at(mid)).ok) lo = mid;
      else hi = mid - 1;
    }
    const modes = at(lo);
    return { modes, text: assemble(items, modes, spec), fits: true, to: lo };
  }
  // names-only and drop: from the end of the listing, one skill at a time (the host has no usage order to go by).
  const kind = step.step === 'names-only' ? 'name-only' : 'dropped';
  const modes: Mode[] = items.map(() => ({ kind: 'full' }));
  let attempt = fits(modes);
  for (let i = items.length - 1; i >= 0 && !attempt.ok; i--) {
    modes[i] = { kind };
    attempt = fits(modes);
  }
  return { modes, text: attempt.text, fits: attempt.ok };
}

function assemble(items: Item[], modes: Mode[], spec: ListingSpec): string {
  const lines: string[] = [];
  if (spec.open !== '') lines.push(spec.open);
  const shown = items.map((it, i) => ({ it, mode: modes[i]! })).filter((x) => x.mode.kind !== 'dropped');
  const isGrouped = grouped(items.map((x) => x.skill), spec);
  let current: string | undefined;
  for (const { it, mode } of shown) {
    if (isGrouped && groupKey(it.skill, spec) !== current) {
      if (current !== undefined && spec.group!.gap) lines.push('');
      const shownName = it.skill.category || spec.group!.defaultCategory;
      lines.push(spec.group!.header.replace(/\{category\}/g, escape(shownName, spec.escape)));
      current = groupKey(it.skill, spec);
    }
    lines.push(entryText(it, mode, spec));
  }
  if (isGrouped && spec.group!.gap && shown.length > 0 && spec.close !== '') lines.push('');
  if (spec.close !== '') lines.push(spec.close);
  return lines.join('\n');
}

function entryText(it: Item, mode: Mode, spec: ListingSpec): string {
  const template = mode.kind === 'name-only' ? spec.nameOnlyEntry : spec.entry;
  const description = mode.kind === 'shortened' ? cutText(it.description, mode.to, mode.marker) : it.description;
  const values: Record<string, string> = {
    name: it.skill.name,
    description,
    path: spec.pathRoot + it.skill.location,
    location: it.skill.location,
    category: it.skill.category || spec.group?.defaultCategory || '',
  };
  // One pass: a description that contains "{name}" is shown as written, never substituted again.
  return template.replace(/\{(name|description|path|location|category)\}/g, (_, key: string) => escape(values[key]!, spec.escape));
}

function escape(text: string, how: Escape): string {
  switch (how) {
    case 'none':
      return text;
    case 'xml':
      return escapeXml(text);
    case 'html': // Python's html.escape(quote=True), as ADK writes its listing
      return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
    case 'angle':
      return text.replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }
}

function result(items: Item[], modes: Mode[], text: string, budget: Listing['budget'], fullChars?: number): Listing {
  const entries = items.map((it, i): ListingEntry => {
    const mode = modes[i]!;
    const fullLen = charCount(it.description);
    switch (mode.kind) {
      case 'full':
        return { name: it.skill.name, status: it.cut ? 'cut' : 'full', shownChars: fullLen, fullChars: fullLen };
      case 'shortened':
        return { name: it.skill.name, status: 'shortened', shownChars: charCount(cutText(it.description, mode.to, mode.marker)), fullChars: fullLen };
      case 'name-only':
        return { name: it.skill.name, status: 'name-only', shownChars: 0, fullChars: fullLen };
      case 'dropped':
        return { name: it.skill.name, status: 'dropped', shownChars: 0, fullChars: fullLen };
    }
  });
  const chars = charCount(text);
  return { text, entries, chars, fullChars: fullChars ?? chars, budget };
}

/** Skills whose entry has the given status, in listing order. */
export function withStatus(listing: Listing, ...status: EntryStatus[]): string[] {
  return listing.entries.filter((e) => status.includes(e.status)).map((e) => e.name);
}
