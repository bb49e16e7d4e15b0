// What the queue holds: each request with its callers and its --max-cost reservation, each job with this run's
// requests in it, and the requests whose job ended without their answer (for --batch-retry).
import type { CallError } from '../providers/shared.js';
import type { ChatRequest, Lane } from '../types.js';
import type { BatchResult } from './host.js';
import type { BatchRecord } from './store.js';

export interface Waiter {
  lane?: Lane;
  t0: number;
  resolve(r: BatchResult): void;
  reject(e: unknown): void;
}

export interface Pending {
  key: string;
  req: ChatRequest;
  sample: number;
  waiters: Waiter[];
  reserved: number;
}

export interface Job {
  record: BatchRecord;
  /** This run's requests in the job, by key. */
  pending: Map<string, Pending>;
}

/** Which callers of a request a settlement moves the figures for (see BatchQueue's resolve and reject). */
export type Counted = 'all' | 'others' | 'none';

export interface Failure {
  pending: Pending;
  error: CallError;
}
