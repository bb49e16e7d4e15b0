// The hybrid selector: the top k skills by similarity, then the model selector on a catalogue reduced to those k
// (in the host's prompt).
// Its prompt is smaller than the full catalogue's, which the report shows beside the model selector's tokens. When
// the gold skill is not in the top k the model cannot choose it: top-k recall is this selector's ceiling.
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
  rankings: ScoredSkill[][],
  opts: HybridOptions,
): Promise<SelectorRun> {
  const jobs: Promise<Decision>[] = [];
  for (let run = 0; run < opts.runs; run++) {
    requests.forEach((r, i) => {
      const ranking = rankings[i]!;
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
