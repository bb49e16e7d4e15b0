// The JSON response cache: one file per response, named by the sha256 of everything that determines the response.
// Format documented in docs/cache.md (stable: a repository may commit its cache so CI replays it).
//
// Safety: a write goes to a unique temp file in the entry's folder, then rename() (atomic on POSIX): a reader sees the
// old entry, no entry, or the whole new entry, never half of one; concurrent writers of one key write the same bytes
// and the last rename wins; a kill -9 at any point leaves at most a stray `*.tmp` file, which readers never open.
// Only successful responses are written; requests are stored as a summary, and no header or key is ever written.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChatResponse, ProviderId } from './types.js';

/** Bump when the key recipe or the entry layout changes: old entries are then simply not found (never misread). */
export const CACHE_FORMAT_VERSION = 1;
export const CACHE_SCHEMA = 'skillbench.cache';

/** JSON with object keys sorted at every depth, `undefined` members dropped (as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const s = JSON.stringify(value);
    return s === undefined ? 'null' : s;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined || typeof v === 'function' ? 'null' : canonicalJson(v))).join(',')}]`;
  const keys = Object.keys(value as object).sort();
  const parts: string[] = [];
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined || typeof v === 'function') continue;
    parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
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
    .update(canonicalJson({ v: CACHE_FORMAT_VERSION, op: parts.op, provider: parts.provider, model: parts.model, request: parts.request, sample: parts.sample }))
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
      text = await readFile(file, 'utf8');
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
    if (!this.madeDirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.madeDirs.add(dir);
    }
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, text, { flag: 'wx' });
      await rename(tmp, file);
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
  if (e.op === 'countTokens') return typeof e.tokens === 'number' ? (e as CacheEntry) : 'countTokens entry without tokens';
  const r = e.response;
  if (!r || typeof r !== 'object' || !Array.isArray(r.calls) || typeof r.text !== 'string' || !r.usage || typeof r.usage.inputTokens !== 'number') {
    return 'response is missing calls, text or usage';
  }
  return e as CacheEntry;
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
    const v = JSON.parse(await readFile(file, 'utf8')) as { vector?: unknown };
    return Array.isArray(v.vector) && v.vector.every((x) => typeof x === 'number') ? (v.vector as number[]) : null;
  } catch {
    return null;
  }
}

export async function writeVector(file: string, body: Record<string, unknown>): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, JSON.stringify(body), { flag: 'wx' });
    await rename(tmp, file);
  } catch {
    await unlink(tmp).catch(() => undefined);
  }
}
