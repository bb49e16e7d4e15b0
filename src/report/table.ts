// The look of a terminal table, shared by the terminal outputs: no rules between rows, so that a CI log stays short.
import Table from 'cli-table3';

export interface TerminalTableOptions {
  /** Cyan headers (a TTY). Default false. */
  color?: boolean;
  /** One per column; default left. */
  align?: ('left' | 'right')[];
}

export function terminalTable(head: string[], opts: TerminalTableOptions = {}): Table.Table {
  return new Table({
    // Colour is applied here, not through cli-table3's styles: those are silently dropped when the colour library
    // guesses that stdout is not a terminal, and the caller (who knows) has already decided.
    head: opts.color ? head.map((h) => `\x1b[36m${h}\x1b[39m`) : head,
    colAligns: opts.align ?? head.map(() => 'left'),
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
}
