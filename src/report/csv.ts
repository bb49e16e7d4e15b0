// CSV: one row per decision (every selector, request and run), RFC 4180: CRLF line ends, fields quoted when they
// hold a comma, a quote, CR or LF, quotes doubled; text that a spreadsheet would run as a formula is defused. `passed` is the verdict of an eval-quality case (empty otherwise).
import type { ResultsFile } from '../types.js';
import { decisionRows, loaded, outcomeOf, passedOf } from './format.js';

export const CSV_COLUMNS = [
  'selector',
  'selector_kind',
  'ceiling',
  'request_id',
  'request_text',
  'request_kind',
  'gold',
  'run',
  'chosen',
  'raw_choice',
  'loaded',
  'outcome',
  'passed',
  'top_skill',
  'top_score',
  'threshold',
  'error',
  'input_tokens',
  'cached_input_tokens',
  'output_tokens',
  'thinking_tokens',
  'cost_usd',
  'cached',
  'latency_ms',
] as const;

export function renderCsv(results: ResultsFile): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const run of results.runs) {
    for (const { d, r } of decisionRows(results, run)) {
      const top = d.scores?.[0];
      const row: Record<(typeof CSV_COLUMNS)[number], unknown> = {
        selector: run.selector,
        selector_kind: run.kind,
        ceiling: run.ceiling ? 'true' : 'false',
        request_id: text(r.id),
        request_text: text(r.text),
        request_kind: r.kind ?? '',
        gold: text(r.gold ?? ''),
        run: d.run,
        chosen: text(d.chosen ?? ''),
        raw_choice: text(d.rawChoice ?? ''),
        loaded: loaded(d) ?? '',
        outcome: outcomeOf(d, r),
        passed: passedOf(d) ?? '',
        top_skill: text(top?.name ?? ''),
        top_score: top?.score ?? '',
        threshold: run.threshold?.value ?? '',
        error: text(d.error ?? ''),
        input_tokens: d.usage?.inputTokens ?? '',
        cached_input_tokens: d.usage?.cachedInputTokens ?? '',
        output_tokens: d.usage?.outputTokens ?? '',
        thinking_tokens: d.usage?.thinkingTokens ?? '',
        cost_usd: d.costUsd ?? '',
        cached: d.cached === undefined ? '' : String(d.cached),
        latency_ms: d.latencyMs ?? '',
      };
      lines.push(CSV_COLUMNS.map((c) => csvField(row[c])).join(','));
    }
  }
  return lines.join('\r\n') + '\r\n';
}

/**
 * User-written text (requests, names, error messages) that a spreadsheet would run as a formula (=, +, -, @, tab, CR
 * first) gets a leading apostrophe, as OWASP advises against CSV injection; numbers stay numbers.
 */
export function text(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function csvField(value: unknown): string {
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
