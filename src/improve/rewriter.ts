// The rewriter of `improve`: one structured-output call per iteration that asks a model for several candidate
// descriptions, from the current description, the skill's instructions, the rest of the catalogue, and the train
// part's failures (requests it missed, with what loaded instead; requests it took, with what should have loaded).
// The test part is never in this prompt. The call goes through the shared client (cache, retries, cost) with the
// suggester's JSON helper.
import { escapeXml } from '../prompt.js';
import { askJson, MalformedAnswer, type SuggestChat, type SuggesterCall } from '../suggest/llm.js';
import type { JsonSchema, Lane, Skill } from '../types.js';

/** Characters of the skill's body shown to the rewriter: enough for its scope, bounded for cost. */
export const BODY_CHARS = 6000;
/** Earlier attempts shown, latest last: the rewriter should not propose them again. */
export const HISTORY_SHOWN = 12;
/** Requests listed per kind of failure. */
export const FAILURES_SHOWN = 40;

export interface RewriteInput {
  skill: Skill;
  /** The description being rewritten (the best on train so far). */
  current: string;
  /** Every other skill the agent can load, as the listing describes them. */
  others: Skill[];
  /** Train requests of the skill that did not load it, and what loaded instead (null: nothing). */
  missed: { text: string; loaded: string | null }[];
  /** Train requests of other skills (or of none) that loaded it, and what should have loaded (null: nothing). */
  falseTriggers: { text: string; expected: string | null }[];
  /** Train requests of the skill it already gets right: they must keep working. */
  handled: string[];
  /** Descriptions already measured, with their train score (k/n). */
  history: { description: string; train: string }[];
  count: number;
  maxChars: number;
  /** The listing shows only this many characters of a description (hermes: 60). */
  listingCut?: number;
}

export interface Proposal {
  description: string;
  rationale?: string;
}

export type RewriterStage = 'rewrite';

export const REWRITE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    candidates: {
      type: 'array',
      items: {
        type: 'object',
        properties: { description: { type: 'string' }, rationale: { type: 'string' } },
        required: ['description', 'rationale'],
      },
    },
  },
  required: ['candidates'],
};

export function rewriterSystem(input: Pick<RewriteInput, 'count' | 'maxChars' | 'listingCut'>): string {
  const rules = [
    'You rewrite the description of one agent skill. When an agent decides which skill to load for a user\'s request, it sees only the name and the description of each skill in its catalogue, and it loads at most one. A good description makes the agent load this skill for every request the skill serves and for no other request: not for requests another skill serves, not for requests no skill serves.',
    '',
    'Rules for each description:',
    '- Say what the skill does and when to use it, in the words and languages the users write in.',
    '- Generalise from the failed requests: name the kind of task, the inputs and the intents they show. Do not paste or list the requests themselves: new requests will not repeat them.',
    '- Keep the skill apart from the other skills of the catalogue. When a request belongs to another skill, or to none, say what this skill is not for.',
    '- Stay true to the skill\'s instructions: claim nothing the skill does not do.',
    `- At most ${input.maxChars} characters.`,
  ];
  if (input.listingCut) rules.push(`- The agent's listing shows only the first ${input.listingCut} characters of a description: put the words that decide in them.`);
  rules.push('', `Propose ${input.count} different descriptions, each trying another idea, each with a one-sentence rationale. Answer with JSON only.`);
  return rules.join('\n');
}

export function rewriterUser(input: RewriteInput): string {
  const body = input.skill.body.trim();
  const shownBody = body.length > BODY_CHARS ? `${body.slice(0, BODY_CHARS)}\n[... ${body.length - BODY_CHARS} more characters not shown]` : body;
  const out = [
    `<skill name="${escapeXml(input.skill.name)}">`,
    `<current_description>${text(input.current)}</current_description>`,
    `<instructions>\n${text(shownBody)}\n</instructions>`,
    '</skill>',
    '<other_skills>',
    ...input.others.map((s) => `<skill name="${escapeXml(s.name)}">${text(s.description)}</skill>`),
    '</other_skills>',
    section('missed_requests', 'requests this skill should have been loaded for; `loaded` is what the agent loaded instead', input.missed.map((m) => `<request loaded="${escapeXml(m.loaded ?? '(none)')}">${text(m.text)}</request>`)),
    section('false_triggers', 'requests this skill was loaded for although it should not have been; `expected` is what should have loaded', input.falseTriggers.map((f) => `<request expected="${escapeXml(f.expected ?? '(none)')}">${text(f.text)}</request>`)),
    section('handled_requests', 'requests this skill is already loaded for, rightly: keep them working', input.handled.map((t) => `<request>${text(t)}</request>`)),
    section('previous_attempts', 'descriptions already tried, with the share of these requests they got right: do not propose them again', input.history.slice(-HISTORY_SHOWN).map((h) => `<attempt train="${h.train}">${text(h.description)}</attempt>`)),
    `Write ${input.count} candidate descriptions for "${escapeXml(input.skill.name)}".`,
  ];
  return out.join('\n');
}

/** Element content: only what would break the structure is escaped, so quotes and apostrophes read as written. */
function text(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function section(tag: string, what: string, items: string[]): string {
  if (!items.length) return `<${tag}/>`;
  const shown = items.slice(0, FAILURES_SHOWN);
  const more = items.length > shown.length ? [`<!-- ${items.length - shown.length} more not shown -->`] : [];
  return [`<${tag}> <!-- ${what} -->`, ...shown, ...more, `</${tag}>`].join('\n');
}

/** Output room: a 1,024-character description is about 250 tokens; a rationale about 40. */
export function rewriterMaxTokens(count: number): number {
  return 256 + 400 * count;
}

/** Asks for the candidates; the answer's shape is checked (a MalformedAnswer otherwise). */
export async function proposeDescriptions(chat: SuggestChat, input: RewriteInput, calls: SuggesterCall<RewriterStage>[], lane?: Lane): Promise<Proposal[]> {
  const answer = await askJson<RewriterStage>(
    chat,
    { stage: 'rewrite', system: rewriterSystem(input), user: rewriterUser(input), schema: REWRITE_SCHEMA, maxOutputTokens: rewriterMaxTokens(input.count) },
    calls,
    lane,
  );
  return readProposals(answer);
}

export function readProposals(answer: Record<string, unknown>): Proposal[] {
  const list = answer.candidates;
  if (!Array.isArray(list)) throw new MalformedAnswer('rewrite', '"candidates" is not a list');
  return list.map((c, i) => {
    if (typeof c !== 'object' || c === null || typeof (c as Record<string, unknown>).description !== 'string') {
      throw new MalformedAnswer('rewrite', `candidates[${i}].description is not a string`);
    }
    const { description, rationale } = c as Record<string, unknown>;
    return { description: description as string, ...(typeof rationale === 'string' && rationale.trim() ? { rationale: rationale.trim() } : {}) };
  });
}
