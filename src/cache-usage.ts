// What the cache folder holds and how big it is (`skillbench cache`), and pruning it (`skillbench cache prune`):
// responses (one JSON file each, src/cache.ts), embedding vectors (binary segments per provider and model,
// src/embedding-store.ts), and the one-JSON-file-per-vector files of earlier versions, which are no longer read.
import { readdirSync, statSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { compactVectorFolder, SEGMENT_EXT, vectorFolderStats } from './embedding-store.js';

export interface CachePart {
  /** "responses", "embeddings <provider>--<model>", "legacy vector files <provider>--<model>". */
  part: string;
  kind: 'responses' | 'embeddings' | 'legacy';
  folder: string;
  /** Responses, vectors (distinct keys), or legacy files. */
  entries: number;
  files: number;
  bytes: number;
  /** Embeddings: records superseded by a later one of the same key, and bytes of torn records (prune drops both). */
  superseded?: number;
  badBytes?: number;
}

export interface CacheUsage {
  dir: string;
  parts: CachePart[];
  files: number;
  bytes: number;
}

/** Every regular file below a folder (none when it does not exist). */
function filesBelow(dir: string): { file: string; size: number; mtimeMs: number }[] {
  const out: { file: string; size: number; mtimeMs: number }[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const st = statSync(p);
        out.push({ file: p, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  walk(dir);
  return out;
}

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

export function cacheUsage(cacheDir: string): CacheUsage {
  const dir = path.resolve(cacheDir);
  const parts: CachePart[] = [];
  const responses = filesBelow(path.join(dir, 'responses'));
  if (responses.length) {
    const entries = responses.filter((f) => f.file.endsWith('.json')).length;
    parts.push({ part: 'responses', kind: 'responses', folder: path.join(dir, 'responses'), entries, files: responses.length, bytes: sum(responses) });
  }
  for (const name of subfolders(path.join(dir, 'embeddings'))) {
    const folder = path.join(dir, 'embeddings', name);
    const files = filesBelow(folder);
    const segments = files.filter((f) => f.file.endsWith(SEGMENT_EXT));
    if (segments.length) {
      const st = vectorFolderStats(folder);
      parts.push({ part: `embeddings ${name}`, kind: 'embeddings', folder, entries: st.vectors, files: st.segments, bytes: st.bytes, superseded: st.duplicates, badBytes: st.badBytes });
    }
    const legacy = files.filter((f) => f.file.endsWith('.json'));
    if (legacy.length) parts.push({ part: `legacy vector files ${name}`, kind: 'legacy', folder, entries: legacy.length, files: legacy.length, bytes: sum(legacy) });
  }
  return { dir, parts, files: parts.reduce((s, p) => s + p.files, 0), bytes: parts.reduce((s, p) => s + p.bytes, 0) };
}

function sum(files: { size: number }[]): number {
  return files.reduce((s, f) => s + f.size, 0);
}

export interface PruneOptions {
  /** Drop responses and vectors written more than this many days ago (default: keep them all). */
  olderThanDays?: number;
  now?: number;
}

export interface PruneReport {
  before: CacheUsage;
  after: CacheUsage;
  responsesRemoved: number;
  vectorsDropped: number;
  legacyRemoved: number;
}

/**
 * Compacts every embeddings folder into one segment (superseded and torn records dropped), removes the legacy
 * one-file-per-vector files, and, with olderThanDays, drops responses and vectors written before that. Leftover
 * `*.tmp` files of interrupted writes older than an hour go too. Do not prune while a run writes to the same cache:
 * vectors it appends during the compaction may be lost (and recomputed next time).
 */
export async function pruneCache(cacheDir: string, opts: PruneOptions = {}): Promise<PruneReport> {
  const now = opts.now ?? Date.now();
  const cutoffMs = opts.olderThanDays === undefined ? 0 : now - opts.olderThanDays * 86_400_000;
  const before = cacheUsage(cacheDir);
  let responsesRemoved = 0;
  let vectorsDropped = 0;
  let legacyRemoved = 0;
  const dir = path.resolve(cacheDir);
  for (const f of filesBelow(path.join(dir, 'responses'))) {
    const stale = f.file.endsWith('.tmp') && f.mtimeMs < now - 3_600_000;
    if (stale || (f.file.endsWith('.json') && f.mtimeMs < cutoffMs)) {
      await unlink(f.file).catch(() => undefined);
      if (!stale) responsesRemoved++;
    }
  }
  for (const name of subfolders(path.join(dir, 'embeddings'))) {
    const folder = path.join(dir, 'embeddings', name);
    for (const f of filesBelow(folder)) {
      if (f.file.endsWith('.json')) {
        await unlink(f.file).catch(() => undefined);
        legacyRemoved++;
      } else if (f.file.endsWith('.tmp') && f.mtimeMs < now - 3_600_000) await unlink(f.file).catch(() => undefined);
    }
    const { dropped } = await compactVectorFolder(folder, Math.floor(cutoffMs / 1000));
    vectorsDropped += dropped;
  }
  return { before, after: cacheUsage(cacheDir), responsesRemoved, vectorsDropped, legacyRemoved };
}
