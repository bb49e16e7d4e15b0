// The model table: every model skillbench knows, as dated rows read from data/models.json (validated on read), plus
// rows from a user's own file ($SKILLBENCH_MODEL_TABLE) that add models or override shipped rows. Model facts go
// stale monthly: they live in that file, with their sources, and nowhere in code.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UserError } from '../errors.js';
import type { ProviderId } from '../types.js';

export type ModelStatus = 'active' | 'preview' | 'legacy' | 'deprecated' | 'retired';
export type ThinkingStyle = 'none' | 'budget' | 'level' | 'adaptive' | 'always';

export interface PriceTier {
  /** The tier applies to calls whose prompt is longer than this many tokens. */
  aboveInputTokens: number;
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
}

export interface ModelPrices {
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
  tiers?: PriceTier[];
  batchDiscount?: number;
}

export interface ModelThinking {
  style: ThinkingStyle;
  /** level / adaptive / always: the values the API accepts, lowercase. */
  levels?: string[];
  /** budget: the accepted range; `off` = 0 (or disabled) is accepted. */
  budget?: { min: number; max: number; off: boolean };
  /** What skillbench sends when the user gives no --thinking; null = no thinking parameter. */
  send: string | number | null;
  /** The levels the API accepts together with function tools (OpenAI Chat Completions on GPT-5.6+: only `none`);
   * absent = any; [] = no function tools at all through the API skillbench uses. */
  withTools?: string[];
}

export interface ModelSource {
  url: string;
  read: string;
  facts?: string;
}

export interface ModelRow {
  provider: ProviderId;
  id: string;
  aliases: string[];
  kind: 'chat' | 'embedding';
  status: ModelStatus;
  released: string | null;
  shutdown: string | null;
  replacement: string | null;
  default: boolean;
  prices: ModelPrices | null;
  contextWindow: number | null;
  maxOutputTokens: number | null;
  thinking: ModelThinking;
  sampling: { temperature: boolean; topP: boolean };
  promptCacheMinTokens: number | null;
  sources: ModelSource[];
  unconfirmed: string[];
  note?: string;
}

export interface ModelTable {
  reviewed: string;
  models: ModelRow[];
  /** Where the rows came from (the shipped file, then the user's file when given). */
  files: string[];
}

export const SHIPPED_TABLE = fileURLToPath(new URL('../../data/models.json', import.meta.url));
export const USER_TABLE_VAR = 'SKILLBENCH_MODEL_TABLE';

const PROVIDERS: ProviderId[] = ['gemini', 'anthropic', 'openai'];
const STATUSES: ModelStatus[] = ['active', 'preview', 'legacy', 'deprecated', 'retired'];
const STYLES: ThinkingStyle[] = ['none', 'budget', 'level', 'adaptive', 'always'];
const DATE = /^\d{4}-\d{2}(-\d{2})?$/;

// ---------------------------------------------------------------- validation

class RowReader {
  constructor(
    readonly file: string,
    readonly where: string,
    readonly row: Record<string, unknown>,
  ) {}

  fail(field: string, expected: string): never {
    throw new UserError(`${this.file}: ${this.where} field "${field}" must be ${expected}`, `fix that row (the fields are described in docs/models.md)`);
  }

  str(field: string): string {
    const v = this.row[field];
    if (typeof v !== 'string' || !v.trim()) this.fail(field, 'a non-empty string');
    return v.trim();
  }

  strOrNull(field: string): string | null {
    const v = this.row[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') this.fail(field, 'a string or null');
    return v;
  }

  dateOrNull(field: string): string | null {
    const v = this.strOrNull(field);
    if (v !== null && !DATE.test(v)) this.fail(field, 'a date YYYY-MM-DD (or YYYY-MM), or null');
    return v;
  }

  numOrNull(field: string, obj: Record<string, unknown> = this.row): number | null {
    const v = obj[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) this.fail(field, 'a number >= 0 or null');
    return v;
  }

  num(field: string, obj: Record<string, unknown>): number {
    const v = obj[field];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) this.fail(field, 'a number >= 0');
    return v;
  }

  bool(field: string, obj: Record<string, unknown> = this.row, fallback?: boolean): boolean {
    const v = obj[field];
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== 'boolean') this.fail(field, 'true or false');
    return v;
  }

  strings(field: string, obj: Record<string, unknown> = this.row): string[] {
    const v = obj[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) this.fail(field, 'a list of strings');
    return v as string[];
  }

  object(field: string): Record<string, unknown> {
    const v = this.row[field];
    if (!v || typeof v !== 'object' || Array.isArray(v)) this.fail(field, 'an object');
    return v as Record<string, unknown>;
  }

  oneOf<T extends string>(field: string, values: readonly T[], obj: Record<string, unknown> = this.row): T {
    const v = obj[field];
    if (typeof v !== 'string' || !values.includes(v as T)) this.fail(field, `one of ${values.join(', ')}`);
    return v as T;
  }
}

function readPrices(r: RowReader): ModelPrices | null {
  const v = r.row.prices;
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object' || Array.isArray(v)) r.fail('prices', 'an object or null');
  const p = v as Record<string, unknown>;
  const prices: ModelPrices = { input: r.num('input', p), cachedInput: r.num('cachedInput', p), cacheWrite: r.num('cacheWrite', p), output: r.num('output', p) };
  if (p.tiers !== undefined) {
    if (!Array.isArray(p.tiers)) r.fail('prices.tiers', 'a list');
    prices.tiers = (p.tiers as Record<string, unknown>[]).map((t) => {
      if (!t || typeof t !== 'object') r.fail('prices.tiers', 'a list of objects');
      return {
        aboveInputTokens: r.num('aboveInputTokens', t),
        input: r.num('input', t),
        cachedInput: r.num('cachedInput', t),
        cacheWrite: r.num('cacheWrite', t),
        output: r.num('output', t),
      };
    });
    prices.tiers.sort((a, b) => a.aboveInputTokens - b.aboveInputTokens);
  }
  if (p.batchDiscount !== undefined) {
    const d = r.num('batchDiscount', p);
    if (d > 1) r.fail('prices.batchDiscount', 'a multiplier between 0 and 1');
    prices.batchDiscount = d;
  }
  return prices;
}

function readThinking(r: RowReader): ModelThinking {
  const t = r.object('thinking');
  const style = r.oneOf('style', STYLES, t);
  const levels = r.strings('levels', t).map((l) => l.toLowerCase());
  let budget: ModelThinking['budget'];
  if (t.budget !== undefined && t.budget !== null) {
    const b = t.budget as Record<string, unknown>;
    budget = { min: r.num('min', b), max: r.num('max', b), off: r.bool('off', b, false) };
  }
  if (style === 'budget' && !budget) r.fail('thinking.budget', 'given for thinking style "budget" ({min, max, off})');
  if ((style === 'level' || style === 'adaptive') && !levels.length) r.fail('thinking.levels', `a non-empty list for thinking style "${style}"`);
  const send = t.send ?? null;
  if (send !== null) {
    if (style === 'none') r.fail('thinking.send', 'null for a model that does not think');
    if (typeof send === 'number') {
      if (!budget || send < (budget.off ? 0 : budget.min) || send > budget.max) r.fail('thinking.send', 'a budget within thinking.budget');
    } else if (typeof send !== 'string' || !levels.includes(send.toLowerCase())) {
      r.fail('thinking.send', `one of thinking.levels (${levels.join(', ') || 'none'}), a budget, or null`);
    }
  }
  let withTools: string[] | undefined;
  if (t.withTools !== undefined) {
    withTools = r.strings('withTools', t).map((l) => l.toLowerCase());
    const unknown = withTools.find((l) => !levels.includes(l));
    if (unknown) r.fail('thinking.withTools', `a subset of thinking.levels ("${unknown}" is not a level)`);
  }
  return {
    style,
    ...(levels.length ? { levels } : {}),
    ...(budget ? { budget } : {}),
    send: typeof send === 'string' ? send.toLowerCase() : send,
    ...(withTools ? { withTools } : {}),
  };
}

function readRow(file: string, raw: unknown, i: number): ModelRow {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new UserError(`${file}: models[${i}] is not an object`, 'each row is {provider, id, kind, status, ...}: see docs/models.md');
  }
  const obj = raw as Record<string, unknown>;
  const r0 = new RowReader(file, `models[${i}]`, obj);
  const provider = r0.oneOf('provider', PROVIDERS);
  const id = r0.str('id');
  const r = new RowReader(file, `models[${i}] (${provider}/${id})`, obj);
  const sampling = obj.sampling && typeof obj.sampling === 'object' ? (obj.sampling as Record<string, unknown>) : {};
  const sources = Array.isArray(obj.sources) ? obj.sources : r.fail('sources', 'a list of {url, read}');
  return {
    provider,
    id: canonicalModel(id),
    aliases: r.strings('aliases').map(canonicalModel),
    kind: r.oneOf('kind', ['chat', 'embedding'] as const),
    status: r.oneOf('status', STATUSES),
    released: r.dateOrNull('released'),
    shutdown: r.dateOrNull('shutdown'),
    replacement: r.strOrNull('replacement'),
    default: r.bool('default', obj, false),
    prices: readPrices(r),
    contextWindow: r.numOrNull('contextWindow'),
    maxOutputTokens: r.numOrNull('maxOutputTokens'),
    thinking: obj.kind === 'embedding' && obj.thinking === undefined ? { style: 'none', send: null } : readThinking(r),
    sampling: { temperature: r.bool('temperature', sampling, false), topP: r.bool('topP', sampling, false) },
    promptCacheMinTokens: r.numOrNull('promptCacheMinTokens'),
    sources: (sources as Record<string, unknown>[]).map((s) => {
      if (!s || typeof s.url !== 'string' || !/^https?:\/\//.test(s.url) || typeof s.read !== 'string') r.fail('sources', 'a list of {url: "https://...", read: "YYYY-MM-DD", facts?}');
      return { url: String(s.url), read: String(s.read), ...(typeof s.facts === 'string' ? { facts: s.facts } : {}) };
    }),
    unconfirmed: r.strings('unconfirmed'),
    ...(typeof obj.note === 'string' ? { note: obj.note } : {}),
  };
}

/** Parses and validates one table file's text; throws a UserError naming the file, the row and the field. */
export function parseModelTable(text: string, file: string): { reviewed: string; models: ModelRow[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UserError(`${file}: not valid JSON (${(err as Error).message})`, 'fix the JSON syntax');
  }
  if (!json || typeof json !== 'object' || !Array.isArray((json as { models?: unknown }).models)) {
    throw new UserError(`${file}: expected {"reviewed": "YYYY-MM-DD", "models": [...]}`, 'see docs/models.md for the table format');
  }
  const obj = json as { reviewed?: unknown; models: unknown[] };
  const reviewed = typeof obj.reviewed === 'string' && DATE.test(obj.reviewed) ? obj.reviewed : '';
  if (!reviewed) throw new UserError(`${file}: field "reviewed" must be the date the rows were checked (YYYY-MM-DD)`, 'add it');
  const models = obj.models.map((m, i) => readRow(file, m, i));
  const seen = new Map<string, number>();
  models.forEach((m, i) => {
    for (const name of [m.id, ...m.aliases]) {
      const key = `${m.provider}/${name}`;
      if (seen.has(key)) throw new UserError(`${file}: models[${i}] repeats ${key} (also models[${seen.get(key)}])`, 'keep one row per model');
      seen.set(key, i);
    }
  });
  return { reviewed, models };
}

/** Shipped rows, then the user's rows: a user row with the same provider and id replaces the shipped one. */
export function mergeTables(base: { reviewed: string; models: ModelRow[] }, extra: { reviewed: string; models: ModelRow[] }): ModelRow[] {
  const replaced = new Set(extra.models.map((m) => `${m.provider}/${m.id}`));
  const merged = base.models.filter((m) => !replaced.has(`${m.provider}/${m.id}`));
  // A user's default replaces the shipped default of that provider and kind.
  for (const m of extra.models) {
    if (m.default) for (const b of merged) if (b.provider === m.provider && b.kind === m.kind) b.default = false;
  }
  return [...merged, ...extra.models];
}

function checkDefaults(models: ModelRow[], file: string): void {
  for (const p of PROVIDERS) {
    const defaults = models.filter((m) => m.provider === p && m.kind === 'chat' && m.default);
    if (defaults.length !== 1) {
      throw new UserError(`${file}: ${defaults.length} default chat models for ${p} (exactly one row per provider has "default": true)`, 'fix the "default" fields');
    }
  }
}

let loaded: ModelTable | null = null;

/** The table in use: shipped rows plus $SKILLBENCH_MODEL_TABLE's. Read once per process. */
export function modelTable(env: NodeJS.ProcessEnv = process.env): ModelTable {
  if (loaded && loaded.files[1] === (env[USER_TABLE_VAR] || undefined)) return loaded;
  const base = parseModelTable(readFileSync(SHIPPED_TABLE, 'utf8'), SHIPPED_TABLE);
  const userFile = env[USER_TABLE_VAR]?.trim() || undefined;
  let models = base.models;
  let reviewed = base.reviewed;
  if (userFile) {
    let text: string;
    try {
      text = readFileSync(userFile, 'utf8');
    } catch (err) {
      throw new UserError(`${USER_TABLE_VAR}: cannot read ${userFile} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'point it at a JSON model table, or unset it');
    }
    const extra = parseModelTable(text, userFile);
    models = mergeTables(base, extra);
    reviewed = extra.reviewed < reviewed ? extra.reviewed : reviewed;
  }
  checkDefaults(models, userFile ?? SHIPPED_TABLE);
  loaded = { reviewed, models, files: userFile ? [SHIPPED_TABLE, userFile] : [SHIPPED_TABLE] };
  return loaded;
}

// ---------------------------------------------------------------- lookups

/** Model id as the table spells it: no `models/` prefix, no date (`-20251001`, `@20251001`) suffix. */
export function canonicalModel(model: string): string {
  return model
    .trim()
    .replace(/^models\//, '')
    .replace(/-(\d{8})$/, '')
    .replace(/@\d{8}$/, '');
}

/** The row of `model` (its id, an alias, or a dated snapshot of either), or null when the table does not know it. */
export function findModel(provider: ProviderId, model: string, table: ModelTable = modelTable()): ModelRow | null {
  const exact = model.trim().replace(/^models\//, '');
  const canon = canonicalModel(model);
  for (const name of [exact, canon]) {
    const row = table.models.find((m) => m.provider === provider && (m.id === name || m.aliases.includes(name)));
    if (row) return row;
  }
  return null;
}

export function defaultModel(provider: ProviderId, kind: 'chat' | 'embedding' = 'chat', table: ModelTable = modelTable()): ModelRow | null {
  return table.models.find((m) => m.provider === provider && m.kind === kind && m.default) ?? null;
}

/** Days from `from` to `to` (YYYY-MM-DD or YYYY-MM; a month means its first day). */
export function daysBetween(from: string, to: string): number {
  const d = (s: string) => Date.parse(s.length === 7 ? `${s}-01` : s);
  return Math.round((d(to) - d(from)) / 86_400_000);
}

export function today(env: NodeJS.ProcessEnv = process.env): string {
  // SKILLBENCH_TODAY pins the date for tests of the retirement checks.
  return env.SKILLBENCH_TODAY && DATE.test(env.SKILLBENCH_TODAY) ? env.SKILLBENCH_TODAY : new Date().toISOString().slice(0, 10);
}

/** Past its shutdown date, or marked retired. */
export function isRetired(row: ModelRow, on: string): boolean {
  return row.status === 'retired' || (row.shutdown !== null && daysBetween(on, row.shutdown) <= 0);
}
