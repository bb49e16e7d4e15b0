// Which optional parameters a request may carry for one model, decided from its row of the model table before any
// call: the thinking setting (translated from --thinking, or the row's own cheap default), the output cap with room
// for thinking, and sampling parameters only where the model takes them. A setting the model does not take is
// refused here, in one line, instead of failing every call of the run with a 400.
import { UserError } from '../errors.js';
import type { ChatRequest, ProviderId, ThinkingParam } from '../types.js';
import { daysBetween, isRetired, type ModelRow } from './models.js';

/** What --thinking accepts: a named level, `off`, or a token budget. */
export const THINKING_WORDS = ['off', 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/** Budgets for named levels on budget-style models (skillbench's convention, clipped to the model's range). */
const LEVEL_BUDGETS: Record<string, number> = { minimal: 0, low: 1024, medium: 8192, high: 24576, xhigh: 32768, max: Number.MAX_SAFE_INTEGER };

/** Output room added for a model that thinks before answering: thinking tokens count against the same cap. Only
 * what is generated is billed, so the room costs nothing unless used. */
export const THINKING_HEADROOM = 8192;

export type UserThinking = string | number | undefined;

/** Reads --thinking: undefined (not given), a word of THINKING_WORDS, or a whole number of tokens. */
export function parseThinkingFlag(value: string | undefined): UserThinking {
  if (value === undefined || value === '') return undefined;
  const v = value.trim().toLowerCase();
  if ((THINKING_WORDS as readonly string[]).includes(v)) return v === 'none' ? 'off' : v;
  const n = Number(v);
  if (Number.isInteger(n) && n >= 0) return n;
  throw new UserError(`--thinking: "${value}" is not a level or a budget`, `use ${THINKING_WORDS.join(', ')}, or a token budget such as 2048`);
}

function refuse(row: ModelRow, flag: UserThinking, why: string, fix: string): never {
  throw new UserError(`--thinking ${flag}: ${row.provider}/${row.id} ${why}`, fix);
}

function accepted(row: ModelRow): string {
  const t = row.thinking;
  const parts: string[] = [];
  if (t.levels?.length) parts.push(t.levels.join(', '));
  if (t.budget) parts.push(`a budget of ${t.budget.min}-${t.budget.max} tokens${t.budget.off ? ' (or 0: off)' : ''}`);
  if (t.style === 'adaptive') parts.push('off');
  return parts.join('; or ') || 'nothing';
}

function budgetParam(row: ModelRow, flag: UserThinking, n: number): ThinkingParam | undefined {
  const b = row.thinking.budget!;
  if (n === 0) {
    if (b.off) return row.provider === 'anthropic' ? undefined : { budget: 0 };
    refuse(row, flag, 'cannot turn thinking off', `use a budget of ${b.min}-${b.max} tokens (--thinking ${b.min})`);
  }
  if (typeof flag === 'number' && (n < b.min || n > b.max)) {
    refuse(row, flag, `takes a thinking budget of ${b.min}-${b.max} tokens`, `use --thinking ${Math.min(b.max, Math.max(b.min, n))}`);
  }
  return { budget: Math.min(b.max, Math.max(b.min, n)) };
}

/**
 * The thinking parameter for `row` from the user's --thinking (undefined: the row's `send`). Throws a UserError when
 * the model does not take the setting, naming what it accepts.
 */
export function thinkingParam(row: ModelRow, flag: UserThinking): ThinkingParam | undefined {
  const t = row.thinking;
  const want = flag ?? t.send ?? undefined;
  if (want === undefined || want === null) return undefined;
  const fix = `use --thinking with one of: ${accepted(row)}; or leave --thinking out`;
  if (t.style === 'none') {
    if (want === 'off' || want === 0) return undefined;
    refuse(row, flag, 'does not think', 'leave --thinking out for this model');
  }
  if (typeof want === 'number') {
    if (!t.budget) refuse(row, flag, `takes named thinking levels (${t.levels?.join(', ') ?? 'none'}), not a token budget`, fix);
    return budgetParam(row, flag, want);
  }
  if (want === 'off') {
    if (t.style === 'adaptive') return undefined; // adaptive thinking is off unless it is asked for
    if (t.budget?.off) return budgetParam(row, flag, 0);
    if (t.levels?.includes('none')) return { level: 'none' };
    refuse(row, flag, t.style === 'always' ? 'always thinks and cannot turn it off' : 'cannot turn thinking off', fix);
  }
  if (t.levels?.includes(want)) return t.style === 'adaptive' ? { adaptive: want } : { level: want };
  if (t.style === 'budget' && t.budget && want in LEVEL_BUDGETS) return budgetParam(row, flag, LEVEL_BUDGETS[want]!);
  refuse(row, flag, `does not take thinking level "${want}"`, fix);
}

/** Whether a response of this model may spend output tokens thinking before its answer. */
export function thinks(row: ModelRow | null, thinking: ThinkingParam | undefined): boolean {
  if (!row || row.thinking.style === 'none') return false;
  if (thinking && 'budget' in thinking) return thinking.budget > 0;
  if (thinking && 'level' in thinking) return thinking.level !== 'none';
  if (thinking && 'adaptive' in thinking) return true;
  // No parameter sent: adaptive models do not think unless asked; the others think at their own default.
  return row.thinking.style !== 'adaptive' && !(row.thinking.style === 'budget' && row.thinking.send === 0);
}

/** The output cap to send: the caller's answer budget, plus room for thinking, within the model's own maximum. */
export function outputCap(row: ModelRow | null, answerTokens: number | undefined, thinking: ThinkingParam | undefined): number | undefined {
  if (answerTokens === undefined) return undefined;
  let cap = answerTokens;
  if (thinking && 'budget' in thinking && thinking.budget > 0) cap += thinking.budget;
  else if (thinks(row, thinking)) cap += THINKING_HEADROOM;
  return row?.maxOutputTokens ? Math.min(cap, row.maxOutputTokens) : cap;
}

export interface ModelPlan {
  row: ModelRow | null;
  /** The thinking parameter every request of the run carries (a request may not set its own). */
  thinking: ThinkingParam | undefined;
  /** One-line notes to show once (unknown model, retirement soon). */
  notes: string[];
}

/**
 * Checks a model before any call: a retired model or a setting it does not take is a UserError; an unknown model
 * gets no optional parameter and a note; a model retiring within 90 days gets a note.
 */
export function planModel(provider: ProviderId, model: string, row: ModelRow | null, flag: UserThinking, on: string, local: boolean): ModelPlan {
  const notes: string[] = [];
  if (!row) {
    if (flag !== undefined && flag !== 'off') {
      throw new UserError(
        `--thinking ${flag}: ${provider}/${model} is not in the model table, so skillbench cannot tell which thinking parameter it takes`,
        `leave --thinking out, or describe the model in your own table (SKILLBENCH_MODEL_TABLE=file.json, see docs/models.md)`,
      );
    }
    if (!local) notes.push(`${provider}/${model} is not in the model table: no optional parameter (thinking, temperature) is sent and its price is unknown; describe it with SKILLBENCH_MODEL_TABLE (docs/models.md)`);
    return { row, thinking: undefined, notes };
  }
  if (row.kind !== 'chat') throw new UserError(`--model ${model}: ${provider}/${row.id} is an embedding model`, 'pick a chat model (see docs/models.md)');
  if (isRetired(row, on)) {
    throw new UserError(
      `--model ${model}: ${provider}/${row.id} was retired${row.shutdown ? ` on ${row.shutdown}` : ''}; calls to it fail`,
      row.replacement ? `use --model ${row.replacement} (the vendor's replacement)` : 'pick a current model (see docs/models.md)',
    );
  }
  if (row.shutdown && daysBetween(on, row.shutdown) <= 90) {
    notes.push(`${provider}/${row.id} shuts down on ${row.shutdown}${row.replacement ? `: move to ${row.replacement}` : ''}`);
  }
  const thinking = thinkingParam(row, flag);
  checkToolLevels(row, flag, thinking);
  return { row, thinking, notes };
}

/** Every skillbench command calls with function tools: a model that refuses them at this setting is refused here. */
function checkToolLevels(row: ModelRow, flag: UserThinking, thinking: ThinkingParam | undefined): void {
  const allowed = row.thinking.withTools;
  if (!allowed) return;
  const who = `${row.provider}/${row.id}`;
  if (!allowed.length) {
    throw new UserError(
      `--model ${row.id}: ${who} takes no function tools through the API skillbench calls (Chat Completions), and loading a skill is a tool call`,
      'pick a model that does (docs/models.md; e.g. the default), or describe another row in SKILLBENCH_MODEL_TABLE',
    );
  }
  const level = thinking && 'level' in thinking ? thinking.level : undefined;
  if (level === undefined || !allowed.includes(level)) {
    throw new UserError(
      `--thinking ${flag ?? '(default)'}: ${who} takes function tools only with reasoning effort ${allowed.join(', ')}`,
      `use --thinking ${allowed[0]} or leave --thinking out`,
    );
  }
}

/** The request as it is sent: the run's thinking parameter, the output cap with thinking room, and sampling
 * parameters only where the model takes them (a temperature is a preference of the caller, not a requirement). */
export function applyPlan(req: Omit<ChatRequest, 'model'>, model: string, plan: ModelPlan): ChatRequest {
  const { temperature, thinking: _ignored, ...rest } = req;
  const out: ChatRequest = { ...rest, model };
  if (plan.thinking) out.thinking = plan.thinking;
  const cap = outputCap(plan.row, req.maxOutputTokens, plan.thinking);
  if (cap !== undefined) out.maxOutputTokens = cap;
  if (temperature !== undefined && plan.row?.sampling.temperature) out.temperature = temperature;
  return out;
}

/**
 * Whether the stable prefix of a request (tools and the catalogue block) can be served from the provider's prompt
 * cache on this model: a prefix shorter than the model's minimum is never cached, whatever the request marks.
 */
export function promptCacheNote(provider: ProviderId, model: string, row: ModelRow | null, prefixTokens: number): string {
  const who = `${provider}/${model}`;
  const n = prefixTokens.toLocaleString('en-US');
  if (!row || row.promptCacheMinTokens === null) return `prompt cache: the stable prefix (~${n} tokens) on ${who}: the model's cache minimum is unknown, so cache reads are not promised`;
  const min = row.promptCacheMinTokens.toLocaleString('en-US');
  const unsure = row.unconfirmed.includes('promptCacheMinTokens') ? ' (minimum unconfirmed: docs/models.md)' : '';
  return prefixTokens >= row.promptCacheMinTokens
    ? `prompt cache: the stable prefix (~${n} tokens) reaches ${who}'s minimum of ${min}: repeated calls can read it from the cache${unsure}`
    : `prompt cache: the stable prefix (~${n} tokens) is below ${who}'s minimum of ${min}: it is never cached, every call pays full input price${unsure}`;
}
