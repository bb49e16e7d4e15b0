// The embedding vector cache: compact binary segment files, one folder per provider and model, written as vectors come
// (a run killed halfway keeps what it computed). Format (docs/cache.md):
//
//   <cacheDir>/embeddings/<provider>--<model>/<segment>.sbv     segment files, each a sequence of records:
//     u32 magic "SBV1" (0x31564253 little-endian) | u32 dimensions | u32 written at (unix seconds) | 32-byte key |
//     float32 x dimensions                                          (little-endian throughout)
//
// Each process appends to a segment of its own (never to another's): appends from concurrent runs cannot interleave,
// and a kill leaves at most a torn last record in that one file, which readers stop before. `skillbench cache prune`
// rewrites a folder's segments into one (latest record per key, torn tails dropped, old records dropped on request).
// Vectors are float32: a vector is rounded to float32 before its first use too, so a replay gives the same scores.
// The 512-d offline vectors take 2,092 bytes each (the former one-JSON-file-per-vector took about 12 KB).
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { appendFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson } from './cache.js';
import { mkdirp } from './fsutil.js';
import type { EmbeddingRole } from './types.js';

export const SEGMENT_EXT = '.sbv';
const MAGIC = 0x31564253; // "SBV1" read as a little-endian u32
const HEADER = 44;
/** Bump when the key recipe changes: vectors of the old recipe are then not found (never misread). */
export const VECTOR_KEY_VERSION = 2;

/**
 * What each embedding provider reads of an input, hence what its cache key holds: the offline model and OpenAI embed
 * the text alone (a renamed copy of a skill is the same text: found in the cache), Gemini's documents carry their
 * title and its queries a task prefix.
 */
const KEY_FIELDS: Record<string, { role: boolean; title: boolean }> = {
  use: { role: false, title: false },
  openai: { role: false, title: false },
  gemini: { role: true, title: true },
};

/** The 32-byte key of an input for a provider (sha256 of what the provider reads). */
export function vectorKey(provider: string, role: EmbeddingRole, title: string | undefined, text: string): Buffer {
  const fields = KEY_FIELDS[provider] ?? { role: true, title: true };
  const keyed = { v: VECTOR_KEY_VERSION, text, ...(fields.role ? { role } : {}), ...(fields.title ? { title: title ?? null } : {}) };
  return createHash('sha256').update(canonicalJson(keyed)).digest();
}

/** The folder of a provider's and model's vectors. */
export function vectorDir(cacheDir: string, provider: string, model: string): string {
  const safeModel = model.replace(/[^A-Za-z0-9._-]+/g, '_');
  return path.join(path.resolve(cacheDir), 'embeddings', `${provider}--${safeModel}`);
}

/** One record as read back. */
export interface VectorRecord {
  key: Buffer;
  writtenAt: number;
  vector: Float32Array;
}

/** The records of one segment, in order, and the bytes after the last whole record (a torn or foreign tail). */
export function readSegment(bytes: Buffer): { records: VectorRecord[]; badBytes: number } {
  const records: VectorRecord[] = [];
  let at = 0;
  while (at + HEADER <= bytes.length) {
    if (bytes.readUInt32LE(at) !== MAGIC) break;
    const dims = bytes.readUInt32LE(at + 4);
    const end = at + HEADER + dims * 4;
    if (dims === 0 || end > bytes.length) break;
    const vector = new Float32Array(dims);
    for (let i = 0; i < dims; i++) vector[i] = bytes.readFloatLE(at + HEADER + i * 4);
    records.push({ key: Buffer.from(bytes.subarray(at + 12, at + 44)), writtenAt: bytes.readUInt32LE(at + 8), vector });
    at = end;
  }
  return { records, badBytes: bytes.length - at };
}

/** The bytes of records, ready to append in one write. */
export function encodeRecords(records: VectorRecord[]): Buffer {
  const size = records.reduce((s, r) => s + HEADER + r.vector.length * 4, 0);
  const out = Buffer.alloc(size);
  let at = 0;
  for (const r of records) {
    out.writeUInt32LE(MAGIC, at);
    out.writeUInt32LE(r.vector.length, at + 4);
    out.writeUInt32LE(r.writtenAt >>> 0, at + 8);
    r.key.copy(out, at + 12);
    for (let i = 0; i < r.vector.length; i++) out.writeFloatLE(r.vector[i]!, at + HEADER + i * 4);
    at += HEADER + r.vector.length * 4;
  }
  return out;
}

export function segmentFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(SEGMENT_EXT))
      .sort()
      .map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

/**
 * The vectors of one provider and model: every segment read once (on first use), new vectors appended to this
 * process's own segment as they come. One store per folder per process, shared by every embedder.
 */
export class VectorStore {
  private static readonly open = new Map<string, VectorStore>();
  private vectors: Map<string, Float32Array> | null = null;
  private segment: string | null = null;
  private made = false;
  /** Problems met (unreadable segment, a write that failed): the run goes on, the vectors are recomputed next time. */
  readonly warnings: string[] = [];

  private constructor(readonly dir: string) {}

  static for(cacheDir: string, provider: string, model: string): VectorStore {
    const dir = vectorDir(cacheDir, provider, model);
    let store = VectorStore.open.get(dir);
    if (!store) VectorStore.open.set(dir, (store = new VectorStore(dir)));
    return store;
  }

  /** Forgets every open store (tests: a folder changed behind the process's back). */
  static closeAll(): void {
    VectorStore.open.clear();
  }

  private load(): Map<string, Float32Array> {
    if (this.vectors) return this.vectors;
    const vectors = new Map<string, Float32Array>();
    for (const file of segmentFiles(this.dir)) {
      try {
        for (const r of readSegment(readFileSync(file)).records) vectors.set(r.key.toString('hex'), r.vector);
      } catch (err) {
        this.warn(`embeddings cache: cannot read ${file}: ${(err as Error).message}`);
      }
    }
    this.vectors = vectors;
    return vectors;
  }

  get(key: Buffer): number[] | null {
    const v = this.load().get(key.toString('hex'));
    return v ? Array.from(v) : null;
  }

  /** Appends vectors (one write), keeps them for later lookups; a failed write is a warning, never an error. */
  async put(entries: { key: Buffer; vector: number[] }[]): Promise<void> {
    if (entries.length === 0) return;
    const writtenAt = Math.floor(Date.now() / 1000);
    const records = entries.map((e) => ({ key: e.key, writtenAt, vector: Float32Array.from(e.vector) }));
    const vectors = this.load();
    for (const r of records) vectors.set(r.key.toString('hex'), r.vector);
    this.segment ??= path.join(this.dir, `${Date.now().toString(36)}-${process.pid}-${randomBytes(4).toString('hex')}${SEGMENT_EXT}`);
    try {
      if (!this.made) {
        await mkdirp(this.dir);
        this.made = true;
      }
      await appendFile(this.segment, encodeRecords(records));
    } catch (err) {
      this.warn(`embeddings cache: cannot write ${this.segment}: ${(err as Error).message}`);
    }
  }

  private warn(message: string): void {
    if (this.warnings.length < 20) this.warnings.push(message);
  }
}

/** A vector as float32 would store it: what a replay reads back, so the first run scores exactly as replays do. */
export function toFloat32(vector: number[]): number[] {
  return vector.map((x) => Math.fround(x));
}

// ---------------------------------------------------------------- size and pruning (skillbench cache)

export interface VectorFolderStats {
  folder: string;
  segments: number;
  vectors: number;
  /** Records superseded by a later one of the same key (dropped by prune). */
  duplicates: number;
  bytes: number;
  badBytes: number;
}

export function vectorFolderStats(dir: string): VectorFolderStats {
  const keys = new Set<string>();
  const st: VectorFolderStats = { folder: dir, segments: 0, vectors: 0, duplicates: 0, bytes: 0, badBytes: 0 };
  for (const file of segmentFiles(dir)) {
    const bytes = readFileSync(file);
    const { records, badBytes } = readSegment(bytes);
    st.segments++;
    st.bytes += statSync(file).size;
    st.badBytes += badBytes;
    for (const r of records) {
      const k = r.key.toString('hex');
      if (keys.has(k)) st.duplicates++;
      else keys.add(k);
    }
  }
  st.vectors = keys.size;
  return st;
}

/**
 * Rewrites a folder's segments into one: the latest record of each key, written at or after `keepSince` (unix
 * seconds; 0 keeps all). The new segment is written whole, then the old ones removed: a crash in between leaves
 * duplicates, never a loss. Returns the vectors kept and dropped.
 */
export async function compactVectorFolder(dir: string, keepSince = 0): Promise<{ kept: number; dropped: number; bytesBefore: number; bytesAfter: number }> {
  const files = segmentFiles(dir);
  const latest = new Map<string, VectorRecord>();
  let records = 0;
  let bytesBefore = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    bytesBefore += bytes.length;
    for (const r of readSegment(bytes).records) {
      records++;
      const k = r.key.toString('hex');
      const prev = latest.get(k);
      if (!prev || r.writtenAt >= prev.writtenAt) latest.set(k, r);
    }
  }
  const kept = [...latest.values()].filter((r) => r.writtenAt >= keepSince);
  let bytesAfter = 0;
  if (kept.length > 0) {
    const data = encodeRecords(kept);
    const target = path.join(dir, `${Date.now().toString(36)}-pruned-${randomBytes(4).toString('hex')}${SEGMENT_EXT}`);
    await writeFile(`${target}.tmp`, data);
    await rename(`${target}.tmp`, target);
    bytesAfter = data.length;
  }
  for (const f of files) await unlink(f).catch(() => undefined);
  VectorStore.closeAll();
  return { kept: kept.length, dropped: records - kept.length, bytesBefore, bytesAfter };
}
