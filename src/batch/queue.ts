// The chat client's batch mode (--batch): every uncached call joins a queue instead of being sent; once the caller
// has asked everything it will ask (no new call for a moment, and no hold open), the queue becomes one round:
//
//   1. requests already in a job an earlier run submitted (a record in <cacheDir>/batches/ not yet collected) wait
//      for that job: a run killed after submitting is picked up, never paid twice;
//   2. the others are submitted as new jobs (split under the API's limits), each recorded before and right after
//      submission;
//   3. every job is polled with backoff until it ends (or --batch-wait runs out: the job keeps running, the rerun
//      collects it);
//   4. its answers go into the response cache with the keys and the entry format a live call writes, costed at the
//      batch price, so the report is built exactly as for a live run and a rerun replays. An answer that ended
//      without one (length, safety, ...) is an error row and is not cached, as live; an expired, canceled or failed
//      request is an error row too (never "none"), and --batch-retry can send it again in a new job or live.
//
// The caller sees nothing of this: chat() resolves with the same ChatResult a live call gives.
//
// This file is the queue and its rounds; the pieces it uses are in the files named for them (see DEVELOPERS.md).
import { entryOf, makeEntry, summarise } from '../cache.js';
import { ProviderError } from '../errors.js';
import type { BatchApi, BatchStatus, EncodedItem, ItemOutcome } from '../providers/batch/index.js';
import { costAt } from '../providers/pricing.js';
import { CallError } from '../providers/shared.js';
import { safeUrl } from '../secrets.js';
import type { ChatRequest, ChatResponse, Lane, StopKind } from '../types.js';
import { chunks } from './chunks.js';
import type { BatchHost, BatchResult } from './host.js';
import { describeCounts, missingOutcome } from './outcomes.js';
import type { Counted, Failure, Job, Pending, Waiter } from './pending.js';
import { waitForJob } from './poll.js';
import type { BatchStats } from './stats.js';
import { BatchStore, type BatchOutcomeCounts, type BatchRecord } from './store.js';

export { batchSettings, type BatchRetry, type BatchSettings } from './settings.js';
export type { BatchHost, BatchResult, BatchTally } from './host.js';
export type { BatchStats } from './stats.js';
export { chunks } from './chunks.js';

export class BatchQueue {
  readonly stats: BatchStats;
  private queued = new Map<string, Pending>();
  /** Requests of rounds under way (a later caller of the same request joins them). */
  private inRound = new Map<string, Pending>();
  private holds = 0;
  private timer: NodeJS.Timeout | null = null;
  private startedAt: number | null = null;
  private readonly store: BatchStore;

  constructor(private readonly host: BatchHost) {
    this.store = new BatchStore(host.cacheDir);
    this.stats = {
      batches: 0, submitted: 0, resumed: 0, picked: 0, expired: 0, canceled: 0, errored: 0, stillRunning: 0, retried: 0, extra: 0,
      multiplier: host.batchPrice?.batchDiscount ?? (host.batchPrice ? 1 : null), ids: [],
    };
  }

  /** One request joins the next round; resolves with its answer once its job ended and the answer is cached. */
  enqueue(req: ChatRequest, key: string, sample: number, lane: Lane | undefined, t0: number): Promise<BatchResult> {
    return new Promise<BatchResult>((resolve, reject) => {
      const waiter: Waiter = { lane, t0, resolve, reject };
      if (lane) lane.inFlight++;
      const same = this.inRound.get(key) ?? this.queued.get(key);
      if (same) same.waiters.push(waiter);
      else this.queued.set(key, { key, req, sample, waiters: [waiter], reserved: 0 });
      this.schedule();
    });
  }

  /** Keeps the next round from starting until the returned function is called (a caller with more to ask after an
   * asynchronous step, e.g. hybrid after the similarity ranking). Calling it twice is harmless. */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.schedule();
    };
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.host.settings.idleMs);
  }

  private flush(): void {
    this.timer = null;
    if (this.holds > 0 || !this.queued.size) return;
    const items = [...this.queued.values()];
    this.queued.clear();
    for (const p of items) this.inRound.set(p.key, p);
    this.startedAt ??= Date.now();
    this.round(items, 0).catch((err: unknown) => {
      // Anything unexpected (a bug, a full disk): every request still waiting fails with it, none hangs.
      for (const p of items) if (this.inRound.get(p.key) === p) this.reject(p, err);
    });
  }

  // ------------------------------------------------------------------ one round

  private async round(items: Pending[], attempt: number): Promise<void> {
    const { host } = this;
    const baseUrl = safeUrl(host.baseUrl) ?? null;
    const jobs = this.pickUp(items, baseUrl);
    const fresh = items.filter((p) => !jobs.some((j) => j.pending.has(p.key)));
    const affordable: Pending[] = [];
    for (const p of fresh) {
      try {
        p.reserved = await host.reserve(p.req, host.budgetPrice);
        affordable.push(p);
      } catch (err) {
        this.reject(p, err, 'none'); // --max-cost: not a failure of the call, an error row of its own kind
      }
    }
    if (affordable.length) {
      const api = await host.api();
      for (const chunk of chunks(affordable.map((p) => ({ p, enc: api.encode({ key: p.key, request: p.req }) })), api.limits)) {
        const job = await this.submit(api, chunk, baseUrl);
        if (job) jobs.push(job);
      }
    }
    const failures: Failure[] = [];
    if (jobs.length) {
      const api = await host.api();
      await Promise.all(jobs.map((job) => this.settle(api, job, failures)));
    }
    await this.retry(failures, attempt);
  }

  /** This round's requests found in jobs an earlier run submitted: they wait for those jobs. */
  private pickUp(items: Pending[], baseUrl: string | null): Job[] {
    const { host } = this;
    const byKey = new Map<string, BatchRecord>();
    for (const r of this.store.open(host.provider, host.model, baseUrl)) for (const it of r.items) byKey.set(it.key, r);
    const jobs = new Map<string, Job>();
    for (const p of items) {
      const record = byKey.get(p.key);
      if (!record) continue;
      let job = jobs.get(record.local);
      if (!job) jobs.set(record.local, (job = { record, pending: new Map() }));
      job.pending.set(p.key, p);
    }
    for (const { record, pending } of jobs.values()) {
      this.stats.resumed++;
      this.stats.picked += pending.size;
      host.notice(`batch ${record.id} (${host.provider}/${host.model}): submitted by an earlier run on ${record.createdAt}; ${pending.size} of its ${record.items.length} requests are asked for again: waiting for it, not submitting them again`);
    }
    this.noteInterrupted(items, baseUrl);
    return [...jobs.values()];
  }

  /** A record left in "submitting" means a run stopped between writing it and learning the job's id: the job may
   * exist. Said once, then the record is dropped (its requests are submitted again). */
  private noteInterrupted(items: Pending[], baseUrl: string | null): void {
    const keys = new Set(items.map((p) => p.key));
    const stale = this.store.all().filter(
      (r) => r.state === 'submitting' && r.provider === this.host.provider && r.model === this.host.model && r.baseUrl === baseUrl && r.items.some((it) => keys.has(it.key)),
    );
    for (const r of stale) {
      this.host.notice(
        `batch record ${this.store.fileOf(r.local)}: a run stopped while submitting its ${r.items.length} requests, before the provider returned an id; ` +
          `if that job exists (look for "${r.local}" in the provider's console) it may be billed too: cancel it there. Submitting the requests again`,
      );
      void this.store.remove(r);
    }
  }

  /** Records, submits and records again one job; null when it could not be submitted (its requests then fail). */
  private async submit(api: BatchApi, chunk: { p: Pending; enc: EncodedItem }[], baseUrl: string | null): Promise<Job | null> {
    const { host } = this;
    const record = this.store.create({
      provider: host.provider,
      model: host.model,
      baseUrl,
      priceMultiplier: this.stats.multiplier,
      items: chunk.map(({ p }) => ({ key: p.key, sample: p.sample, ...(p.req.responseSchema ? { structured: true } : {}), summary: summarise(p.req) })),
    });
    const failAll = (err: unknown) => {
      for (const { p } of chunk) this.reject(p, err);
    };
    try {
      await this.store.save(record);
    } catch (err) {
      failAll(new CallError(`${host.provider}: batch not submitted: cannot write its record ${this.store.fileOf(record.local)} (${(err as Error).message}); without it an interrupted run could not find the batch again`, undefined, false));
      return null;
    }
    let id: string;
    try {
      id = await host.withRetries((signal) => api.submit(chunk.map((c) => c.enc), record.local, signal));
    } catch (err) {
      await this.store.remove(record);
      failAll(err);
      return null;
    }
    record.id = id;
    record.state = 'submitted';
    try {
      await this.store.save(record);
    } catch (err) {
      host.notice(`batch ${id}: submitted, but its record could not be updated (${(err as Error).message}): if this run is interrupted, cancel the batch with the provider`);
    }
    this.stats.batches++;
    this.stats.submitted += chunk.length;
    this.stats.ids.push(id);
    host.notice(
      `batch ${id} (${host.provider}/${host.model}): ${chunk.length} requests submitted, recorded in ${this.store.fileOf(record.local)}; waiting for it ` +
        `(stopping is safe: the same command picks the batch up; --batch-status shows it, --batch-cancel cancels it)`,
    );
    return { record, pending: new Map(chunk.map(({ p }) => [p.key, p])) };
  }

  /** Waits for one job to end, then caches its answers and settles its requests. */
  private async settle(api: BatchApi, job: Job, failures: Failure[]): Promise<void> {
    const { host } = this;
    const { record } = job;
    const id = record.id!;
    if (!this.stats.ids.includes(id)) this.stats.ids.push(id);
    let status: BatchStatus | null;
    try {
      status = await waitForJob(api, record, host, this.store, this.startedAt!);
    } catch (err) {
      const lost = err instanceof ProviderError && err.status === 404;
      if (lost) {
        // The server does not know the job (another account or base URL, or deleted): it will never end here.
        record.state = 'collected';
        record.note = `unknown to the server: ${(err as Error).message}`;
        await this.store.save(record).catch(() => undefined);
      }
      const e = new CallError(`${(err as Error).message} (batch ${id})`, undefined, lost);
      for (const p of job.pending.values()) (lost ? failures.push({ pending: p, error: e }) : this.reject(p, e));
      return;
    }
    if (!status) {
      const s = Math.round((host.settings.waitMs ?? 0) / 1000);
      const e = new CallError(`${host.provider}: batch ${id} still running after --batch-wait ${s} s (${record.lastStatus ?? 'in progress'}): rerun the same command to collect it, nothing is submitted again`, undefined, false);
      this.stats.stillRunning += job.pending.size;
      for (const p of job.pending.values()) this.reject(p, e);
      return;
    }
    let outcomes: ItemOutcome[] = [];
    if (!status.failure || status.failure.reason !== 'errored') {
      try {
        const keys = record.items.map((it) => it.key);
        const structured = new Set(record.items.filter((it) => it.structured).map((it) => it.key));
        outcomes = await host.withRetries((signal) => api.results(id, keys, structured, signal));
      } catch (err) {
        // The job ended but its results could not be read: the record stays open, a rerun reads them again.
        const e = new CallError(`${(err as Error).message} (reading the results of batch ${id}; rerun to read them again)`, undefined, false);
        for (const p of job.pending.values()) this.reject(p, e);
        return;
      }
    }
    await this.collect(job, status, outcomes, failures);
  }

  /** Every request of an ended job: answers cached (this run's and an earlier run's), errors kept for retry or rows. */
  private async collect(job: Job, status: BatchStatus, outcomes: ItemOutcome[], failures: Failure[]): Promise<void> {
    const { host, stats } = this;
    const { record } = job;
    const byKey = new Map(outcomes.map((o) => [o.key, o]));
    const counts: BatchOutcomeCounts = { succeeded: 0, stopped: 0, errored: 0, expired: 0, canceled: 0 };
    // The callers learn the outcome only once every answer is cached and the record says so: a run that ends (or is
    // killed) right after its callers are answered leaves no job that looks unfinished.
    const settle: (() => void)[] = [];
    for (const item of record.items) {
      const o: ItemOutcome = byKey.get(item.key) ?? missingOutcome(host.provider, record.id!, status);
      const p = job.pending.get(item.key);
      if (!o.ok) {
        counts[o.reason]++;
        if (!p) continue;
        if (o.reason === 'expired') stats.expired++;
        else if (o.reason === 'canceled') stats.canceled++;
        else stats.errored++;
        const error = new CallError(`${o.message} (batch ${record.id})`, undefined, o.retryable);
        if (o.retryable) failures.push({ pending: p, error });
        else settle.push(() => this.reject(p, error));
        continue;
      }
      const costUsd = host.batchPrice ? costAt(host.batchPrice, o.response.usage) : 0;
      const stop = host.unanswered(o.response);
      if (stop) {
        // Paid for, but no answer: an error row with its reason, not cached (as a live call).
        counts.stopped++;
        if (p) settle.push(() => this.stopped(p, o.response, costUsd, stop));
        continue;
      }
      counts.succeeded++;
      const body = { response: o.response, ...(host.batchPrice ? { costUsd } : {}) };
      // With the keys and entry format of a live call.
      await host.cache.put(p ? makeEntry(item.key, 'chat', host.provider, p.req, p.sample, body) : entryOf(item.key, 'chat', host.provider, host.model, item.sample, item.summary, body));
      if (p) settle.push(() => this.resolve(p, o.response, costUsd));
      else stats.extra++;
    }
    record.state = 'collected';
    record.outcome = counts;
    record.lastStatus = status.state;
    await this.store.save(record).catch((err: Error) => host.notice(`batch ${record.id}: collected, but its record could not be updated (${err.message})`));
    const problems = counts.errored + counts.expired + counts.canceled + counts.stopped;
    host.notice(`batch ${record.id}: ${status.state}; ${counts.succeeded} answers cached${problems ? `, ${problems} without an answer (${describeCounts(counts)})` : ''}`);
    for (const f of settle) f();
  }

  /** --batch-retry: requests worth another attempt go to a new job (once) or live; else they are error rows. */
  private async retry(failures: Failure[], attempt: number): Promise<void> {
    if (!failures.length) return;
    const { host } = this;
    const mode = attempt === 0 ? host.settings.retry : 'none';
    if (mode === 'none') {
      for (const f of failures) this.reject(f.pending, f.error);
      return;
    }
    this.stats.retried += failures.length;
    host.notice(`${failures.length} batch requests expired, were canceled or failed: sending them again ${mode === 'batch' ? 'in a new batch' : 'live'} (--batch-retry ${mode})`);
    for (const f of failures) {
      host.release(f.pending.reserved);
      f.pending.reserved = 0;
    }
    if (mode === 'batch') {
      await this.round(failures.map((f) => f.pending), attempt + 1);
      return;
    }
    await Promise.all(
      failures.map(async ({ pending: p }) => {
        // The live call counts itself (in the first caller's lane); the other callers share its outcome.
        try {
          const r = await host.live(p.req, p.key, p.sample, p.waiters[0]?.lane);
          this.resolve(p, r.response, r.costUsd, 'others');
        } catch (err) {
          this.reject(p, err, err instanceof ProviderError ? 'others' : 'none');
        }
      }),
    );
  }

  // ------------------------------------------------------------------ settling one request

  private done(p: Pending): void {
    if (this.inRound.get(p.key) === p) this.inRound.delete(p.key);
    this.host.release(p.reserved);
    p.reserved = 0;
  }

  /** The answer, to every caller of the request: the first pays, the others share it (a cache hit, as live).
   * `count`: which callers this moves the figures for ('others': the first one's call counted itself). */
  private resolve(p: Pending, response: ChatResponse, costUsd: number, count: Counted = 'all'): void {
    this.done(p);
    p.waiters.forEach((w, i) => {
      if (w.lane) w.lane.inFlight--;
      if (i === 0 && count === 'all') this.host.tally.paid(response.usage, costUsd, w.lane);
      else if (i > 0 && count !== 'none') this.host.tally.served(response.usage, costUsd, w.lane);
      w.resolve({ response, cached: i > 0, costUsd, latencyMs: performance.now() - w.t0 });
    });
  }

  /** A failure, to every caller: counted once in the totals and once per lane; 'none' for what is not a failure of
   * a call (a --max-cost refusal). */
  private reject(p: Pending, err: unknown, count: Counted = 'all'): void {
    this.done(p);
    p.waiters.forEach((w, i) => {
      if (w.lane) w.lane.inFlight--;
      if (i === 0 && count === 'all') this.host.tally.failed(w.lane);
      else if (i > 0 && count !== 'none') this.host.tally.sharedCallFailed(w.lane);
      w.reject(err);
    });
  }

  /** A paid response without an answer: paid, counted by its stop reason, an error row. */
  private stopped(p: Pending, response: ChatResponse, costUsd: number, error: Error & { kind?: string }): void {
    const first = p.waiters[0];
    this.host.tally.paid(response.usage, costUsd, first?.lane);
    this.host.tally.stoppedWithout((response.stopKind ?? 'other') as StopKind);
    this.reject(p, error);
  }
}
