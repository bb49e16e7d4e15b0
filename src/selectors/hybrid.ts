// The hybrid selector: the top k skills of an offline ranking (--prefilter: fused by default, or similarity or
// keyword), then the model selector on a catalogue reduced to those k (in the host's prompt). Its prompt is smaller
// than the full catalogue's, which the report shows beside the model selector's tokens. When the gold skill is not in
// the top k the model cannot choose it: the prefilter's recall@k is this selector's ceiling. A request the prefilter
// could not rank (it could not read it, or found no candidate) is an error row: asking the model among no skills
// would be a quiet "none".
import type { Host } from '../hosts/profile.js';
import { hostFrame } from '../hosts/request.js';
import type { Decision, EvalRequest, Lane, ScoredSkill, SelectorRun, Skill } from '../types.js';
import { skillsFor, type SelectorChatClient } from './index.js';
import { decideWithModel } from './model.js';

export interface HybridOptions {
  k: number;
  host: Host;
  runs: number;
  lane?: Lane;
  /** Where the ranking comes from (named in error rows). */
  prefilter?: string;
}

/** The k best skills of a ranking, in catalogue order (so the reduced prompt does not leak the ranking order). */
export function shortlist(skills: Skill[], ranking: ScoredSkill[], k: number): Skill[] {
  const top = new Set(ranking.slice(0, k).map((s) => s.name));
  return skills.filter((s) => top.has(s.name));
}

export async function runHybridSelector(
  client: SelectorChatClient,
  skills: Skill[],
  requests: EvalRequest[],
  rankings: (ScoredSkill[] | { error: string })[],
  opts: HybridOptions,
): Promise<SelectorRun> {
  const jobs: Promise<Decision>[] = [];
  for (let run = 0; run < opts.runs; run++) {
    requests.forEach((r, i) => {
      const ranking = rankings[i]!;
      if (!Array.isArray(ranking) || ranking.length === 0) {
        const error = Array.isArray(ranking) ? `hybrid: the ${opts.prefilter ?? 'prefilter'} ranking has no candidate for this request` : `hybrid: ${ranking.error}`;
        jobs.push(Promise.resolve({ requestId: r.id, run, chosen: null, error }));
        if (opts.lane) opts.lane.done++;
        return;
      }
      const reduced = shortlist(skills, ranking, opts.k);
      // The host's prompt on the shortlist only; any skill the request may load (all, or its candidates) that the model
      // names is still read as a load.
      jobs.push(
        decideWithModel(client, hostFrame(opts.host, reduced), skillsFor(skills, r), r, run, opts.lane).then((d) => ({ ...d, scores: ranking })),
      );
    });
  }
  return { selector: 'hybrid', kind: 'decision', provider: client.provider, model: client.model, decisions: await Promise.all(jobs) };
}
