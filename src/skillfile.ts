// Editing a SKILL.md in place: replace the `description` of its frontmatter and keep every other byte of the file
// (other fields, comments, key order, line endings, the body). The new value is written as a YAML scalar chosen by
// the YAML emitter gray-matter ships (js-yaml: plain, quoted, folded or literal as the text needs), wrapped at the
// width the old description used, and the edit is checked by parsing the new file with the same parser the
// catalogue uses: the description must read back exactly and every other field must be unchanged, else nothing is
// written. A unified diff of the edit is what `improve` prints without --write.
import matter from 'gray-matter';
import { parseFrontmatter } from './catalogue.js';
import { isDeepStrictEqual } from 'node:util';

/** Why a description cannot be replaced safely (the caller names the file and says what to do). */
export class DescriptionEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DescriptionEditError';
  }
}

export interface DescriptionEdit {
  /** The whole new file text. */
  text: string;
  /** 0-based index of the first replaced line, and of the line after the last one, in the old text. */
  start: number;
  end: number;
  /** The replaced lines and their replacement (with their line endings). */
  oldLines: string[];
  newLines: string[];
}

type YamlEngine = { stringify: (value: object, opts?: Record<string, unknown>) => string };
const yaml = (matter as unknown as { engines: { yaml: YamlEngine } }).engines.yaml; // js-yaml safeDump

/** Plain scalars that a YAML 1.1 reader (PyYAML: the skills-ref validator) would read as a boolean or null. */
const YAML11_SPECIAL = /^(y|yes|n|no|true|false|on|off|null|~)$/i;

/** Replaces the frontmatter description of a SKILL.md text; throws DescriptionEditError when it cannot be done safely. */
export function replaceDescription(file: string, description: string): DescriptionEdit {
  // A byte-order mark stays where it is; the parser reads the text after it.
  const bom = file.startsWith('\uFEFF') ? '\uFEFF' : '';
  const text = file.slice(bom.length);
  const lines = text.split(/(?<=\n)/);
  const span = descriptionSpan(lines);
  const eol = /\r\n$/.test(lines[span.start]!) ? '\r\n' : '\n';
  const before = parseFrontmatter(text);
  if ('error' in before) throw new DescriptionEditError(`the frontmatter cannot be read: ${before.error}`);
  for (const candidate of scalarCandidates(description, lines.slice(span.start, span.end))) {
    const newLines = candidate.map((l) => l + eol);
    const next = [...lines.slice(0, span.start), ...newLines, ...lines.slice(span.end)].join('');
    if (readsBack(next, before, description)) {
      return { text: bom + next, start: span.start, end: span.end, oldLines: lines.slice(span.start, span.end), newLines };
    }
  }
  throw new DescriptionEditError('no way of writing the new description was read back unchanged by the YAML parser');
}

/** The lines of the top-level `description:` entry: from its key to the last non-blank line before the next
 * top-level line (a key, a comment) or the end of the frontmatter. */
function descriptionSpan(lines: string[]): { start: number; end: number } {
  if (!/^---[ \t]*\r?\n$/.test(lines[0] ?? '')) throw new DescriptionEditError('the file does not start with a `---` frontmatter line');
  const close = lines.findIndex((l, i) => i > 0 && /^---[ \t]*(\r?\n)?$/.test(l));
  if (close < 0) throw new DescriptionEditError('the frontmatter is not closed by a `---` line');
  const keys = lines.slice(1, close).flatMap((l, i) => (/^description[ \t]*:/.test(l) ? [i + 1] : []));
  if (keys.length !== 1) {
    throw new DescriptionEditError(keys.length ? 'the frontmatter has more than one `description:` line' : 'no `description:` line at the start of a frontmatter line (a flow mapping or a quoted key is not edited)');
  }
  const start = keys[0]!;
  let end = start + 1;
  while (end < close && !/^\S/.test(lines[end]!)) end++;
  while (end > start + 1 && lines[end - 1]!.trim() === '') end--; // blank lines after the value stay where they are
  return { start, end };
}

/** Ways to write `description: <value>` as lines (without line endings), best first: the emitter's choice at the
 * old width (then its indentation), the emitter's choice on one line, and a double-quoted JSON string. */
function scalarCandidates(description: string, old: string[]): string[][] {
  const width = Math.min(120, Math.max(80, ...old.map((l) => l.replace(/\r?\n$/, '').length)));
  const indent = old.slice(1).map((l) => /^( +)\S/.exec(l)?.[1]?.length).find((n) => n !== undefined);
  const emitted = (lineWidth: number) => yaml.stringify({ description }, { lineWidth }).replace(/\n$/, '').split('\n');
  const out: string[][] = [];
  const refolded = refold(old, description, width, indent ?? 2);
  if (refolded) out.push(refolded);
  for (const lines of [emitted(width), emitted(-1)]) {
    const safe = guardPlain(lines, description);
    if (indent && indent !== 2 && safe.length > 1 && /^description: [|>][+-]?$/.test(safe[0]!)) {
      out.push([safe[0]!, ...safe.slice(1).map((l) => (l.startsWith('  ') ? ' '.repeat(indent) + l.slice(2) : l))]);
    }
    out.push(safe);
  }
  out.push([`description: ${JSON.stringify(description).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')}`]);
  return out;
}

/**
 * A folded block (`>-`) that keeps the old lines where the text kept their words (at the start and at the end), and
 * wraps only what changed at the old width: the diff a reviewer reads is the change, not a re-flowed paragraph.
 * Only for an old folded block and a new one-line text that folding cannot alter (no tab, no double space, no space
 * at either end); null otherwise.
 */
function refold(old: string[], description: string, width: number, indent: number): string[] | null {
  if (!/^description:[ \t]*>[+-]?[ \t]*\r?\n$/.test(old[0] ?? '') || old.length < 2) return null;
  if (/[\t\n\r]| {2}|^ | $/.test(description) || description === '') return null;
  const oldLines = old.slice(1).map((l) => l.trim()).filter(Boolean);
  const words = description.split(' ');
  const lineWords = oldLines.map((l) => l.split(/ +/));
  const matches = (line: string[], at: number) => line.every((w, k) => words[at + k] === w);
  // Old lines kept from the start, then from the end (never overlapping).
  let start = 0;
  let used = 0;
  while (start < lineWords.length && matches(lineWords[start]!, used)) used += lineWords[start++]!.length;
  let end = lineWords.length;
  let tail = words.length;
  while (end > start && tail - lineWords[end - 1]!.length >= used && matches(lineWords[end - 1]!, tail - lineWords[end - 1]!.length)) tail -= lineWords[--end]!.length;
  const middle: string[] = [];
  let line = '';
  for (const w of words.slice(used, tail)) {
    if (line && indent + line.length + 1 + w.length > width) {
      middle.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) middle.push(line);
  const pad = ' '.repeat(indent);
  return ['description: >-', ...[...oldLines.slice(0, start), ...middle, ...oldLines.slice(end)].map((l) => pad + l)];
}

/** A one-line plain scalar that a YAML 1.1 reader would take for a boolean or null is single-quoted instead. */
function guardPlain(lines: string[], description: string): string[] {
  if (lines.length === 1 && lines[0] === `description: ${description}` && YAML11_SPECIAL.test(description.trim())) {
    return [`description: '${description.replace(/'/g, "''")}'`];
  }
  return lines;
}

/** True when the new text parses to the old frontmatter with only the description changed, and the same body. */
function readsBack(next: string, before: { data: Record<string, unknown>; body: string }, description: string): boolean {
  const after = parseFrontmatter(next);
  if ('error' in after) return false;
  if (after.data.description !== description || after.body !== before.body) return false;
  const rest = (data: Record<string, unknown>) => Object.entries(data).filter(([k]) => k !== 'description');
  return isDeepStrictEqual(rest(after.data), rest(before.data));
}

/** A unified diff of one edit, with `context` unchanged lines around what changed (line endings not shown). Lines
 * the edit kept (the start and end of a re-folded block) are context, not changes. */
export function editDiff(edit: DescriptionEdit, oldFile: string, labels: { from: string; to: string }, context = 3, color = false): string {
  const lines = oldFile.replace(/^\uFEFF/, '').split(/(?<=\n)/).map(strip);
  let same = 0;
  while (same < edit.oldLines.length && same < edit.newLines.length && edit.oldLines[same] === edit.newLines[same]) same++;
  let tail = 0;
  while (
    tail < edit.oldLines.length - same && tail < edit.newLines.length - same &&
    edit.oldLines[edit.oldLines.length - 1 - tail] === edit.newLines[edit.newLines.length - 1 - tail]
  ) tail++;
  const start = edit.start + same;
  const end = edit.end - tail;
  const removed = edit.oldLines.slice(same, edit.oldLines.length - tail);
  const added = edit.newLines.slice(same, edit.newLines.length - tail);
  const from = Math.max(0, start - context);
  const to = Math.min(lines.length, end + context);
  const oldCount = to - from;
  const newCount = oldCount - removed.length + added.length;
  const paint = (code: string, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`, paint('36', `@@ -${from + 1},${oldCount} +${from + 1},${newCount} @@`)];
  for (let i = from; i < start; i++) out.push(` ${lines[i]}`);
  for (const l of removed) out.push(paint('31', `-${strip(l)}`));
  for (const l of added) out.push(paint('32', `+${strip(l)}`));
  for (let i = end; i < to; i++) out.push(` ${lines[i]}`);
  return out.join('\n') + '\n';
}

function strip(line: string): string {
  return line.replace(/\r?\n$/, '');
}
