// The embedding vector cache: written as vectors come (a run stopped halfway keeps them), keyed by what the provider
// reads (the offline model never sees a skill's name), stored compactly, and shown and pruned by `skillbench cache`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmbedder, type ClientTuning } from '../src/client.js';
import { cacheUsage } from '../src/cache-usage.js';
import { encodeRecords, readSegment, vectorDir, vectorFolderStats, vectorKey, VectorStore } from '../src/embedding-store.js';
import { runCli } from './support/cli.js';
import { fault, gemini, startWireServer, type WireServer } from './support/wire-server.js';

const KEY = 'sk-wire-test-secret-0123456789';
const FAST: ClientTuning = { env: { GEMINI_API_KEY: KEY }, retryBaseMs: 5, maxRetries: 1 };

let server: WireServer;
const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'skillbench-vectors-'));
  dirs.push(d);
  return d;
}

beforeAll(async () => {
  server = await startWireServer({});
});
afterAll(async () => {
  await server.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const texts = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ text: `${tag} text number ${i}`, title: `skill-${i}` }));
const sentTexts = (from: number) => server.requests.slice(from).reduce((s, r) => s + ((r.body as { requests?: unknown[] }).requests?.length ?? 0), 0);

describe('embedding vectors are written as they come', () => {
  it('a run that fails after its first chunk keeps that chunk on disk; the rerun embeds only the rest', async () => {
    const cacheDir = await tempDir();
    let calls = 0;
    server.setHandlers({
      gemini: (r) => (++calls === 1 ? gemini.embeddings(r.body.requests.map((_: unknown, i: number) => [i + 1, 0.25])) : fault.status(400, { body: { error: { code: 400, message: 'stop here', status: 'INVALID_ARGUMENT' } } })),
    });
    const inputs = texts(250, 'first');
    const e = await createEmbedder({ embeddings: 'gemini', baseUrl: server.url, cacheDir, cache: true }, FAST);
    await expect(e.embed(inputs, 'document')).rejects.toThrow(/stop here/);
    VectorStore.closeAll(); // what a new process would find
    expect(vectorFolderStats(vectorDir(cacheDir, 'gemini', 'gemini-embedding-2'))).toMatchObject({ vectors: 100, badBytes: 0 });

    server.setHandlers({ gemini: (r) => gemini.embeddings(r.body.requests.map((_: unknown, i: number) => [i + 1, 0.25])) });
    const before = server.requests.length;
    const again = await createEmbedder({ embeddings: 'gemini', baseUrl: server.url, cacheDir, cache: true }, FAST);
    const vectors = await again.embed(inputs, 'document');
    expect(vectors).toHaveLength(250);
    expect(again.stats()).toEqual({ cached: 100, computed: 150, misses: 0 });
    expect(sentTexts(before)).toBe(150);
  });

  it('a torn last record (a kill in the middle of a write) is skipped, the records before it kept', async () => {
    const cacheDir = await tempDir();
    const store = VectorStore.for(cacheDir, 'use', 'use-lite-512');
    await store.put([
      { key: vectorKey('use', 'document', undefined, 'a'), vector: [1, 2, 3] },
      { key: vectorKey('use', 'document', undefined, 'b'), vector: [4, 5, 6] },
    ]);
    const dir = vectorDir(cacheDir, 'use', 'use-lite-512');
    const [segment] = readdirSync(dir);
    const torn = encodeRecords([{ key: vectorKey('use', 'document', undefined, 'c'), writtenAt: 0, vector: Float32Array.from([7, 8, 9]) }]);
    appendFileSync(path.join(dir, segment!), torn.subarray(0, torn.length - 5));
    VectorStore.closeAll();
    const reread = VectorStore.for(cacheDir, 'use', 'use-lite-512');
    expect(reread.get(vectorKey('use', 'document', undefined, 'b'))).toEqual([4, 5, 6]);
    expect(reread.get(vectorKey('use', 'document', undefined, 'c'))).toBeNull();
    expect(vectorFolderStats(dir)).toMatchObject({ vectors: 2, badBytes: torn.length - 5 });
  });
});

describe('embedding cache keys hold what the provider reads', () => {
  it('the offline model: a renamed copy of a skill (same description, other name) is not embedded again', async () => {
    const cacheDir = await tempDir();
    const e = await createEmbedder({ embeddings: 'use', cacheDir, cache: true });
    const [first] = await e.embed([{ text: 'Check expense reports against the travel policy.', title: 'expense-checker' }], 'document');
    const [renamed] = await e.embed([{ text: 'Check expense reports against the travel policy.', title: 'expense-checker-copy' }], 'document');
    expect(renamed).toEqual(first);
    expect(e.stats()).toEqual({ cached: 1, computed: 1, misses: 0 });
    // The model takes no task prefix either: the same text as a query is the same vector.
    await e.embed([{ text: 'Check expense reports against the travel policy.' }], 'query');
    expect(e.stats().computed).toBe(1);
  });

  it('gemini reads the title of a document and the role: there they stay in the key', () => {
    const k = (role: 'document' | 'query', title?: string) => vectorKey('gemini', role, title, 'same text').toString('hex');
    expect(k('document', 'a')).not.toBe(k('document', 'b'));
    expect(k('document', 'a')).not.toBe(k('query'));
    expect(vectorKey('use', 'document', 'a', 'same text').equals(vectorKey('use', 'query', 'b', 'same text'))).toBe(true);
    expect(vectorKey('openai', 'document', 'a', 'same text').equals(vectorKey('openai', 'query', undefined, 'same text'))).toBe(true);
  });
});

describe('compact storage', () => {
  it('512-d vectors take 2,092 bytes each in one segment file per run, not a 12 KB JSON file each', async () => {
    const cacheDir = await tempDir();
    const store = VectorStore.for(cacheDir, 'use', 'use-lite-512');
    const vector = Array.from({ length: 512 }, (_, i) => Math.fround(Math.sin(i)));
    for (let c = 0; c < 5; c++) await store.put(Array.from({ length: 20 }, (_, i) => ({ key: vectorKey('use', 'document', undefined, `t${c}-${i}`), vector })));
    const dir = vectorDir(cacheDir, 'use', 'use-lite-512');
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(statSync(path.join(dir, files[0]!)).size).toBe(100 * 2092);
    const { records } = readSegment(readFileSync(path.join(dir, files[0]!)));
    expect(Array.from(records[99]!.vector)).toEqual(vector); // float32 round trip: exact
  });

  it('a vector is rounded to float32 on its first use too, so a replay scores exactly as the first run', async () => {
    const cacheDir = await tempDir();
    server.setHandlers({ gemini: (r) => gemini.embeddings(r.body.requests.map(() => [0.1, 1 / 3])) });
    const live = await (await createEmbedder({ embeddings: 'gemini', baseUrl: server.url, cacheDir, cache: true }, FAST)).embed([{ text: 'x' }], 'query');
    VectorStore.closeAll();
    const replay = await (await createEmbedder({ embeddings: 'gemini', cacheDir, cache: true, cacheOnly: true }, { env: {} })).embed([{ text: 'x' }], 'query');
    expect(replay).toEqual(live);
    expect(live[0]).toEqual([Math.fround(0.1), Math.fround(1 / 3)]);
  });
});

describe('skillbench cache', () => {
  it('shows the size of each part, and prune compacts vectors, removes legacy files and, with --older-than, old entries', async () => {
    const cacheDir = await tempDir();
    // Two runs' segments with one key in common, a legacy JSON vector, two responses (one 40 days old).
    const store = VectorStore.for(cacheDir, 'use', 'use-lite-512');
    await store.put([1, 2, 3].map((i) => ({ key: vectorKey('use', 'document', undefined, `v${i}`), vector: [i, i] })));
    VectorStore.closeAll();
    await VectorStore.for(cacheDir, 'use', 'use-lite-512').put([3, 4].map((i) => ({ key: vectorKey('use', 'document', undefined, `v${i}`), vector: [i, i] })));
    const legacy = path.join(cacheDir, 'embeddings', 'use--use-lite-512', `${'ab'.repeat(32)}.json`);
    writeFileSync(legacy, JSON.stringify({ schema: 'skillbench.embedding', version: 1, vector: Array.from({ length: 512 }, () => 0.123456789) }));
    const responses = path.join(cacheDir, 'responses', 'v1', 'aa');
    mkdirSync(responses, { recursive: true });
    writeFileSync(path.join(responses, `${'aa'.repeat(32)}.json`), '{"schema":"skillbench.cache"}');
    writeFileSync(path.join(responses, `${'ab'.repeat(32)}.json`), '{"schema":"skillbench.cache"}');
    const old = (Date.now() - 40 * 86_400_000) / 1000;
    utimesSync(path.join(responses, `${'ab'.repeat(32)}.json`), old, old);

    const shown = await runCli(['cache', '--cache-dir', cacheDir]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/│ responses\s+│\s+2 responses │\s+2 │/);
    expect(shown.stdout).toMatch(/│ embeddings use--use-lite-512\s+│\s+4 vectors │\s+2 │/);
    expect(shown.stdout).toMatch(/│ legacy vector files use--use-lite-512\s+│\s+1 files │\s+1 │/);
    expect(shown.stdout).toContain('1 superseded records');
    expect(shown.stdout).toContain('skillbench cache prune');
    const json = JSON.parse((await runCli(['cache', '--cache-dir', cacheDir, '--json'])).stdout) as ReturnType<typeof cacheUsage>;
    expect(json.bytes).toBe(json.parts.reduce((s, p) => s + p.bytes, 0));

    const pruned = await runCli(['cache', 'prune', '--cache-dir', cacheDir]);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain('0 responses removed, 1 vector records dropped (superseded, torn or old), 1 legacy vector files removed');
    expect(existsSync(legacy)).toBe(false);
    const after = cacheUsage(cacheDir);
    expect(after.parts.map((p) => [p.part, p.entries, p.files])).toEqual([
      ['responses', 2, 2],
      ['embeddings use--use-lite-512', 4, 1],
    ]);
    VectorStore.closeAll();
    expect(VectorStore.for(cacheDir, 'use', 'use-lite-512').get(vectorKey('use', 'document', undefined, 'v4'))).toEqual([4, 4]);

    const older = await runCli(['cache', 'prune', '--cache-dir', cacheDir, '--older-than', '30']);
    expect(older.stdout).toContain('1 responses removed');
    expect(cacheUsage(cacheDir).parts.find((p) => p.kind === 'responses')!.entries).toBe(1);
    expect(cacheUsage(cacheDir).parts.find((p) => p.kind === 'embeddings')!.entries).toBe(4); // written today: kept
  });

  it('an empty or missing cache folder says so', async () => {
    const r = await runCli(['cache', '--cache-dir', path.join(await tempDir(), 'none')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/empty/);
  });
});
