// The reports of `skillbench improve`, rendered from the results file alone (figures recomputed from the decisions
// and the split by src/improve/figures.ts): the trajectory (train and test accuracy with 95% Wilson intervals per
// candidate, iteration by iteration), the description kept with its paired comparison against the original (and
// whether the gain is within noise), then each candidate: its text, what changed from the one it was rewritten
// from, and the confusion it caused (requests it lost to another skill or took from one). Terminal and Markdown
// here; HTML in improve-html.ts; CSV rows per candidate.
import { formatP } from '../gate.js';
import { incompleteText } from '../completeness.js';
import { candidateFigures, confusionText, flips, pairedComparison, type CandidateFigures, type PartScore } from '../improve/figures.js';
import { wordDiff } from './worddiff.js';
import type { Rate, ResultsFile } from '../types.js';
import { terminalTable } from './table.js';
import { rateCell } from './terminal.js';
import { truncate, wrap as wrapText } from '../text-width.js';
import { intervalText, rateText } from './format.js';
import { csvField, text as csvText } from './csv.js';

/** `-"words removed" +"words added"` (the shared word diff), each run quoted, cut at `max` characters. */
export function changeText(before: string, after: string, max = 160): string {
  const parts = wordDiff(before, after)
    .filter((c) => c.op !== 'same' && c.text.trim())
    .map((c) => `${c.op === 'ins' ? '+' : '-'}"${c.text.trim()}"`);
  if (!parts.length) return before === after ? '(no change)' : '(whitespace only)';
  const text = parts.join(' ');
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

export function isImprove(results: ResultsFile): boolean {
  return results.command === 'improve' && results.improve !== undefined;
}

/** The line that heads every format: the skill, the catalogue, the split, the models. */
export function improveHeadline(results: ResultsFile): string {
  const s = results.improve!;
  const set = results.settings;
  const rewriter = set.rewriterModel && set.rewriterModel !== set.model ? `, rewriter ${String(set.provider)}/${String(set.rewriterModel)}` : '';
  return (
    `improve ${s.skill}: ${results.catalogue.skills.length} skills (${results.catalogue.source}), ${results.requests.length} requests: ` +
    `${s.split.train.length} train, ${s.split.test.length} test (stratified, seed ${s.split.seed}, holdout ${s.split.holdout}); ` +
    `model ${String(set.provider)}/${String(set.model)}${rewriter}${results.host && results.host.name !== 'generic' ? `, host ${results.host.name}` : ''}${results.catalogue.format ? `, catalogue format ${results.catalogue.format}` : ''}`
  );
}

/** What was kept and how sure that is, in one or two sentences (every format prints these). */
export function keptText(results: ResultsFile, figures = candidateFigures(results)): string[] {
  const s = results.improve!;
  const original = figures.find((f) => f.candidate.id === 'original');
  const chosen = figures.find((f) => f.candidate.id === s.chosen);
  const scored = figures.filter((f) => f.candidate.status === 'scored' && f.test).length;
  if (!original?.test) return ['The original description could not be scored on every request: nothing was compared.'];
  if (!chosen || chosen === original) {
    return [`No candidate beat the original on test (${rate(original.test.accuracy)}, ${scored - 1} candidate${scored === 2 ? '' : 's'} scored): the description stays as it is.`];
  }
  // Recomputed from the decisions, like every figure of a report (the stored comparison is for other readers).
  const c = { ...pairedComparison(chosen.run!, original.run!, new Map(results.requests.map((r) => [r.id, r])), s.split.test), alpha: s.comparison.alpha };
  const verdict = c.pValue >= c.alpha
    ? `within noise (exact McNemar p = ${formatP(c.pValue)} >= ${c.alpha})`
    : `beyond noise (exact McNemar p = ${formatP(c.pValue)} < ${c.alpha})`;
  return [
    `Kept: ${chosen.candidate.id} (iteration ${chosen.candidate.iteration}): test ${rate(chosen.test!.accuracy)} against the original's ${rate(original.test.accuracy)}; ` +
      `${c.better} test request${c.better === 1 ? '' : 's'} better, ${c.worse} worse: the gain is ${verdict}.`,
    `It was chosen on these test requests among ${scored} scored descriptions, so its test figure is optimistic by that choice; rerun with another --seed to check it.`,
  ];
}

function rate(r: Rate): string {
  return `${rateText(r)} ${intervalText(r)}`.trim();
}

/** The rows of the trajectory: every candidate, scored or not, in the order proposed. */
function statusText(f: CandidateFigures, chosen: string): string {
  const c = f.candidate;
  if (c.id === chosen) return 'kept';
  if (c.status === 'scored') return f.train && f.test && (f.train.errors || f.test.errors) ? `${f.train.errors + f.test.errors} errors` : '';
  if (c.status === 'duplicate') return `same as ${c.duplicateOf}`;
  return `${c.status}: ${c.reason ?? ''}`.trim();
}

function chars(text: string): number {
  return [...text].length;
}

function hitsText(p: PartScore | undefined): string {
  return p ? `${p.hits.k}/${p.hits.n} hits, ${p.falseLoads.k} false` : '';
}

export interface ImproveTerminalOptions {
  color?: boolean;
  /** Terminal columns to fit (default 120). */
  width?: number;
}

export function renderImproveTerminal(results: ResultsFile, opts: ImproveTerminalOptions = {}): string {
  const s = results.improve!;
  const figures = candidateFigures(results);
  const width = opts.width ?? 120;
  const para = (text: string) => wrapText(text, width).join('\n');
  const out = [para(improveHeadline(results))];
  const incomplete = incompleteText(results.completeness);
  if (incomplete) out.push(para(incomplete));
  out.push(para(`Trajectory: accuracy of the whole catalogue on each part [95% CI] k/n; test hits, false: ${s.skill}'s own test requests that loaded it (k/n), and the other test requests that loaded it`));
  const head = ['iter', 'candidate', 'from', 'chars', 'train accuracy', 'test accuracy', 'test hits, false', 'note'];
  // Narrow terminals drop the parent and the length first, then the skill's own column; the rates wrap their interval.
  const t = terminalTable(head, {
    color: opts.color,
    width,
    align: ['right', 'left', 'left', 'right', 'left', 'left', 'left', 'left'],
    fit: ['fixed', 'fixed', 'truncate', 'fixed', 'wrap', 'wrap', 'wrap', 'wrap'],
    drop: [2, 3, 6],
  });
  for (const f of figures) {
    const c = f.candidate;
    t.push([
      String(c.iteration),
      c.id,
      c.parent ?? '',
      chars(c.description).toLocaleString('en-US'),
      f.train ? rateCell(f.train.accuracy) : '-',
      f.test ? rateCell(f.test.accuracy) : '-',
      f.test ? `${f.test.hits.k}/${f.test.hits.n}, ${f.test.falseLoads.k}` : '',
      truncate(statusText(f, s.chosen), 48),
    ]);
  }
  out.push(t.toString());
  out.push(...keptText(results, figures).map(para));
  if (s.stopped) out.push(para(`Stopped early: ${s.stopped}.`));
  if (s.listingCut) out.push(para(`The ${listingName(results)} listing shows only the first ${s.listingCut} characters of a description: the figures above are measured on what it shows.`));
  out.push('', 'Candidates (the full text of each in -o report.md or report.html)');
  for (const f of figures) out.push(...candidateLines(f, figures, results, width));
  return out.join('\n') + '\n';
}

/** A candidate's heading, reason, change, pre-screen and per-part figures with the confusion it caused. */
interface CandidateText {
  head: string;
  notes: string[];
  description: string;
}

function candidateText(f: CandidateFigures, all: CandidateFigures[], results: ResultsFile): CandidateText {
  const c = f.candidate;
  const s = results.improve!;
  const parent = all.find((x) => x.candidate.id === c.parent);
  const head = `${c.id}${c.parent ? ` (iteration ${c.iteration}, from ${c.parent})` : ''}, ${chars(c.description).toLocaleString('en-US')} chars${c.id === s.chosen ? ', kept' : ''}${c.status !== 'scored' ? `: ${statusText(f, s.chosen)}` : ''}`;
  const notes: string[] = [];
  if (c.rationale) notes.push(`why: ${c.rationale}`);
  if (parent) notes.push(`changed: ${changeText(parent.candidate.description, c.description)}`);
  if (c.prescreen) notes.push(`offline pre-screen (${String(results.settings.prescreen)}): ${c.prescreen.k}/${c.prescreen.n} train requests ranked right`);
  for (const part of ['train', 'test'] as const) {
    const score = f[part];
    if (!score) continue;
    const confusion = confusionText(score);
    notes.push(`${part}: ${rateText(score.accuracy)}${vsOriginal(f, all, results, part)}${confusion ? `; ${confusion}` : ''}${score.errors ? `; ${score.errors} errors` : ''}`);
  }
  return { head, notes, description: c.description };
}

/** On the terminal a repeat is one line, and only the original's and the kept description's text are printed in
 * full (the Markdown and HTML reports print every one). */
function candidateLines(f: CandidateFigures, all: CandidateFigures[], results: ResultsFile, width: number): string[] {
  const t = candidateText(f, all, results);
  const fit = (text: string, indent: string) => wrapText(text, Math.max(20, width - indent.length)).map((l, i) => (i ? `${indent}  ${l}` : `${indent}${l}`));
  if (f.candidate.status === 'duplicate') return fit(t.head, '  ');
  const full = f.candidate.id === 'original' || f.candidate.id === results.improve!.chosen;
  const text = full ? wrap(t.description, Math.min(100, width - 6)).map((l) => `    | ${l}`) : [];
  return [...fit(t.head, '  '), ...t.notes.flatMap((n) => fit(n, '    ')), ...text];
}

/** `, 2 fixed and 1 broken against the original (broken: exp-2 expense-report-checker -> csv-data-profiler)`. */
function vsOriginal(f: CandidateFigures, all: CandidateFigures[], results: ResultsFile, part: 'train' | 'test'): string {
  const original = all.find((x) => x.candidate.id === 'original');
  if (!original?.run || !f.run || f.candidate.id === 'original' || f.run === original.run) return '';
  const changed = flips(f.run, original.run, new Map(results.requests.map((r) => [r.id, r])), results.improve!.split[part]);
  const fixed = changed.filter((x) => x.change === 'fixed').length;
  const broken = changed.filter((x) => x.change === 'broken');
  const shown = broken.slice(0, 3).map((b) => `${b.requestId} ${b.gold ?? '(none)'} -> ${b.after ?? '(none)'}`).join(', ');
  return `, ${fixed} fixed and ${broken.length} broken against the original${shown ? ` (broken: ${shown}${broken.length > 3 ? ', ...' : ''})` : ''}`;
}

/** Words wrapped at `width` characters. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines;
}

// ---------------------------------------------------------------- Markdown

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

function mdRate(r: Rate | undefined): string {
  return r ? cell(rate(r)) : '–';
}

export function renderImproveMarkdown(results: ResultsFile): string {
  const s = results.improve!;
  const figures = candidateFigures(results);
  const incomplete = incompleteText(results.completeness);
  const out = [`### skillbench improve \`${s.skill}\`${incomplete ? ' — incomplete ⚠️' : ''}`, '', cell(improveHeadline(results)), ''];
  if (incomplete) out.push(`**${cell(incomplete)}**`, '');
  const [kept, caveat] = keptText(results, figures);
  out.push(`**${cell(kept!)}**`, '');
  if (caveat) out.push(`<sub>${cell(caveat)}</sub>`, '');
  if (s.stopped) out.push(`Stopped early: ${cell(s.stopped)}.`, '');
  out.push(`| iteration | candidate | from | chars | train accuracy | test accuracy | test: ${cell(s.skill)} | note |`, '|---:|---|---|---:|---:|---:|---|---|');
  for (const f of figures) {
    const c = f.candidate;
    out.push(`| ${c.iteration} | ${cell(c.id)} | ${cell(c.parent ?? '')} | ${chars(c.description)} | ${mdRate(f.train?.accuracy)} | ${mdRate(f.test?.accuracy)} | ${hitsText(f.test)} | ${cell(statusText(f, s.chosen))} |`);
  }
  out.push('', '<sub>Accuracy of the whole catalogue on each part (95% Wilson intervals); hits: the skill\'s own test requests that loaded it; false: other test requests that loaded it.</sub>', '');
  out.push('<details><summary>Candidates: descriptions, changes and confusion</summary>', '');
  for (const f of figures) {
    const t = candidateText(f, figures, results);
    out.push(`- **${cell(t.head)}**`, ...t.notes.map((n) => `  - ${cell(n)}`), '', `  > ${cell(t.description)}`, '');
  }
  out.push('</details>');
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

// ---------------------------------------------------------------- CSV

export const IMPROVE_CSV_COLUMNS = [
  'iteration', 'candidate', 'parent', 'status', 'reason', 'kept', 'chars',
  'train_k', 'train_n', 'train_accuracy', 'train_low', 'train_high',
  'test_k', 'test_n', 'test_accuracy', 'test_low', 'test_high',
  'test_hits', 'test_positives', 'test_false_loads', 'lost_to', 'took_from', 'changed', 'description', 'rationale',
] as const;

/** One row per candidate: its figures on both parts, its confusion and its text (RFC 4180, formulas defused). */
export function renderImproveCsv(results: ResultsFile): string {
  const s = results.improve!;
  const lines = [IMPROVE_CSV_COLUMNS.join(',')];
  const figures = candidateFigures(results);
  for (const f of figures) {
    const c = f.candidate;
    const parent = figures.find((x) => x.candidate.id === c.parent);
    const counts = (list: { skill: string | null; count: number }[] | undefined) => (list ?? []).map((x) => `${x.skill ?? '(none)'}:${x.count}`).join(' ');
    const row: Record<(typeof IMPROVE_CSV_COLUMNS)[number], unknown> = {
      iteration: c.iteration,
      candidate: csvText(c.id),
      parent: csvText(c.parent ?? ''),
      status: c.status,
      reason: csvText(c.reason ?? ''),
      kept: c.id === s.chosen ? 'true' : 'false',
      chars: chars(c.description),
      train_k: f.train?.accuracy.k ?? '', train_n: f.train?.accuracy.n ?? '', train_accuracy: f.train?.accuracy.rate ?? '', train_low: f.train?.accuracy.low ?? '', train_high: f.train?.accuracy.high ?? '',
      test_k: f.test?.accuracy.k ?? '', test_n: f.test?.accuracy.n ?? '', test_accuracy: f.test?.accuracy.rate ?? '', test_low: f.test?.accuracy.low ?? '', test_high: f.test?.accuracy.high ?? '',
      test_hits: f.test?.hits.k ?? '', test_positives: f.test?.hits.n ?? '', test_false_loads: f.test?.falseLoads.k ?? '',
      lost_to: csvText(counts(f.test?.lostTo)),
      took_from: csvText(counts(f.test?.tookFrom)),
      changed: csvText(parent ? changeText(parent.candidate.description, c.description, 10_000) : ''),
      description: csvText(c.description),
      rationale: csvText(c.rationale ?? ''),
    };
    lines.push(IMPROVE_CSV_COLUMNS.map((k) => csvField(row[k])).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

/** Whose listing cut the descriptions: the host's name, or the generic host's preset. */
export function listingName(results: ResultsFile): string {
  return results.host && results.host.name !== 'generic' ? results.host.name : String(results.catalogue.format ?? 'generic');
}
