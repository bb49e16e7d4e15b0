// The terminal side-by-side comparison of a results file with a baseline (`skillbench report --baseline`): for each
// selector in either file, wrong and needless load before and now, with the change in points. Plain text (no colour)
// so that it reads the same in a CI log; fitted to `width` columns when given.
import { computeMetrics } from '../metrics.js';
import type { Rate, ResultsFile } from '../types.js';
import { pct } from './format.js';
import { terminalTable } from './table.js';

export function renderComparisonTable(results: ResultsFile, baseline: ResultsFile, baselineFile: string, width?: number): string {
  const table = terminalTable(['selector', 'wrong load: baseline', 'now', 'change', 'needless load: baseline', 'now', 'change'], {
    align: ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
    width,
    min: [12],
  });
  const selectors = [...new Set([...baseline.runs, ...results.runs].map((r) => r.selector))];
  for (const selector of selectors) {
    const metricsIn = (file: ResultsFile) => {
      const run = file.runs.find((r) => r.selector === selector);
      return run ? computeMetrics(run, file.requests) : undefined;
    };
    const then = metricsIn(baseline);
    const now = metricsIn(results);
    table.push([
      selector,
      rate(then?.wrongLoad),
      rate(now?.wrongLoad),
      change(then?.wrongLoad, now?.wrongLoad),
      rate(then?.needlessLoad),
      rate(now?.needlessLoad),
      change(then?.needlessLoad, now?.needlessLoad),
    ]);
  }
  return `\nAgainst the baseline ${baselineFile} (${baseline.createdAt})\n${table.toString()}\n`;
}

function rate(r: Rate | undefined): string {
  return r ? `${pct(r.rate)} ${r.k}/${r.n}` : '-';
}

/** `+4.2 pts` (worse: both rates are lower-is-better), `-1.0 pts`, `0`. */
function change(before: Rate | undefined, after: Rate | undefined): string {
  if (before?.rate == null || after?.rate == null) return '-';
  const d = 100 * (after.rate - before.rate);
  return Math.abs(d) < 0.05 ? '0' : `${d > 0 ? '+' : ''}${d.toFixed(1)} pts`;
}
