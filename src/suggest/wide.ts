// Stage 1, wide: rank every skill of the catalogue for a request, and decide whether the request needs a skill at
// all. The decision asks about action, not topic: three questions answered 0..1, their mean against a threshold.
import type { EmbeddingProvider, JsonSchema, Lane, ScoredSkill, Skill } from '../types.js';
import { ProviderError } from '../errors.js';
import { cosine, createSimilarityRanker as createSelectorRanker } from '../selectors/similarity.js';
import { askJson, MalformedAnswer, unitNumber, type SuggestChat, type SuggesterCall, type SuggesterStage } from './llm.js';

/** The gate questions, as asked. "prose alone" counts against a skill: the score uses 1 - its answer. */
export const GATE_QUESTIONS = {
  acts_on_user_things:
    "Is the assistant asked to act on the user's own files, accounts, devices or services (read, change, create, " +
    'send or run something there), rather than only to talk about a subject? 0 = no, 1 = clearly yes.',
  expert_procedure:
    'Would an expert doing what is asked follow a specific documented procedure, tool or workflow? 0 = no, 1 = clearly yes.',
  prose_alone:
    'Could a capable generalist answer this fully in prose alone, from general knowledge, without tools or a ' +
    'procedure? 0 = no, 1 = clearly yes.',
} as const;

export interface GateAnswers {
  actsOnUserThings: number;
  expertProcedure: number;
  proseAlone: number;
  /** (acts + procedure + (1 - prose)) / 3. */
  score: number;
  threshold: number;
  open: boolean;
}

export function gateScore(acts: number, procedure: number, prose: number): number {
  return (acts + procedure + (1 - prose)) / 3;
}

const GATE_INTRO =
  'Answer three questions about the request itself (not about any skill). Judge what the user asks the ' +
  'assistant to do, not the subject the request mentions. Answer each with a number from 0 to 1:\n' +
  Object.entries(GATE_QUESTIONS)
    .map(([key, question]) => `- ${key}: ${question}`)
    .join('\n');

/** Shape reminders, for servers that ignore the response schema (some OpenAI-compatible ones do). */
const GATE_OBJECT = '{"acts_on_user_things": 0.0, "expert_procedure": 0.0, "prose_alone": 0.0}';
const GATE_SHAPE = `"gate": ${GATE_OBJECT}`;
const RANK_SHAPE = '"ranking": [{"name": "skill-name", "score": 0.0}]';

/** Generous: thinking models may spend output tokens before the JSON; only what is generated is billed. */
const MAX_OUTPUT_TOKENS = 1024;

const RANK_SYSTEM =
  'You route requests to the skills of an AI assistant. A skill is a packaged procedure for one kind of task; ' +
  'the assistant loads at most one before answering. Given a user request and a list of skills (name, category, ' +
  'description), rank the skills most likely to be the one the assistant should load for this request, best ' +
  'first, each with a relevance score from 0 (unrelated) to 1 (made for exactly this task). Use only names from ' +
  'the list.';

const GATE_SYSTEM =
  'You decide whether a request to an AI assistant calls for one of its skills (packaged procedures for ' +
  'specific tasks) or can be answered directly. ' + GATE_INTRO;

const gateProperties: Record<string, JsonSchema> = Object.fromEntries(
  Object.entries(GATE_QUESTIONS).map(([key, question]) => [key, { type: 'number', description: question }]),
);

function gateSchema(): JsonSchema {
  return { type: 'object', properties: gateProperties, required: Object.keys(GATE_QUESTIONS) };
}

function rankSchema(names: string[], depth: number, withGate: boolean): JsonSchema {
  const ranking: JsonSchema = {
    type: 'array',
    description: `The ${depth} most relevant skills, best first.`,
    items: {
      type: 'object',
      properties: {
        name: { type: 'string', enum: names },
        score: { type: 'number', description: 'relevance from 0 to 1' },
      },
      required: ['name', 'score'],
    },
  };
  const properties: Record<string, JsonSchema> = { ranking };
  if (withGate) properties.gate = gateSchema();
  return { type: 'object', properties, required: Object.keys(properties) };
}

export function gateFrom(raw: unknown, threshold: number, stage: SuggesterStage): GateAnswers {
  if (raw === null || typeof raw !== 'object') throw new MalformedAnswer(stage, 'no gate answers');
  const g = raw as Record<string, unknown>;
  const actsOnUserThings = unitNumber(g.acts_on_user_things, stage, 'acts_on_user_things');
  const expertProcedure = unitNumber(g.expert_procedure, stage, 'expert_procedure');
  const proseAlone = unitNumber(g.prose_alone, stage, 'prose_alone');
  const score = gateScore(actsOnUserThings, expertProcedure, proseAlone);
  return { actsOnUserThings, expertProcedure, proseAlone, score, threshold, open: score >= threshold };
}

/** One line per skill: name, category, full description on one line. */
export function listSkills(skills: Skill[]): string {
  return skills
    .map((s) => `- ${s.name}${s.category ? ` (${s.category})` : ''}: ${s.description.replace(/\s+/g, ' ').trim()}`)
    .join('\n');
}

function requestSection(text: string): string {
  return `User request:\n"""\n${text}\n"""`;
}

/** Valid, de-duplicated, best-first ranking from a model's answer; names outside `allowed` are dropped. */
function rankingFrom(raw: unknown, allowed: Skill[], depth: number, stage: SuggesterStage): ScoredSkill[] {
  if (!Array.isArray(raw)) throw new MalformedAnswer(stage, 'ranking is not a list');
  const canonical = nameResolver(allowed.map((s) => s.name));
  const seen = new Set<string>();
  const out: ScoredSkill[] = [];
  for (const item of raw) {
    if (item === null || typeof item !== 'object') continue;
    const { name: given, score } = item as Record<string, unknown>;
    const name = canonical(given);
    if (name === null || seen.has(name)) continue;
    seen.add(name);
    out.push({ name, score: unitNumber(score, stage, `score of ${name}`) });
  }
  // Stable sort: equal scores keep the model's order.
  return out.sort((a, b) => b.score - a.score).slice(0, depth);
}

/**
 * Maps a name from a model's answer to a catalogue name: exact, else ignoring case and surrounding whitespace (a server
 * that ignores the schema's enum may change case); anything else is null.
 */
export function nameResolver(names: string[]): (given: unknown) => string | null {
  const exact = new Set(names);
  const folded = new Map(names.map((n) => [n.toLowerCase(), n]));
  return (given) => {
    if (typeof given !== 'string') return null;
    if (exact.has(given)) return given;
    return folded.get(given.trim().toLowerCase()) ?? null;
  };
}

/** Splits into ceil(n / size) chunks of near-equal size, in catalogue order. */
export function chunk<T>(items: T[], size: number): T[][] {
  const count = Math.ceil(items.length / size);
  const chunks: T[][] = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    const length = Math.floor(items.length / count) + (i < items.length % count ? 1 : 0);
    chunks.push(items.slice(start, start + length));
    start += length;
  }
  return chunks;
}

export interface WideResult {
  ranking: ScoredSkill[];
  gate: GateAnswers;
}

export interface ModelWideOptions {
  depth: number;
  chunkSize: number;
  gateThreshold: number;
  lane?: Lane;
}

/**
 * `--wide model`: one structured call ranking the catalogue and answering the gate. A catalogue larger than
 * `chunkSize` is ranked in chunks (each keeps its `depth` best), then the chunk winners together, recursively until
 * one call holds them all; the last call also answers the gate.
 */
export async function wideWithModel(
  chat: SuggestChat,
  text: string,
  skills: Skill[],
  opts: ModelWideOptions,
  calls: SuggesterCall[],
): Promise<WideResult> {
  if (opts.chunkSize < 2 * opts.depth) {
    // Below this a round of chunks may keep every skill and never shrink the pool.
    throw new Error(`chunk size ${opts.chunkSize} must be at least twice the shortlist ${opts.depth}`);
  }
  let pool = skills;
  while (pool.length > opts.chunkSize) {
    const parts = chunk(pool, opts.chunkSize);
    const winners = await Promise.all(
      parts.map(async (part) => {
        const answer = await askJson(
          chat,
          {
            stage: 'wide-chunk',
            system: RANK_SYSTEM,
            user:
              `${requestSection(text)}\n\nSkills (one part of a larger catalogue):\n${listSkills(part)}\n\n` +
              `Rank the ${Math.min(opts.depth, part.length)} most relevant. Answer with JSON: {${RANK_SHAPE}}`,
            schema: rankSchema(part.map((s) => s.name), opts.depth, false),
            maxOutputTokens: MAX_OUTPUT_TOKENS,
          },
          calls,
          opts.lane,
        );
        return rankingFrom(answer.ranking, part, opts.depth, 'wide-chunk');
      }),
    );
    const keep = new Set(winners.flat().map((w) => w.name));
    pool = skills.filter((s) => keep.has(s.name));
  }
  if (pool.length === 0) {
    // No chunk named a valid skill: nothing to rank, but the gate still decides what the agent is told.
    return { ranking: [], gate: await askGate(chat, text, opts.gateThreshold, calls, opts.lane) };
  }
  const stage: SuggesterStage = pool.length < skills.length ? 'wide-final' : 'wide';
  const answer = await askJson(
    chat,
    {
      stage,
      system: `${RANK_SYSTEM}\n\nThen, about the gate: ${GATE_INTRO}`,
      user:
        `${requestSection(text)}\n\nSkills:\n${listSkills(pool)}\n\n` +
        `Rank the ${Math.min(opts.depth, pool.length)} most relevant, then answer the gate questions. ` +
        `Answer with JSON: {${RANK_SHAPE}, ${GATE_SHAPE}}`,
      schema: rankSchema(pool.map((s) => s.name), opts.depth, true),
      maxOutputTokens: MAX_OUTPUT_TOKENS,
    },
    calls,
    opts.lane,
  );
  return {
    ranking: rankingFrom(answer.ranking, pool, opts.depth, stage),
    gate: gateFrom(answer.gate, opts.gateThreshold, stage),
  };
}

/** `--wide similarity`: the model answers only the gate; the ranking comes from embeddings. */
export async function askGate(
  chat: SuggestChat,
  text: string,
  threshold: number,
  calls: SuggesterCall[],
  lane?: Lane,
): Promise<GateAnswers> {
  const answer = await askJson(
    chat,
    {
      stage: 'gate',
      system: GATE_SYSTEM,
      user: `${requestSection(text)}\n\nAnswer with JSON: ${GATE_OBJECT}`,
      schema: gateSchema(),
      maxOutputTokens: MAX_OUTPUT_TOKENS,
    },
    calls,
    lane,
  );
  return gateFrom(answer, threshold, 'gate');
}

export type Ranker = (text: string) => Promise<ScoredSkill[]>;

/**
 * Ranks every skill by cosine similarity to the request: the similarity selector's ranker (same documents, so the
 * same cached vectors and the same scores as `eval-trigger --selectors similarity`), one request at a time.
 */
export async function createSimilarityRanker(embedder: EmbeddingProvider, skills: Skill[]): Promise<Ranker> {
  const ranker = await createSelectorRanker(embedder, skills);
  return async (text) => (await ranker.rank([text], { keep: skills.length }))[0]!;
}

/**
 * `--wide fused`: the fused selector's ranking (words, character n-grams and embeddings together; see
 * selectors/fused.ts), one request at a time. A request no signal can read (a script neither the descriptions nor
 * the embedding model has) is a ProviderError: an error row in `suggest --eval`, never an empty shortlist.
 */
export async function createFusedRanker(embedder: EmbeddingProvider, skills: Skill[]): Promise<Ranker> {
  const [{ detectLanguages }, fused] = await Promise.all([import('../language.js'), import('../selectors/fused.js')]);
  const { skills: skillLanguages } = await detectLanguages([], skills);
  const ranker = await fused.createFusedRanker(embedder, skills, { skillLanguages });
  return async (text) => {
    const language = (await detectLanguages([{ id: 'request', text, gold: null }], [])).requests.request;
    const [item] = await ranker.rank([text], { keep: skills.length, languages: [language] });
    if (item!.unreadable) {
      const err = new ProviderError(item!.unreadable);
      err.name = 'UnreadableText';
      throw err;
    }
    return item!.ranking;
  };
}

/** The similarity selector's cosine (one definition for both). */
export { cosine };
