// Text measured the way a terminal shows it: string-width columns per grapheme (a CJK character or an emoji takes two
// columns, a combining accent none), so that truncation and wrapping fit the width a terminal reports. Plain text in,
// plain text out: colours are applied after the layout.
import stringWidth from 'string-width';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Columns a (single-line) text takes on a terminal. */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** Widest line of a text that may hold line breaks. */
export function blockWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map(displayWidth));
}

/** One line of at most `width` columns: whitespace collapsed, an ellipsis where it was cut. */
export function truncate(text: string, width: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  if (displayWidth(one) <= width) return one;
  if (width <= 0) return '';
  return cutTo(one, width - 1) + '…';
}

/** The longest prefix of `text` (whole graphemes) that fits in `width` columns. */
function cutTo(text: string, width: number): string {
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = displayWidth(segment);
    if (used + w > width) break;
    out += segment;
    used += w;
  }
  return out;
}

/**
 * Lines of at most `width` columns. Breaks at spaces; a word too long for a line breaks after a hyphen, slash or
 * underscore (skill names: `leave-balance-` / `calculator`), else between graphemes. Line breaks in the text are kept.
 */
export function wrap(text: string, width: number): string[] {
  const w = Math.max(1, width);
  return text.split('\n').flatMap((paragraph) => wrapLine(paragraph, w));
}

function wrapLine(text: string, width: number): string[] {
  // Regular spaces and tabs only: a no-break space (U+00A0) keeps its two words on one line.
  const words = text.split(/[ \t]+/).filter(Boolean);
  if (!words.length) return [''];
  const lines: string[] = [];
  let line = '';
  const push = (piece: string, glue: string) => {
    if (!line) line = piece;
    else if (displayWidth(line + glue + piece) <= width) line += glue + piece;
    else {
      lines.push(line);
      line = piece;
    }
  };
  for (const word of words) {
    if (displayWidth(word) <= width) {
      push(word, ' ');
      continue;
    }
    // A long word: its pieces go on as they fit, the first one after a space.
    breakWord(word, width).forEach((piece, i) => push(piece, i === 0 ? ' ' : ''));
  }
  if (line) lines.push(line);
  return lines;
}

/** Pieces of at most `width` columns: split after - / _ where possible, else hard. */
function breakWord(word: string, width: number): string[] {
  const parts = word.split(/(?<=[-/_])/);
  const pieces: string[] = [];
  for (let part of parts) {
    while (displayWidth(part) > width) {
      const head = cutTo(part, width);
      pieces.push(head);
      part = part.slice(head.length);
    }
    if (part) pieces.push(part);
  }
  return pieces;
}

/** Pads (or cuts) a single-line text to exactly `width` columns. */
export function padTo(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const cut = displayWidth(text) > width ? truncate(text, width) : text;
  const pad = ' '.repeat(Math.max(0, width - displayWidth(cut)));
  return align === 'left' ? cut + pad : pad + cut;
}
