// Figures per language group: the same metrics (metrics.ts) computed on the requests of each language, so a figure
// that mixes requests the offline models read with requests they cannot is shown apart, not as one measurement.
import { computeMetrics } from '../metrics.js';
import { languageGroup } from '../language.js';
import type { EvalRequest, ResultsFile, SelectorMetrics } from '../types.js';

export interface LanguageGroupFigures {
  group: string;
  requests: number;
  covered: number;
  /** Per selector (in run order): the metrics on this group's requests. */
  metrics: SelectorMetrics[];
}

/** Request groups by language (the largest first), or [] when every request is in one language. */
export function languageGroups(results: ResultsFile): { group: string; requests: EvalRequest[] }[] {
  const langs = results.languages?.requests;
  if (!langs) return [];
  const groups = new Map<string, EvalRequest[]>();
  for (const r of results.requests) {
    const t = langs[r.id];
    const g = t ? languageGroup(t) : 'und';
    groups.set(g, [...(groups.get(g) ?? []), r]);
  }
  if (groups.size < 2) return [];
  return [...groups.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0])).map(([group, requests]) => ({ group, requests }));
}

export function languageFigures(results: ResultsFile): LanguageGroupFigures[] {
  return languageGroups(results).map(({ group, requests }) => ({
    group,
    requests: requests.length,
    covered: requests.filter((r) => r.gold !== null).length,
    metrics: results.runs.filter((run) => !run.ceiling).map((run) => computeMetrics(run, requests)),
  }));
}
