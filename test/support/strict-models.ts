/**
 * The wire server's strictness: what the real APIs refuse, for every model of skillbench's own model table
 * (data/models.json, read through the real loader). A request that carries a parameter the model's row says it does
 * not take gets the 400 the real API gives, in that API's error format; a retired model gets a 404. Models the table
 * does not know (test ids such as "local-model") are not checked. Used by startWireServer unless `strict: false`.
 */
import { findModel, isRetired, modelTable, today, type ModelRow } from '../../src/providers/models.js';
import type { ProviderId } from '../../src/types.js';

export interface StrictRefusal {
  status: number;
  message: string;
}

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const levelOk = (row: ModelRow, level: unknown) => typeof level === 'string' && (row.thinking.levels ?? []).includes(level.toLowerCase());

function budgetOk(row: ModelRow, n: unknown): boolean {
  const b = row.thinking.budget;
  if (!b || typeof n !== 'number') return false;
  if (n === 0) return b.off;
  return n === -1 || (n >= b.min && n <= b.max); // -1: Gemini's dynamic budget
}

function geminiRefusal(row: ModelRow, body: Body): StrictRefusal | null {
  const cfg: Body = body.generationConfig ?? {};
  if (cfg.temperature !== undefined && !row.sampling.temperature) return { status: 400, message: `temperature is not supported by ${row.id}` };
  if (cfg.topP !== undefined && !row.sampling.topP) return { status: 400, message: `topP is not supported by ${row.id}` };
  const t: Body | undefined = cfg.thinkingConfig;
  if (t?.thinkingLevel !== undefined) {
    if (!['level', 'always'].includes(row.thinking.style) || !levelOk(row, t.thinkingLevel)) {
      return { status: 400, message: `Invalid value at 'generation_config.thinking_config.thinking_level' (${String(t.thinkingLevel)}): not supported by ${row.id}` };
    }
  }
  if (t?.thinkingBudget !== undefined && !budgetOk(row, t.thinkingBudget)) {
    return { status: 400, message: `thinking_budget ${String(t.thinkingBudget)} is out of range or not supported by ${row.id}` };
  }
  if (row.maxOutputTokens && cfg.maxOutputTokens > row.maxOutputTokens) return { status: 400, message: `max_output_tokens ${cfg.maxOutputTokens} exceeds ${row.maxOutputTokens}` };
  return null;
}

function anthropicRefusal(row: ModelRow, body: Body): StrictRefusal | null {
  if (body.temperature !== undefined && !row.sampling.temperature) return { status: 400, message: `temperature: not supported for ${row.id}` };
  if (body.top_p !== undefined && !row.sampling.topP) return { status: 400, message: `top_p: not supported for ${row.id}` };
  const t: Body | undefined = body.thinking;
  if (t?.type === 'enabled') {
    if (!row.thinking.budget) return { status: 400, message: `thinking.type.enabled is not supported for this model (${row.id}); use thinking.type.adaptive` };
    if (!budgetOk(row, t.budget_tokens) || t.budget_tokens >= body.max_tokens) return { status: 400, message: `thinking.budget_tokens: must be at least ${row.thinking.budget.min} and less than max_tokens` };
  } else if (t?.type === 'adaptive') {
    if (row.thinking.style !== 'adaptive' && row.thinking.style !== 'always') return { status: 400, message: `thinking.type.adaptive is not supported for ${row.id}` };
  } else if (t?.type === 'disabled' && row.thinking.style === 'always') {
    return { status: 400, message: `thinking.type.disabled is not supported for ${row.id}` };
  } else if (t !== undefined && t.type !== 'disabled') {
    return { status: 400, message: `thinking.type: unknown value ${JSON.stringify(t.type)}` };
  }
  const effort = body.output_config?.effort;
  if (effort !== undefined && (!['adaptive', 'always'].includes(row.thinking.style) || !levelOk(row, effort))) {
    return { status: 400, message: `output_config.effort: ${JSON.stringify(effort)} is not supported for ${row.id}` };
  }
  if (row.maxOutputTokens && body.max_tokens > row.maxOutputTokens) return { status: 400, message: `max_tokens: ${body.max_tokens} > ${row.maxOutputTokens}, which is the maximum allowed for ${row.id}` };
  return null;
}

function openaiRefusal(row: ModelRow, body: Body): StrictRefusal | null {
  if (body.temperature !== undefined && body.temperature !== 1 && !row.sampling.temperature) {
    return { status: 400, message: `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.` };
  }
  if (body.top_p !== undefined && !row.sampling.topP) return { status: 400, message: `Unsupported parameter: 'top_p' is not supported with this model.` };
  if (body.reasoning_effort !== undefined) {
    if (row.thinking.style === 'none') return { status: 400, message: `Unrecognized request argument supplied: reasoning_effort` };
    if (!levelOk(row, body.reasoning_effort)) return { status: 400, message: `Unsupported value: 'reasoning_effort' does not support '${body.reasoning_effort}' with this model.` };
  }
  const withTools = row.thinking.withTools;
  if (withTools && Array.isArray(body.tools) && body.tools.length && !withTools.includes(String(body.reasoning_effort ?? 'default'))) {
    return { status: 400, message: `Function tools with reasoning_effort are not supported for ${row.id} in /v1/chat/completions. Please use /v1/responses or set reasoning_effort to 'none'.` };
  }
  const cap = body.max_completion_tokens ?? body.max_tokens;
  if (row.maxOutputTokens && cap > row.maxOutputTokens) return { status: 400, message: `max_tokens is too large: ${cap}. This model supports at most ${row.maxOutputTokens} completion tokens.` };
  return null;
}

/** The refusal the real API would give this request, or null when it would accept it. */
export function strictRefusal(api: ProviderId, method: string, model: string, body: unknown): StrictRefusal | null {
  if (!['generateContent', 'messages', 'chat.completions', 'countTokens', 'count_tokens'].includes(method)) return null;
  const row = findModel(api, model, modelTable());
  if (!row) return null;
  if (isRetired(row, today())) return { status: 404, message: `model ${row.id} was retired${row.shutdown ? ` on ${row.shutdown}` : ''}` };
  if (method === 'countTokens' || method === 'count_tokens' || !body || typeof body !== 'object') return null;
  if (api === 'gemini') return geminiRefusal(row, body as Body);
  if (api === 'anthropic') return anthropicRefusal(row, body as Body);
  return openaiRefusal(row, body as Body);
}
