// The response cache: key recipe, replay without a key, kill -9 mid-run, concurrent writers, corrupt entries.
// Child processes run the real client (transpiled from src/ into a temp folder inside the project, so node_modules
// resolve) against the wire server of this process.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheKey, canonicalJson, parseEntry, ResponseCache } from '../src/cache.js';
import { vectorKey, VectorStore } from '../src/embedding-store.js';
import { createChatClient, type ClientRequest } from '../src/client.js';
import { openai, startWireServer, type WireServer } from './support/wire-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENV = { OPENAI_API_KEY: 'sk-cache-test-secret-42' };
let server: WireServer;
let buildDir: string;
const dirs: string[] = [];

async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'skillbench-cache-'));
  dirs.push(d);
  return d;
}

/** Transpiles the client and what it imports (no type check: tsc does that) into a folder under the project. */
async function buildClient(): Promise<string> {
  const out = path.join(root, 'node_modules', '.cache', `skillbench-cache-test-${process.pid}`);
  const files = ['client.ts', 'cache.ts', 'fsutil.ts', 'errors.ts', 'options.ts', 'types.ts', 'secrets.ts', 'embedding-store.ts'];
  for (const dir of ['providers', 'providers/batch', 'client', 'batch', 'text']) {
    for (const f of await readdir(path.join(root, 'src', dir))) if (f.endsWith('.ts')) files.push(`${dir}/${f}`);
  }
  // The model table, where providers/models.js looks for it (../../data from its folder).
  await mkdir(path.join(out, '..', 'data'), { recursive: true });
  await writeFile(path.join(out, '..', 'data', 'models.json'), await readFile(path.join(root, 'data', 'models.json')));
  for (const f of files) {
    const src = await readFile(path.join(root, 'src', f), 'utf8');
    const js = ts.transpileModule(src, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    await mkdir(path.dirname(path.join(out, f)), { recursive: true });
    await writeFile(path.join(out, f.replace(/\.ts$/, '.js')), js);
  }
  await writeFile(path.join(out, 'package.json'), '{"type":"module"}');
  // The child: runs N requests through the client (openai provider, -j 2), prints one line per finished request.
  await writeFile(
    path.join(out, 'child.mjs'),
    `import { createChatClient } from './client.js';
const [baseUrl, cacheDir, n, noCache] = process.argv.slice(2);
const c = await createChatClient({ provider: 'openai', baseUrl, cacheDir, cache: noCache !== '1', concurrency: 2, timeout: 10 },
  { env: { OPENAI_API_KEY: ${JSON.stringify(ENV.OPENAI_API_KEY)} }, retryBaseMs: 5 });
await Promise.all(Array.from({ length: Number(n) }, (_, i) =>
  c.chat({ system: [{ text: 'catalogue', cache: true }], messages: [{ role: 'user', content: 'request ' + i }], tools: [] })
    .then((r) => process.stdout.write('done ' + i + ' ' + r.cached + '\\n'))));
`,
  );
  return out;
}

function runChild(args: string[]): { child: ChildProcess; done: Promise<number | null> } {
  const child = spawn(process.execPath, [path.join(buildDir, 'child.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.resume();
  const done = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      if (code) console.error(stderr);
      resolve(code);
    }),
  );
  return { child, done };
}

async function cacheFiles(dir: string): Promise<{ json: string[]; tmp: string[] }> {
  const json: string[] = [];
  const tmp: string[] = [];
  let entries: import('node:fs').Dirent[] = [];
  try {
    entries = await readdir(path.join(dir, 'responses'), { withFileTypes: true, recursive: true });
  } catch {
    return { json, tmp };
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
    (e.name.endsWith('.json') ? json : tmp).push(full);
  }
  return { json, tmp };
}

/** Every entry parses and validates; returns the request texts they answer. */
async function validEntries(dir: string): Promise<string[]> {
  const texts: string[] = [];
  for (const f of (await cacheFiles(dir)).json) {
    const entry = parseEntry(await readFile(f, 'utf8'), path.basename(f, '.json'));
    if (typeof entry === 'string') throw new Error(`invalid cache entry ${f}: ${entry}`);
    texts.push(String(entry.summary.lastUser));
  }
  return texts.sort();
}

beforeAll(async () => {
  server = await startWireServer({ openai: async () => openai.toolCall('activate_skill', { name: 'pdf' }, { input: 50, output: 3 }) });
  buildDir = await buildClient();
}, 60_000);
afterAll(async () => {
  await server.close();
  await rm(buildDir, { recursive: true, force: true });
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

function req(text: string): ClientRequest {
  return { system: [{ text: 'catalogue', cache: true }], messages: [{ role: 'user', content: text }], tools: [] };
}

describe('cache key', () => {
  it('is a sha256 of canonical JSON: key order does not matter, every input does', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: undefined, w: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"w":3,"y":2}]},"b":1}');
    // Cache keys write long strings (a catalogue prompt) as their sha256: still injective, hashed once per run.
    const long = 'x'.repeat(2000);
    expect(canonicalJson({ s: long }, true)).toMatch(/^\{"s":#[0-9a-f]{64}\}$/);
    expect(canonicalJson({ s: long }, true)).not.toBe(canonicalJson({ s: `${long}y` }, true));
    expect(canonicalJson({ s: 'short' }, true)).toBe('{"s":"short"}');
    // A long array is re-encoded when mutated in place (the memo never gives a stale key).
    const names = Array.from({ length: 40 }, (_, i) => `skill-${i}`);
    const before = canonicalJson({ names }, true);
    expect(canonicalJson({ names }, true)).toBe(before);
    names[7] = 'renamed';
    expect(canonicalJson({ names }, true)).not.toBe(before);
    expect(canonicalJson({ names }, true)).toBe(canonicalJson({ names: [...names] }, false));
    const base = { op: 'chat' as const, provider: 'gemini' as const, model: 'm', request: { a: 1, b: 'x' }, sample: 0 };
    const k = cacheKey(base);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey({ ...base, request: { b: 'x', a: 1 } })).toBe(k);
    expect(cacheKey({ ...base, sample: 1 })).not.toBe(k);
    expect(cacheKey({ ...base, model: 'n' })).not.toBe(k);
    expect(cacheKey({ ...base, provider: 'anthropic' })).not.toBe(k);
    expect(cacheKey({ ...base, op: 'countTokens' })).not.toBe(k);
    expect(cacheKey({ ...base, request: { a: 1, b: 'x (changed description)' } })).not.toBe(k);
    expect(cacheKey({ ...base, request: { a: 1, b: long } })).not.toBe(cacheKey({ ...base, request: { a: 1, b: `${long.slice(1)}z` } }));
  });
});

describe('replay', () => {
  it('replays a run with no key and no server, with identical results', async () => {
    const cacheDir = await tempDir();
    const live = await createChatClient({ provider: 'openai', baseUrl: server.baseUrl('openai'), cacheDir, cache: true, model: 'gpt-4o-mini' }, { env: ENV });
    const texts = Array.from({ length: 8 }, (_, i) => `replay ${i}`);
    const first = await Promise.all(texts.map((t) => live.chat(req(t))));
    const replay = await createChatClient({ provider: 'openai', cacheDir, cache: true, cacheOnly: true, model: 'gpt-4o-mini' }, { env: {} });
    const hits = server.hits.openai;
    const again = await Promise.all(texts.map((t) => replay.chat(req(t))));
    expect(server.hits.openai).toBe(hits);
    expect(again.map((r) => r.response)).toEqual(first.map((r) => r.response));
    expect(again.map((r) => r.costUsd)).toEqual(first.map((r) => r.costUsd));
    expect(again.every((r) => r.cached)).toBe(true);
    expect(replay.stats().tokens).toEqual(live.stats().tokens);
  });
});

describe('crash safety and concurrency (child processes)', () => {
  it('a run killed with kill -9 at several points leaves a valid cache; the rerun pays only for unfinished requests', async () => {
    const cacheDir = await tempDir();
    const N = 40;
    server.setHandlers({
      openai: async () => {
        await new Promise((r) => setTimeout(r, 25));
        return openai.toolCall('activate_skill', { name: 'pdf' }, { input: 50, output: 3 });
      },
    });
    const killPoints = [3, 9, 7]; // server hits before the kill; the total stays under N so every kill lands mid-run
    for (const [round, killAfter] of killPoints.entries()) {
      const start = server.hits.openai;
      const { child, done } = runChild([server.baseUrl('openai'), cacheDir, String(N)]);
      while (server.hits.openai - start < killAfter && child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
      expect(child.exitCode).toBeNull(); // still running: killed mid-run
      child.kill('SIGKILL');
      await done;
      const cachedBefore = await validEntries(cacheDir); // throws on any invalid entry
      const startRerun = server.requests.length;
      const rerun = runChild([server.baseUrl('openai'), cacheDir, String(N)]);
      // Let the rerun make a few calls, then check nothing it asked for was already cached.
      if (round < killPoints.length - 1) {
        while (server.requests.length - startRerun < 2 && rerun.child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
        rerun.child.kill('SIGKILL');
      }
      await rerun.done;
      const asked = server.requests.slice(startRerun).map((r) => r.body.messages.at(-1).content as string);
      for (const t of asked) expect(cachedBefore).not.toContain(t);
      expect(new Set(asked).size).toBe(asked.length);
    }
    const all = await validEntries(cacheDir);
    expect(all).toHaveLength(N);
    expect(new Set(all).size).toBe(N);
  });

  it('concurrent writers of the same keys never leave a corrupt or partial entry', async () => {
    const cacheDir = await tempDir();
    const N = 60;
    server.setHandlers({ openai: async () => openai.toolCall('activate_skill', { name: 'xlsx' }, { input: 50, output: 3 }) });
    // Four processes start together on the same keys: each misses, calls and writes before the others' entries land.
    const children = Array.from({ length: 4 }, () => runChild([server.baseUrl('openai'), cacheDir, String(N), '0']));
    let reads = 0;
    let running = true;
    const reader = (async () => {
      while (running) {
        for (const f of (await cacheFiles(cacheDir)).json) {
          let text: string;
          try {
            text = await readFile(f, 'utf8');
          } catch {
            continue;
          }
          const e = parseEntry(text, path.basename(f, '.json'));
          if (typeof e === 'string') throw new Error(`reader saw a partial entry ${f}: ${e}`);
          reads++;
        }
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    const codes = await Promise.all(children.map((c) => c.done));
    running = false;
    await reader;
    expect(codes).toEqual([0, 0, 0, 0]);
    expect(reads).toBeGreaterThan(0);
    const { json, tmp } = await cacheFiles(cacheDir);
    expect(tmp).toEqual([]);
    expect(json).toHaveLength(N);
    expect(await validEntries(cacheDir)).toHaveLength(N);
    for (const f of json) expect(await readFile(f, 'utf8')).not.toContain(ENV.OPENAI_API_KEY);
  });
});

describe('cache folder trouble', () => {
  it('a cache folder removed during the run is made again; an unwritable cache is a warning, never a failed call', async () => {
    const cacheDir = await tempDir();
    server.setHandlers({ openai: async () => openai.text('ok') });
    const c = await createChatClient({ provider: 'openai', baseUrl: server.baseUrl('openai'), cacheDir, cache: true }, { env: ENV });
    await c.chat(req('before removal'));
    await rm(cacheDir, { recursive: true, force: true });
    await c.chat(req('before removal'.replace('before', 'after')));
    expect(await validEntries(cacheDir)).toEqual(['after removal']);

    // A file where the cache folder should be: nothing can be written there.
    const blocked = path.join(await tempDir(), 'not-a-dir');
    await writeFile(blocked, 'x');
    const b = await createChatClient({ provider: 'openai', baseUrl: server.baseUrl('openai'), cacheDir: blocked, cache: true }, { env: ENV });
    const r = await b.chat(req('cannot cache'));
    expect(r.response.text).toBe('ok');
    expect(b.stats().cacheWarnings.length).toBeGreaterThan(0);
    expect(b.summary()).toMatch(/cache warnings/);
  });

  // Node's recursive mkdir never returns under /proc: the cache must answer with a warning, not hang the run.
  it.skipIf(!existsSync('/proc/self'))('a cache folder that cannot be made (under /proc) is a warning, not a hang', async () => {
    server.setHandlers({ openai: async () => openai.text('ok') });
    const cacheDir = '/proc/skillbench-no-such/cache';
    const c = await createChatClient({ provider: 'openai', baseUrl: server.baseUrl('openai'), cacheDir, cache: true }, { env: ENV });
    expect((await c.chat(req('cache under proc'))).response.text).toBe('ok');
    expect(c.stats().cacheWarnings).toEqual([expect.stringMatching(/^cache: cannot write \/proc\/skillbench-no-such\/cache\/.*ENOENT/)]);
    // A vector that cannot be written is a warning, and only recomputed by the next run.
    const store = VectorStore.for(cacheDir, 'use', 'm');
    await store.put([{ key: vectorKey('use', 'document', undefined, 'x'), vector: [1] }]);
    expect(store.warnings).toEqual([expect.stringMatching(/^embeddings cache: cannot write \/proc\/skillbench-no-such\/cache\/.*ENOENT/)]);
    VectorStore.closeAll();
    expect(VectorStore.for(cacheDir, 'use', 'm').get(vectorKey('use', 'document', undefined, 'x'))).toBeNull();
  });
});

describe('corrupt entries', () => {
  it('are reported and ignored, then replaced by a fresh answer', async () => {
    const cacheDir = await tempDir();
    server.setHandlers({ openai: async () => openai.text('fresh') });
    const c1 = await createChatClient({ provider: 'openai', baseUrl: server.baseUrl('openai'), cacheDir, cache: true }, { env: ENV });
    await c1.chat(req('will be corrupted'));
    await c1.chat(req('stays fine'));
    const victim = (await Promise.all((await cacheFiles(cacheDir)).json.map(async (f) => ((await readFile(f, 'utf8')).includes('will be corrupted') ? f : null)))).find(Boolean)!;
    expect(victim).toBeTruthy();
    await writeFile(victim, '{"schema": "skillbench.cache", "version": 1, "key": "trunc');

    const c2 = await createChatClient({ provider: 'openai', baseUrl: server.baseUrl('openai'), cacheDir, cache: true }, { env: ENV });
    const hits = server.hits.openai;
    const r = await c2.chat(req('will be corrupted'));
    expect(r.cached).toBe(false);
    expect(r.response.text).toBe('fresh');
    expect((await c2.chat(req('stays fine'))).cached).toBe(true);
    expect(server.hits.openai - hits).toBe(1);
    const st = c2.stats();
    expect(st.corruptCacheEntries).toBe(1);
    expect(st.cacheWarnings[0]).toContain(victim);
    expect(st.cacheWarnings[0]).toContain('not valid JSON');
    expect(c2.summary()).toMatch(/1 corrupt cache entries ignored/);
    expect(typeof parseEntry(await readFile(victim, 'utf8'), path.basename(victim, '.json'))).toBe('object');

    // A valid JSON entry with the wrong shape is corrupt too.
    const cache = new ResponseCache(cacheDir);
    await writeFile(victim, JSON.stringify({ schema: 'skillbench.cache', version: 1, key: path.basename(victim, '.json'), response: { calls: 'no' } }));
    expect(await cache.get(path.basename(victim, '.json'))).toBeNull();
    expect(cache.stats.corrupt).toBe(1);
  });
});
