// Whether a run measured what it set out to: the share of decisions that are errors (failed calls, responses that
// ended without an answer, calls the fail-fast breaker or --max-cost did not make) against --max-error-rate. An
// incomplete run writes its outputs, says "incomplete" in every format, passes no gate, and exits 4.
import { IncompleteRun, incompleteLine } from './errors.js';
import type { Completeness, Decision, SelectorRun } from './types.js';

/** --cache-only misses are not failures of the run: they end it as bad input (exit 2) on their own. */
const counted = (d: Decision) => d.errorKind !== 'cache';

export function completenessOf(runs: Pick<SelectorRun, 'decisions'>[], maxErrorRate = 0, stopped?: string | null): Completeness {
  let total = 0;
  let failed = 0;
  const byKind: Record<string, number> = {};
  for (const run of runs) {
    for (const d of run.decisions) {
      if (!counted(d)) continue;
      total++;
      if (d.error === undefined) continue;
      failed++;
      const kind = d.errorKind === 'stop' ? `stopped: ${d.stopReason ?? 'other'}` : (d.errorKind ?? 'call');
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    }
  }
  const complete = total === 0 || failed / total <= maxErrorRate;
  return { failed, total, maxErrorRate, complete, byKind, ...(stopped ? { stopped } : {}) };
}

/** The words reports print for an incomplete run (null when complete). */
export function incompleteText(c: Completeness | undefined): string | null {
  if (!c || c.complete) return null;
  const kinds = Object.entries(c.byKind ?? {}).map(([k, n]) => `${k} ${n}`).join(', ');
  return `${incompleteLine(c.failed, c.total)}${kinds ? ` (${kinds})` : ''}${c.stopped ? `; run stopped: ${c.stopped}` : ''}`;
}

/** The error that ends an incomplete run (exit 4), or null. */
export function incompleteFailure(c: Completeness | undefined): IncompleteRun | null {
  if (!c || c.complete) return null;
  return new IncompleteRun(c.failed, c.total, c.stopped ? `run stopped: ${c.stopped}` : undefined);
}
