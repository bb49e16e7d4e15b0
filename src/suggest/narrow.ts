// Stage 2, narrow: the shortlist is shown again with each skill's full description and the start of its body; the
// model scores, for each candidate separately, whether it does the specific thing asked, and picks one.
import type { JsonSchema, Lane, Skill } from '../types.js';
import { askJson, MalformedAnswer, unitNumber, type SuggestChat, type SuggesterCall } from './llm.js';
import { nameResolver } from './wide.js';

const NARROW_SYSTEM =
  'You decide which skill, if any, an AI assistant should load before answering a user request. A skill is a ' +
  'packaged procedure for one kind of task. You see a few candidate skills, each with its full description and ' +
  'the start of its instructions. First score each candidate on its own: does it do the specific thing the user ' +
  'asked? 0 = no (a related subject is not enough), 1 = exactly this task. Then pick the single best candidate.';

export interface NarrowResult {
  /** Fit of each candidate, in shortlist order. */
  fits: { name: string; fit: number }[];
  pick: string | null;
}

export function renderCandidate(skill: Skill, excerptChars: number): string {
  const excerpt = skill.body.trim().slice(0, excerptChars);
  const category = skill.category ? ` category="${skill.category}"` : '';
  return (
    `<candidate name="${skill.name}"${category}>\nDescription: ${skill.description.trim()}\n` +
    (excerpt ? `\nStart of its instructions:\n${excerpt}\n` : '') +
    '</candidate>'
  );
}

function narrowSchema(names: string[]): JsonSchema {
  return {
    type: 'object',
    properties: {
      fits: {
        type: 'array',
        description: 'One entry per candidate.',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', enum: names },
            fit: { type: 'number', description: 'does this skill do the specific thing asked, 0 to 1' },
          },
          required: ['name', 'fit'],
        },
      },
      pick: { type: 'string', enum: names, description: 'the best candidate' },
    },
    required: ['fits', 'pick'],
  };
}

export async function narrowStage(
  chat: SuggestChat,
  text: string,
  candidates: Skill[],
  excerptChars: number,
  calls: SuggesterCall[],
  lane?: Lane,
): Promise<NarrowResult> {
  const names = candidates.map((s) => s.name);
  const answer = await askJson(
    chat,
    {
      stage: 'narrow',
      system: NARROW_SYSTEM,
      user:
        `User request:\n"""\n${text}\n"""\n\nCandidates:\n` +
        candidates.map((s) => renderCandidate(s, excerptChars)).join('\n\n') +
        '\n\nScore every candidate, then pick one. Answer with JSON: ' +
        '{"fits": [{"name": "skill-name", "fit": 0.0}], "pick": "skill-name"}',
      schema: narrowSchema(names),
      maxOutputTokens: 1024,
    },
    calls,
    lane,
  );
  if (!Array.isArray(answer.fits)) throw new MalformedAnswer('narrow', 'fits is not a list');
  const canonical = nameResolver(names);
  const given = new Map<string, number>();
  for (const item of answer.fits) {
    if (item === null || typeof item !== 'object') continue;
    const { name: raw, fit } = item as Record<string, unknown>;
    const name = canonical(raw);
    if (name !== null && !given.has(name)) given.set(name, unitNumber(fit, 'narrow', `fit of ${name}`));
  }
  // A candidate the model did not score did not fit.
  const fits = names.map((name) => ({ name, fit: given.get(name) ?? 0 }));
  const pick = canonical(answer.pick);
  return { fits, pick };
}

/**
 * The skill to suggest: nothing when the best fit is under the threshold; else the model's pick when its own fit
 * clears the threshold, else the best-scored candidate (ties go to the earlier, better-ranked one).
 */
export function chooseWinner(result: NarrowResult, fitThreshold: number): string | null {
  let best: { name: string; fit: number } | null = null;
  for (const f of result.fits) if (best === null || f.fit > best.fit) best = f;
  if (best === null || best.fit < fitThreshold) return null;
  const pickFit = result.fits.find((f) => f.name === result.pick)?.fit;
  if (result.pick !== null && pickFit !== undefined && pickFit >= fitThreshold) return result.pick;
  return best.name;
}
