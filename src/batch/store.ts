// The batch jobs of a cache folder: one JSON record per job in <cacheDir>/batches/, written before the job is
// submitted (state "submitting") and again the moment the provider returns its id ("submitted"), so a run killed at
// any point after that finds the job again and waits for it instead of paying for the same requests twice. A record
// lists its requests by response-cache key, with the summary the cache entry will carry; once every answer is in the
// cache it is marked "collected" (kept as history for --batch-status).
//
// Writes are atomic (a unique temp file, then rename), like the response cache's.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mkdirp } from '../fsutil.js';
import { redact } from '../secrets.js';
import type { ProviderId } from '../types.js';

export const BATCH_SCHEMA = 'skillbench.batch';
export const BATCH_VERSION = 1;

export type BatchState = 'submitting' | 'submitted' | 'cancelling' | 'collected';

export interface BatchRecordItem {
  /** The response-cache key, also the request's custom id at the provider. */
  key: string;
  sample: number;
  /** The request asked for a JSON answer (Anthropic answers are then unfenced). */
  structured?: boolean;
  /** The cache entry's summary of the request (cache.ts summarise). */
  summary: Record<string, unknown>;
}

export interface BatchOutcomeCounts {
  succeeded: number;
  /** Answers that ended without one (length, safety, ...): error rows, not cached. */
  stopped: number;
  errored: number;
  expired: number;
  canceled: number;
}

export interface BatchRecord {
  schema: typeof BATCH_SCHEMA;
  version: number;
  /** skillbench's name of the job: the record's file name, and the label sent with the job. */
  local: string;
  provider: ProviderId;
  model: string;
  /** The base URL the job was sent to (credentials removed); null for the SDK's default. A job is only known there. */
  baseUrl: string | null;
  /** The provider's id; null while submitting. */
  id: string | null;
  state: BatchState;
  createdAt: string;
  updatedAt: string;
  /** The provider's state word at the last poll. */
  lastStatus?: string;
  /** The batch price multiplier the answers were costed at (null: unknown). */
  priceMultiplier: number | null;
  items: BatchRecordItem[];
  outcome?: BatchOutcomeCounts;
  /** Why the record was closed without results (the job was unknown to the server, or could not be submitted). */
  note?: string;
}

export class BatchStore {
  readonly dir: string;
  /** Records that could not be read (reported, never thrown). */
  readonly warnings: string[] = [];

  constructor(cacheDir: string) {
    this.dir = path.join(path.resolve(cacheDir), 'batches');
  }

  fileOf(local: string): string {
    return path.join(this.dir, `${local}.json`);
  }

  /** Every record of the folder, oldest first (synchronous: a handful of small files, read once per round). */
  all(): BatchRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const out: BatchRecord[] = [];
    for (const name of names) {
      const file = path.join(this.dir, name);
      try {
        const r = JSON.parse(readFileSync(file, 'utf8')) as BatchRecord;
        if (r.schema !== BATCH_SCHEMA || r.version !== BATCH_VERSION || !Array.isArray(r.items) || typeof r.local !== 'string') {
          this.warnings.push(`batch record ${file} ignored: not a skillbench batch record (version ${BATCH_VERSION})`);
          continue;
        }
        out.push(r);
      } catch (err) {
        this.warnings.push(`batch record ${file} ignored: ${(err as Error).message}`);
      }
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.local.localeCompare(b.local));
  }

  /** The records a run of this provider, model and base URL may pick up: jobs submitted and not yet collected. */
  open(provider: ProviderId, model: string, baseUrl: string | null): BatchRecord[] {
    return this.all().filter((r) => r.provider === provider && r.model === model && r.baseUrl === baseUrl && r.id && (r.state === 'submitted' || r.state === 'cancelling'));
  }

  /** A new record, not yet written. */
  create(fields: Pick<BatchRecord, 'provider' | 'model' | 'baseUrl' | 'items' | 'priceMultiplier'>): BatchRecord {
    const now = new Date().toISOString();
    const local = `skillbench-${now.replace(/[-:T]/g, '').slice(0, 14)}-${randomBytes(4).toString('hex')}`;
    return { schema: BATCH_SCHEMA, version: BATCH_VERSION, local, id: null, state: 'submitting', createdAt: now, updatedAt: now, ...fields };
  }

  /** Writes (or rewrites) a record atomically. A record that cannot be written stops the submission: a job whose id
   * is not on disk could not be found again, and would be paid twice. */
  async save(record: BatchRecord): Promise<void> {
    record.updatedAt = new Date().toISOString();
    const file = this.fileOf(record.local);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await mkdirp(this.dir);
    try {
      await writeFile(tmp, `${redact(JSON.stringify(record, null, 1))}\n`, { flag: 'wx' });
      await rename(tmp, file);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  async remove(record: BatchRecord): Promise<void> {
    await unlink(this.fileOf(record.local)).catch(() => undefined);
  }
}
