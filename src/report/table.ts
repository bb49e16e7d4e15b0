// The terminal table shared by the terminal outputs: box borders, no rules between rows (a CI log stays short), and a
// layout that fits the width it is given. Columns are measured in terminal columns (string-width); when the natural
// widths do not fit, the widest columns that may give way shrink first, down to their minimum: a `wrap` column wraps
// (at spaces, then after hyphens), a `truncate` column cuts its lines with an ellipsis, a `fixed` column (numbers)
// never shrinks. A cell may hold line breaks (e.g. a rate with its interval on a second line).
import { colors as makeColors } from '../colors.js';
import { blockWidth, displayWidth, padTo, truncate, wrap } from '../text-width.js';

export type Fit = 'fixed' | 'wrap' | 'truncate';

export interface TerminalTableOptions {
  /** Coloured (cyan) headers. Default false. */
  color?: boolean;
  /** One per column; default left. */
  align?: ('left' | 'right')[];
  /** Total width available, borders included (default: unlimited). */
  width?: number;
  /** How each column gives way when the table is too wide (default `wrap`). */
  fit?: Fit[];
  /** Narrowest width of each column (content columns, padding excluded); default min(natural, 8 or 10). */
  min?: (number | undefined)[];
  /** How much room each column keeps as the table shrinks (default 1): a column of weight 2 stays twice as wide. */
  weight?: number[];
  /** Columns (indices) that may be left out, in that order, when the table cannot fit even at its narrowest. */
  drop?: number[];
}

export interface TerminalTable {
  push(...rows: unknown[][]): void;
  toString(): string;
  /** Number of body rows pushed. */
  readonly length: number;
}

export function terminalTable(head: string[], opts: TerminalTableOptions = {}): TerminalTable {
  const rows: string[][] = [];
  return {
    push(...more) {
      for (const row of more) rows.push(head.map((_, i) => (row[i] === undefined || row[i] === null ? '' : String(row[i]))));
    },
    toString: () => renderTable(head, rows, opts),
    get length() {
      return rows.length;
    },
  };
}

/** Content widths of each column so that the table fits `width` (borders and one space of padding each side included). */
export function columnWidths(head: string[], rows: string[][], opts: TerminalTableOptions = {}): number[] {
  const natural = head.map((h, i) => Math.max(blockWidth(h), ...rows.map((r) => blockWidth(r[i] ?? ''))));
  if (opts.width === undefined) return natural;
  const fit = head.map((_, i) => opts.fit?.[i] ?? 'wrap');
  const min = minWidths(head, rows, opts);
  const widths = [...natural];
  const chrome = 3 * head.length + 1;
  let excess = widths.reduce((a, b) => a + b, 0) + chrome - opts.width;
  // First the headers wider than their column's content wrap (down to their longest word), then the columns shrink.
  const content = head.map((h, i) => (fit[i] === 'fixed' ? natural[i]! : Math.max(...rows.map((r) => blockWidth(r[i] ?? '')), ...h.split(/[ \t]+/).map(displayWidth))));
  excess = shrink(widths, content.map((c, i) => Math.max(c, min[i]!)), excess, opts.weight);
  shrink(widths, min, excess, opts.weight);
  return widths;
}

/** The narrowest each column gets: fixed columns their content, others their minimum but never below a header word. */
function minWidths(head: string[], rows: string[][], opts: TerminalTableOptions): number[] {
  return head.map((h, i) => {
    const natural = Math.max(blockWidth(h), ...rows.map((r) => blockWidth(r[i] ?? '')));
    const fit = opts.fit?.[i] ?? 'wrap';
    if (fit === 'fixed') return natural;
    const word = Math.max(...h.split(/[ \t]+/).map(displayWidth));
    return Math.max(word, Math.min(natural, opts.min?.[i] ?? (fit === 'truncate' ? 10 : 8)));
  });
}

/** The columns kept: those in `drop` go, in that order, while the table cannot fit `width` even at its narrowest. */
function keptColumns(head: string[], rows: string[][], opts: TerminalTableOptions): number[] {
  let keep = head.map((_, i) => i);
  if (opts.width === undefined) return keep;
  const pick = <T>(xs: T[] | undefined, ks: number[]) => (xs ? ks.map((k) => xs[k]!) : undefined);
  for (const column of opts.drop ?? []) {
    const sub = { ...opts, fit: pick(opts.fit, keep), min: pick(opts.min, keep), weight: pick(opts.weight, keep) };
    const narrowest = minWidths(keep.map((k) => head[k]!), rows.map((r) => keep.map((k) => r[k]!)), sub).reduce((a, b) => a + b, 0) + 3 * keep.length + 1;
    if (narrowest <= opts.width) break;
    keep = keep.filter((k) => k !== column);
  }
  return keep;
}

/** Takes `excess` columns off `widths`, the widest (for its weight) first, none below `floor`; returns what is left. */
function shrink(widths: number[], floor: number[], excess: number, weight?: number[]): number {
  const share = (i: number) => widths[i]! / (weight?.[i] ?? 1);
  while (excess > 0) {
    let pick = -1;
    for (let i = 0; i < widths.length; i++) if (widths[i]! > floor[i]! && (pick < 0 || share(i) > share(pick))) pick = i;
    if (pick < 0) break; // every column at its floor: the table is as narrow as it gets
    widths[pick]!--;
    excess--;
  }
  return excess;
}

function renderTable(allHead: string[], allRows: string[][], allOpts: TerminalTableOptions): string {
  const keep = keptColumns(allHead, allRows, allOpts);
  const pick = <T>(xs: T[] | undefined) => (xs ? keep.map((k) => xs[k]!) : undefined);
  const head = keep.map((k) => allHead[k]!);
  const rows = allRows.map((r) => keep.map((k) => r[k]!));
  const opts: TerminalTableOptions = { ...allOpts, align: pick(allOpts.align), fit: pick(allOpts.fit), min: pick(allOpts.min), weight: pick(allOpts.weight) };
  const widths = columnWidths(head, rows, opts);
  const fit = head.map((_, i) => opts.fit?.[i] ?? 'wrap');
  const align = head.map((_, i) => opts.align?.[i] ?? 'left');
  const c = makeColors(Boolean(opts.color));
  const layout = (text: string, i: number): string[] => {
    const w = widths[i]!;
    if (fit[i] === 'truncate') return text.split('\n').map((l) => truncate(l, w));
    if (blockWidth(text) <= w) return text.split('\n');
    return wrap(text, w);
  };
  const line = (cells: string[], header: boolean): string[] => {
    const laid = cells.map(layout);
    const height = Math.max(1, ...laid.map((l) => l.length));
    const out: string[] = [];
    for (let k = 0; k < height; k++) {
      const parts = laid.map((l, i) => {
        const text = padTo(l[k] ?? '', widths[i]!, align[i]);
        return header ? c.cyan(text) : text;
      });
      out.push(`│ ${parts.join(' │ ')} │`);
    }
    return out;
  };
  const rule = (l: string, m: string, r: string) => l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r;
  return [rule('┌', '┬', '┐'), ...line(head, true), ...rows.flatMap((r) => line(r, false)), rule('└', '┴', '┘')].join('\n');
}
