// The JSON response cache: one file per response, named by the sha256 of everything that determines the response.
// Format documented in docs/cache.md (stable: a repository may commit its cache so CI replays it).
//
// Safety: a write goes to a unique temp file in the entry's folder, then rename() (atomic on POSIX): a reader sees the
// old entry, no entry, or the whole new entry, never half of one; concurrent writers of one key write the same bytes
// and the last rename wins; a kill -9 at any point leaves at most a stray `*.tmp` file, which readers never open.
// Only successful responses are written; requests are stored as a summary, and no header or key is ever written.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import { mkdirp } from './fsutil.js';
import type { ChatRequest, ChatResponse, ProviderId } from './types.js';

/** Bump when the key recipe or the entry layout changes: old entries are then simply not found (never misread). */
export const CACHE_FORMAT_VERSION = 1;
export const CACHE_SCHEMA = 'skillbench.cache';

/** Strings at least this long are keyed by their sha256 (memoised), so a catalogue prompt sent with thousands of
 * requests is hashed once per run instead of once per request. */
const LONG_STRING = 1024;
const digestMemo = new Map<string, string>();

function longStringToken(s: string): string {
  let d = digestMemo.get(s);
  if (d === undefined) {
    if (digestMemo.size >= 4096) digestMemo.clear();
    d = `#${createHash('sha256').update(s).digest('hex')}`;
    digestMemo.set(s, d);
  }
  return d;
}

/** Long arrays of primitives (a tool's enum of every skill name) recur in every request of a run: their encoding is
 * remembered per array object, and reused only while every element is still the same (checked each time, so a
 * mutated array is re-encoded: the memo can never give a stale key). */
const arrayMemo = new WeakMap<unknown[], { items: unknown[]; json: string }>();

function primitiveArrayJson(arr: unknown[]): string {
  const m = arrayMemo.get(arr);
  if (m && m.items.length === arr.length && m.items.every((v, i) => v === arr[i])) return m.json;
  const json = `[${arr.map((v) => (v === undefined || typeof v === 'function' ? 'null' : canonicalJson(v, true))).join(',')}]`;
  if (arr.every((v) => v === null || typeof v !== 'object')) arrayMemo.set(arr, { items: [...arr], json });
  return json;
}

/**
 * JSON with object keys sorted at every depth, `undefined` members dropped (as JSON.stringify does).
 * With `digestLongStrings`, a string of 1,024+ characters is written as `#<sha256 hex>` (unquoted, so it can never equal
 * a real string's encoding): the form stays injective up to sha256 collisions, and is what cache keys hash.
 */
export function canonicalJson(value: unknown, digestLongStrings = false): string {
  if (typeof value === 'string') return digestLongStrings && value.length >= LONG_STRING ? longStringToken(value) : JSON.stringify(value);
  if (value === null || typeof value !== 'object') {
    const s = JSON.stringify(value);
    return s === undefined ? 'null' : s;
  }
  if (Array.isArray(value)) {
    if (digestLongStrings && value.length >= 16) return primitiveArrayJson(value);
    return `[${value.map((v) => (v === undefined || typeof v === 'function' ? 'null' : canonicalJson(v, digestLongStrings))).join(',')}]`;
  }
  const keys = Object.keys(value as object).sort();
  const parts: string[] = [];
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined || typeof v === 'function') continue;
    parts.push(`${JSON.stringify(k)}:${canonicalJson(v, digestLongStrings)}`);
  }
  return `{${parts.join(',')}}`;
}

export interface KeyParts {
  /** 'chat' or 'countTokens'. */
  op: 'chat' | 'countTokens';
  provider: ProviderId;
  model: string;
  /** The full request (system, messages, tools, settings), as sent to the provider adapter. */
  request: unknown;
  /** Repeat index of the same request (--runs); 0 for the first. */
  sample: number;
}

export function cacheKey(parts: KeyParts): string {
  return createHash('sha256')
    .update(canonicalJson({ v: CACHE_FORMAT_VERSION, op: parts.op, provider: parts.provider, model: parts.model, request: parts.request, sample: parts.sample }, true))
    .digest('hex');
}

export interface CacheEntry {
  schema: typeof CACHE_SCHEMA;
  version: number;
  key: string;
  op: 'chat' | 'countTokens';
  provider: ProviderId;
  model: string;
  sample: number;
  createdAt: string;
  /** What the request was, for a human reading the file (not used for lookup). */
  summary: Record<string, unknown>;
  /** op chat: the ChatResponse. */
  response?: ChatResponse;
  /** op chat: list price of the response's usage when it was made (a loopback server is free), replayed as is. */
  costUsd?: number;
  /** op countTokens: the count. */
  tokens?: number;
}

export interface CacheStats {
  hits: number;
  misses: number;
  writes: number;
  /** Entries that could not be read or failed validation: ignored (and overwritten by the next answer). */
  corrupt: number;
  warnings: string[];
}

export class ResponseCache {
  readonly dir: string;
  readonly stats: CacheStats = { hits: 0, misses: 0, writes: 0, corrupt: 0, warnings: [] };
  private readonly madeDirs = new Set<string>();
  /** Bounds open files when thousands of answers are written at once (EMFILE otherwise). */
  private readonly io = pLimit(64);
  /** Strings that must never reach a cache file (API keys). */
  private readonly secrets: string[];

  constructor(dir: string, opts: { secrets?: (string | undefined)[] } = {}) {
    this.dir = path.resolve(dir);
    this.secrets = (opts.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 6);
  }

  fileOf(key: string): string {
    return path.join(this.dir, 'responses', `v${CACHE_FORMAT_VERSION}`, key.slice(0, 2), `${key}.json`);
  }

  /** The entry, or null when absent or corrupt (a corrupt one is reported in stats.warnings, never thrown). */
  async get(key: string): Promise<CacheEntry | null> {
    const file = this.fileOf(key);
    let text: string;
    try {
      // Synchronous on purpose: an entry is a few KB on a local disk (tens of microseconds), and skipping the
      // thread pool's open/stat/read/close round trips makes a 10,000-entry replay about 3x faster.
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.warn(`cache: cannot read ${file}: ${(err as Error).message}`);
      this.stats.misses++;
      return null;
    }
    const entry = parseEntry(text, key);
    if (typeof entry === 'string') {
      this.stats.corrupt++;
      this.warn(`cache: ignored corrupt entry ${file}: ${entry}`);
      this.stats.misses++;
      return null;
    }
    this.stats.hits++;
    return entry;
  }

  async put(entry: CacheEntry): Promise<void> {
    const file = this.fileOf(entry.key);
    const text = `${JSON.stringify(entry, null, 1)}\n`;
    for (const s of this.secrets) {
      if (text.includes(s)) {
        this.warn(`cache: entry ${entry.key} not written: it contains an API key`);
        return;
      }
    }
    const dir = path.dirname(file);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const write = () =>
      this.io(async () => {
        await writeFile(tmp, text, { flag: 'wx' });
        await rename(tmp, file);
      });
    try {
      // mkdirp, not a recursive mkdir: a --cache-dir under /proc must fail (a warning), not hang the run.
      if (!this.madeDirs.has(dir)) {
        await mkdirp(dir);
        this.madeDirs.add(dir);
      }
      try {
        await write();
      } catch (err) {
        // The folder was removed during the run (a user clearing the cache): make it again, once.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        await mkdirp(dir);
        await write();
      }
      this.stats.writes++;
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      this.warn(`cache: cannot write ${file}: ${(err as Error).message}`);
    }
  }

  private warn(message: string): void {
    if (this.stats.warnings.length < 100) this.stats.warnings.push(message);
  }
}

/** The entry the client writes for a request (`req` is the full request, model and thinking included). */
export function makeEntry(
  key: string,
  op: 'chat' | 'countTokens',
  provider: ProviderId,
  req: ChatRequest,
  sample: number,
  body: { response?: ChatResponse; costUsd?: number; tokens?: number },
): CacheEntry {
  return {
    schema: CACHE_SCHEMA,
    version: CACHE_FORMAT_VERSION,
    key,
    op,
    provider,
    model: req.model,
    sample,
    createdAt: new Date().toISOString(),
    summary: summarise(req),
    ...body,
  };
}

/** What a human reading the file needs to recognise the request; never used for lookup. */
function summarise(req: ChatRequest): Record<string, unknown> {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  return {
    lastUser: last && last.role === 'user' ? last.content.slice(0, 300) : null,
    messages: req.messages.length,
    tools: req.tools.map((t) => t.name),
    systemChars: req.system.reduce((a, b) => a + b.text.length, 0),
    thinking: req.thinking,
  };
}

/** A valid entry, or the reason it is not. */
export function parseEntry(text: string, key: string): CacheEntry | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'not valid JSON';
  }
  if (!v || typeof v !== 'object') return 'not an object';
  const e = v as Partial<CacheEntry>;
  if (e.schema !== CACHE_SCHEMA) return `schema is not "${CACHE_SCHEMA}"`;
  if (e.version !== CACHE_FORMAT_VERSION) return `version ${String(e.version)} is not ${CACHE_FORMAT_VERSION}`;
  if (e.key !== key) return 'key does not match the file name';
  if (e.op === 'countTokens') return isCount(e.tokens) ? (e as CacheEntry) : 'countTokens entry without a token count';
  if (e.op !== 'chat') return `op ${JSON.stringify(e.op)} is not chat or countTokens`;
  if (e.costUsd !== undefined && !(typeof e.costUsd === 'number' && Number.isFinite(e.costUsd) && e.costUsd >= 0)) return 'costUsd is not a number >= 0';
  const problem = responseProblem(e.response);
  return problem ?? (e as CacheEntry);
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
const USAGE_FIELDS = ['inputTokens', 'cachedInputTokens', 'cacheWriteTokens', 'outputTokens', 'thinkingTokens'] as const;
const ANSWERED = new Set(['stop', 'tool']);

/**
 * Why a cached response cannot be served, or null: every field the callers read is checked for its type (a bad
 * entry is ignored and fetched again, never a crash or a figure made of strings), and a response that ended without
 * an answer (length, safety, refusal) is not an answer to replay.
 */
export function responseProblem(r: unknown): string | null {
  if (!r || typeof r !== 'object') return 'response is missing';
  const resp = r as Partial<ChatResponse>;
  if (!Array.isArray(resp.calls)) return 'response.calls is not a list';
  for (const [i, c] of resp.calls.entries()) {
    if (!c || typeof c !== 'object') return `response.calls[${i}] is not an object`;
    if (typeof c.name !== 'string') return `response.calls[${i}].name is not a string`;
    if (typeof c.id !== 'string') return `response.calls[${i}].id is not a string`;
    if (!c.args || typeof c.args !== 'object' || Array.isArray(c.args)) return `response.calls[${i}].args is not an object`;
  }
  if (typeof resp.text !== 'string') return 'response.text is not a string';
  if (!resp.usage || typeof resp.usage !== 'object') return 'response.usage is missing';
  for (const f of USAGE_FIELDS) if (!isCount(resp.usage[f])) return `response.usage.${f} is not a number >= 0`;
  if (resp.stopReason !== undefined && typeof resp.stopReason !== 'string') return 'response.stopReason is not a string';
  if (resp.stopKind !== undefined && (typeof resp.stopKind !== 'string' || (!ANSWERED.has(resp.stopKind) && !resp.calls.length))) {
    return `response ended without an answer (stop reason ${String(resp.stopKind)})`;
  }
  return null;
}

/** Where embedding vectors go: <cacheDir>/embeddings/<provider>--<model>/<sha256(role, title, text)>.json. */
export function embeddingFile(cacheDir: string, provider: string, model: string, key: string): string {
  const safeModel = model.replace(/[^A-Za-z0-9._-]+/g, '_');
  return path.join(path.resolve(cacheDir), 'embeddings', `${provider}--${safeModel}`, `${key}.json`);
}

export function embeddingKey(role: string, title: string | undefined, text: string): string {
  return createHash('sha256').update(canonicalJson({ v: CACHE_FORMAT_VERSION, role, title: title ?? null, text })).digest('hex');
}

export async function readVector(file: string): Promise<number[] | null> {
  try {
    // Synchronous like ResponseCache.get: thousands of small local files, no thread-pool round trips, no EMFILE.
    const v = JSON.parse(readFileSync(file, 'utf8')) as { vector?: unknown };
    return Array.isArray(v.vector) && v.vector.every((x) => typeof x === 'number') ? (v.vector as number[]) : null;
  } catch {
    return null;
  }
}

const vectorIo = pLimit(64);

/** Writes a vector atomically; a failure (read-only or full disk) only costs recomputing it next time. */
export async function writeVector(file: string, body: Record<string, unknown>): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await vectorIo(async () => {
      await mkdirp(path.dirname(file));
      await writeFile(tmp, JSON.stringify(body), { flag: 'wx' });
      await rename(tmp, file);
    });
  } catch {
    await unlink(tmp).catch(() => undefined);
  }
}
