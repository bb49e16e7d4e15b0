// Offline providers (bm25, Universal Sentence Encoder lite) and the price table.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmbedder } from '../src/client.js';
import { createBm25 } from '../src/providers/bm25.js';
import { canonicalModel, costAt, costOf, isLocalBaseUrl, priceOf } from '../src/providers/pricing.js';
import { modelTable } from '../src/providers/models.js';
import { createUseEmbedder, USE_MODEL } from '../src/providers/use.js';

const skills = [
  { name: 'pdf', text: 'pdf: Fill in PDF forms, extract text and tables from PDF documents, merge and split PDFs.' },
  { name: 'xlsx', text: 'xlsx: Create and edit Excel spreadsheets, formulas, charts and pivot tables.' },
  { name: 'docx', text: 'docx: Write and edit Word documents with tracked changes and comments.' },
  { name: 'slack-gif', text: 'slack-gif: Make animated GIFs sized for Slack.' },
];

describe('bm25', () => {
  it('ranks with stemming and without stop-words, scores in 0..1, best first', () => {
    const idx = createBm25(skills);
    const r = idx.score('I need to fill the forms in this PDF');
    expect(r.map((s) => s.name)).toEqual(['pdf', 'docx', 'slack-gif', 'xlsx']); // ties (0) in name order
    for (const s of r) {
      expect(s.score).toBeGreaterThanOrEqual(0);
      expect(s.score).toBeLessThanOrEqual(1);
    }
    expect(r.slice(1).every((s) => s.score === 0)).toBe(true);
    // stemming: "spreadsheet editing" matches "edit spreadsheets"
    expect(idx.score('spreadsheet editing')[0]).toMatchObject({ name: 'xlsx' });
    // stop-words only: nothing matches, every score 0
    expect(idx.score('the and of to').every((s) => s.score === 0)).toBe(true);
    expect(idx.score('').every((s) => s.score === 0)).toBe(true);
  });

  it('normalises by the query self-score: all query words matched gives about 1, unmatched words lower it', () => {
    const idx = createBm25(skills);
    const full = idx.score('animated gifs slack')[0]!;
    const diluted = idx.score('animated gifs slack quarterly revenue forecast')[0]!;
    expect(full.name).toBe('slack-gif');
    expect(full.score).toBeGreaterThan(0.8);
    expect(diluted.name).toBe('slack-gif');
    expect(diluted.score).toBeLessThan(full.score * 0.75);
  });

  it('works with one and two documents', () => {
    const one = createBm25([skills[0]!]);
    expect(one.score('merge pdfs')).toEqual([{ name: 'pdf', score: expect.any(Number) }]);
    expect(one.score('merge pdfs')[0]!.score).toBeGreaterThan(0.5);
    expect(one.score('weather tomorrow')[0]!.score).toBe(0);
    const two = createBm25(skills.slice(0, 2));
    expect(two.score('excel chart').map((s) => s.name)).toEqual(['xlsx', 'pdf']);
  });
});

describe('use (Universal Sentence Encoder lite, offline)', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
  const cos = (a: number[], b: number[]) => {
    let d = 0, na = 0, nb = 0;
    for (let i = 0; i < a.length; i++) {
      d += a[i]! * b[i]!;
      na += a[i]! ** 2;
      nb += b[i]! ** 2;
    }
    return d / Math.sqrt(na * nb);
  };

  it('embeds 512-d vectors with no download; similar meaning is closer', async () => {
    const e = createUseEmbedder();
    expect(e.model).toBe(USE_MODEL);
    const [q, pdf, xlsx] = await e.embed(
      [{ text: 'please fill out this tax form pdf' }, { text: skills[0]!.text }, { text: skills[1]!.text }],
      'document',
    );
    expect(q).toHaveLength(512);
    expect(cos(q!, pdf!)).toBeGreaterThan(cos(q!, xlsx!));
  });

  it('createEmbedder caches document vectors on disk: an unchanged catalogue is not embedded again', async () => {
    const cacheDir = await mkdtemp(path.join(tmpdir(), 'skillbench-use-'));
    dirs.push(cacheDir);
    const docs = skills.map((s) => ({ text: s.text, title: s.name }));
    const a = await createEmbedder({ embeddings: 'use', cacheDir, cache: true });
    const v1 = await a.embed(docs, 'document');
    expect(a.stats()).toEqual({ cached: 0, computed: 4, misses: 0 });
    const b = await createEmbedder({ embeddings: 'use', cacheDir, cache: true, cacheOnly: true });
    const v2 = await b.embed(docs, 'document');
    expect(b.stats()).toEqual({ cached: 4, computed: 0, misses: 0 });
    expect(v2).toEqual(v1);
    const changed = await createEmbedder({ embeddings: 'use', cacheDir, cache: true });
    await changed.embed([{ ...docs[0]!, text: `${docs[0]!.text} Also rotates pages.` }, docs[1]!], 'document');
    expect(changed.stats()).toEqual({ cached: 1, computed: 1, misses: 0 });
    // --cache-only never calls a provider, but `use` is no provider call: it still computes a missing vector.
    const offline = await createEmbedder({ embeddings: 'use', cacheDir, cache: true, cacheOnly: true });
    expect(await offline.embed([{ text: 'never embedded before' }], 'query')).toHaveLength(1);
    expect(offline.stats()).toEqual({ cached: 0, computed: 1, misses: 0 });
  });
});

// Any network attempt in the child process is logged and fails: DNS, sockets (http, https, undici) and fetch.
const NETWORK_GUARD = `
import net from 'node:net';
import dns from 'node:dns';
const hit = (what) => { process.stderr.write('NETWORK ATTEMPT: ' + what + '\\n'); throw new Error('network blocked: ' + what); };
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...a) { if (a[0] && typeof a[0] === 'object' && a[0].path) return connect.apply(this, a); hit('connect'); };
dns.lookup = (host) => hit('dns ' + host);
globalThis.fetch = async (url) => hit('fetch ' + url);
`;
const ROOT = path.resolve(import.meta.dirname, '..');

describe.skipIf(!existsSync(path.join(ROOT, 'dist/cli.js')))('offline selectors on a fresh machine (built CLI, network blocked)', () => {
  it('eval-trigger runs similarity (USE) and keyword (BM25) with no key, an empty cache and no network attempt', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'skillbench-fresh-'));
    try {
      const guard = path.join(home, 'no-network.mjs');
      await writeFile(guard, NETWORK_GUARD);
      // Sanity: the guard does catch a download attempt.
      const probe = spawnSync(process.execPath, ['--import', guard, '-e', "fetch('https://tfhub.dev/').catch(() => {})"], { encoding: 'utf8' });
      expect(probe.stderr).toContain('NETWORK ATTEMPT: fetch https://tfhub.dev/');
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/_API_KEY$|_BASE_URL$/.test(k)));
      const r = spawnSync(
        process.execPath,
        ['--import', guard, path.join(ROOT, 'bin/skillbench.js'), 'eval-trigger', '--skills', path.join(ROOT, 'skills'),
          '--requests', path.join(ROOT, 'requests.json'), '--selectors', 'similarity,keyword', '--no-progress'],
        { cwd: home, env: { ...env, HOME: home, XDG_CACHE_HOME: home }, encoding: 'utf8', timeout: 60_000 },
      );
      expect(r.stderr).not.toContain('NETWORK ATTEMPT');
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/│ similarity │\s+30 │/);
      expect(r.stdout).toMatch(/│ keyword\s+│\s+30 │/);
      // The descriptions' vectors were computed here (nothing was cached before) and written to the cache.
      expect((await readdir(path.join(home, '.skillbench/cache/embeddings/use--use-lite-512'))).length).toBeGreaterThanOrEqual(6);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('pricing, from the model table', () => {
  const table = modelTable();
  it('every price has its row\'s date and source; ids, aliases and dated snapshots find the row', () => {
    for (const row of table.models.filter((m) => m.prices)) {
      const p = priceOf(row.provider, row.id)!;
      expect(p).toMatchObject({ input: row.prices!.input, output: row.prices!.output });
      expect(p.asOf).toMatch(/^\d{4}-\d{2}(-\d{2})?$/);
      expect(p.source).toMatch(/^https?:\/\//);
      for (const alias of row.aliases) expect(priceOf(row.provider, alias)).toEqual(p);
      expect(priceOf(row.provider, `${row.id}-20260101`)).toEqual(p);
    }
    expect(canonicalModel('models/gemini-3.5-flash-lite')).toBe('gemini-3.5-flash-lite');
    expect(canonicalModel('claude-haiku-4-5@20251001')).toBe('claude-haiku-4-5');
  });

  it('an unknown model is price unknown (null), never invented; a loopback server is free', () => {
    expect(priceOf('anthropic', 'claude-unknown-9')).toBeNull();
    expect(priceOf('openai', 'llama3.2:3b')).toBeNull();
    expect(priceOf('openai', 'llama3.2:3b', { baseUrl: 'http://localhost:11434/v1' })).toMatchObject({ input: 0, output: 0 });
    expect(isLocalBaseUrl('http://127.0.0.1:8000/v1')).toBe(true);
    expect(isLocalBaseUrl('https://openrouter.ai/api/v1')).toBe(false);
    const usage = { inputTokens: 1_000_000, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, thinkingTokens: 0 };
    expect(costOf('anthropic', 'claude-unknown-9', usage)).toBe(0);
  });

  it('bills uncached input, cache reads, cache writes and output (thinking included) apart, and long prompts at their tier', () => {
    const price = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, asOf: '2026-12-01', source: 'test', tiers: [{ aboveInputTokens: 200_000, input: 6, cachedInput: 0.6, cacheWrite: 7.5, output: 22.5 }] };
    const short = { inputTokens: 150_000, cachedInputTokens: 100_000, cacheWriteTokens: 20_000, outputTokens: 10_000, thinkingTokens: 10_000 };
    // 30k uncached * 3 + 100k * 0.3 + 20k * 3.75 + 20k * 15 = 0.09 + 0.03 + 0.075 + 0.3
    expect(costAt(price, short)).toBeCloseTo(0.495, 10);
    const long = { ...short, inputTokens: 250_000 };
    // 130k uncached * 6 + 100k * 0.6 + 20k * 7.5 + 20k * 22.5 = 0.78 + 0.06 + 0.15 + 0.45
    expect(costAt(price, long)).toBeCloseTo(1.44, 10);
  });
});

