// Colours for the terminal, through picocolors, decided once per stream. The conventions are Node's own: FORCE_COLOR
// set to 1, 2, 3, true or '' forces colour (and wins over NO_COLOR), any other FORCE_COLOR value turns it off;
// otherwise a non-empty NO_COLOR turns it off; otherwise colour only on a terminal whose TERM is not `dumb`.
// Colour never carries meaning alone: every coloured mark also says what it is in words or a glyph.
import pc from 'picocolors';
import { wrap } from './text-width.js';

export type Colors = ReturnType<typeof pc.createColors>;

const FORCING = ['1', '2', '3', 'true', ''];

/** Whether output to `stream` is coloured, by FORCE_COLOR, NO_COLOR, whether it is a terminal, and TERM. */
export function colorEnabled(stream: { isTTY?: boolean } | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return FORCING.includes(force.toLowerCase());
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return Boolean(stream?.isTTY) && env.TERM !== 'dumb';
}

/** Colour functions that colour when `enabled`, and return the text unchanged otherwise. */
export function colors(enabled: boolean): Colors {
  return pc.createColors(enabled);
}

/** The colours for a stream (see colorEnabled). */
export function colorsFor(stream: { isTTY?: boolean } | undefined, env: NodeJS.ProcessEnv = process.env): Colors {
  return colors(colorEnabled(stream, env));
}

/** Columns of a terminal stream, else $COLUMNS, else `fallback` (a pipe or a CI log has no width of its own). */
export function columnsOf(stream: { isTTY?: boolean; columns?: number } | undefined, env: NodeJS.ProcessEnv = process.env, fallback = 120): number {
  if (stream?.isTTY && stream.columns && stream.columns > 0) return stream.columns;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : fallback;
}

/** How to print on a stream: coloured or not, and the columns to fit. */
export function layoutFor(stream: { isTTY?: boolean; columns?: number } = process.stdout, env: NodeJS.ProcessEnv = process.env): { color: boolean; width: number } {
  return { color: colorEnabled(stream, env), width: columnsOf(stream, env) };
}

/** A notice for a terminal: wrapped at word boundaries to its width, continuation lines indented; as it is elsewhere. */
export function wrapNotice(text: string, stream: { isTTY?: boolean; columns?: number } = process.stderr): string {
  if (!stream.isTTY || !stream.columns) return text;
  return wrap(text, Math.max(20, stream.columns - 3)).map((l, i) => (i ? `  ${l}` : l)).join('\n');
}
