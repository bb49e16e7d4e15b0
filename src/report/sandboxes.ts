// Which sandbox ran the skill scripts of an eval-quality run, from the results file alone (each decision's
// `detail.scripts` records every script run with the sandbox that ran it), so that every report says it.
import type { ResultsFile } from '../types.js';

/** One recorded script run (`detail.scripts[]` of an eval-quality decision). */
export interface RecordedScript {
  name: string;
  path: string;
  exitCode: number | null;
  sandbox: string;
}

/** "12 script runs, all under bwrap 0.8.0 as nobody", "3 script runs: 2 under bwrap ..., 1 under none (...)", or
 *  null when no script ran. */
export function scriptSandboxLine(results: ResultsFile): string | null {
  const counts = new Map<string, number>();
  for (const run of results.runs) {
    for (const d of run.decisions) {
      const scripts = d.detail?.scripts;
      if (!Array.isArray(scripts)) continue;
      for (const s of scripts as Partial<RecordedScript>[]) {
        const label = typeof s?.sandbox === 'string' ? s.sandbox : 'an unrecorded sandbox';
        counts.set(label, (counts.get(label) ?? 0) + 1);
      }
    }
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const runs = (n: number) => `${n} script run${n === 1 ? '' : 's'}`;
  if (counts.size === 1) return `${runs(total)}, ${total === 1 ? '' : 'all '}under ${[...counts.keys()][0]}`;
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([label, n]) => `${n} under ${label}`);
  return `${runs(total)}: ${parts.join(', ')}`;
}
