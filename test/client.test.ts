// The chat client through the real SDKs against the wire server: retries and faults, concurrency, cache modes,
// keys, cost, --dry-run and --max-cost.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  availableChatProvider,
  backoffMs,
  BudgetExceededError,
  CacheMissError,
  createChatClient,
  createEmbedder,
  DryRunError,
  parseThinking,
  resolveConfig,
  retryPolicy,
  type ClientRequest,
  type ClientTuning,
} from '../src/client.js';
import { ProviderError, UserError } from '../src/errors.js';
import { vectorFolderStats, VectorStore } from '../src/embedding-store.js';
import type { ProviderOptions } from '../src/options.js';
import { costOf } from '../src/providers/pricing.js';
import { defaultModel } from '../src/providers/models.js';
import type { Lane, ProviderId } from '../src/types.js';
import { anthropic, fault, gemini, openai, script, startWireServer, type Api, type Reply, type WireServer } from './support/wire-server.js';

const KEY = 'sk-wire-test-secret-0123456789';
const ENV = { GEMINI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY };
const FAST: ClientTuning = { env: ENV, retryBaseMs: 5, maxRetries: 3 };

let server: WireServer;
const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'skillbench-client-'));
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

function req(text: string): ClientRequest {
  return {
    system: [{ text: 'catalogue: pdf, xlsx', cache: true }],
    messages: [{ role: 'user', content: text }],
    tools: [{ name: 'activate_skill', description: 'load a skill', parameters: { type: 'object', properties: { name: { type: 'string', enum: ['pdf', 'xlsx'] } } } }],
  };
}

async function client(provider: ProviderId, extra: Partial<ProviderOptions> = {}, tuning: ClientTuning = FAST) {
  return createChatClient(
    { provider, baseUrl: server.baseUrl(provider), cacheDir: await tempDir(), cache: true, timeout: 5, ...extra },
    tuning,
  );
}

const ok: Record<Api, Reply> = {
  gemini: gemini.functionCall('activate_skill', { name: 'pdf' }, { input: 100, output: 5 }),
  anthropic: anthropic.toolUse('activate_skill', { name: 'pdf' }, { input: 100, output: 5 }),
  openai: openai.toolCall('activate_skill', { name: 'pdf' }, { input: 100, output: 5 }),
};

function hitsOf(api: Api): number {
  return server.hits[api];
}

describe('retries and faults (every provider)', () => {
  afterEach(() => server.setHandlers({}));

  for (const p of ['gemini', 'anthropic', 'openai'] as const) {
    it(`${p}: 500, a dropped connection and a malformed body are retried, then the answer is parsed`, async () => {
      server.setHandlers({ [p]: script(fault.status(500), fault.drop(), fault.malformed(), ok[p]) });
      const c = await client(p);
      const before = hitsOf(p);
      const r = await c.chat(req(`faults ${p}`));
      expect(hitsOf(p) - before).toBe(4);
      expect(r.response.calls[0]).toMatchObject({ name: 'activate_skill', args: { name: 'pdf' } });
      expect(c.stats()).toMatchObject({ calls: 1, retries: 3, errors: 0 });
    });

    it(`${p}: a hang past the timeout is abandoned and retried`, async () => {
      server.setHandlers({ [p]: script(fault.hang(), ok[p]) });
      const c = await client(p, { timeout: 0.4 });
      const before = hitsOf(p);
      const t0 = Date.now();
      const r = await c.chat(req(`hang ${p}`));
      expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
      expect(hitsOf(p) - before).toBe(2);
      expect(r.response.calls).toHaveLength(1);
    });

    it(`${p}: a request that still fails throws ProviderError; a 400 is not retried`, async () => {
      server.setHandlers({ [p]: script(fault.status(503)) });
      const c = await client(p);
      let before = hitsOf(p);
      const err = await c.chat(req(`down ${p}`)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect((err as ProviderError).status).toBe(503);
      expect((err as Error).message).toMatch(/after 4 attempts/);
      expect(hitsOf(p) - before).toBe(4); // 1 + maxRetries 3

      server.setHandlers({ [p]: script(fault.status(400, { body: { error: { message: 'bad request: tools[0]' } } })) });
      before = hitsOf(p);
      const bad = await c.chat(req(`bad ${p}`)).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(ProviderError);
      expect((bad as ProviderError).status).toBe(400);
      expect(hitsOf(p) - before).toBe(1);
      expect(c.stats().errors).toBe(2);
      // errors are never cached: the same request calls again
      server.setHandlers({ [p]: script(ok[p]) });
      before = hitsOf(p);
      await c.chat(req(`bad ${p}`));
      expect(hitsOf(p) - before).toBe(1);
    });
  }

  it('honours retry-after-ms (anthropic 429) and 529 overloaded', async () => {
    server.setHandlers({
      anthropic: script(fault.status(429, { headers: { 'retry-after-ms': '400' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } } }), anthropic.overloaded(), ok.anthropic),
    });
    const c = await client('anthropic');
    const before = hitsOf('anthropic');
    const t0 = Date.now();
    await c.chat(req('retry-after'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(390);
    expect(hitsOf('anthropic') - before).toBe(3);
  });

  it('honours retry-after in seconds (openai 429)', async () => {
    server.setHandlers({ openai: script(fault.status(429, { headers: { 'retry-after': '1' } }), ok.openai) });
    const c = await client('openai');
    const t0 = Date.now();
    await c.chat(req('retry-after seconds'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(990);
  });

  it("honours Gemini's RetryInfo.retryDelay", async () => {
    server.setHandlers({ gemini: script(gemini.rateLimited('0.5s'), ok.gemini) });
    const c = await client('gemini');
    const t0 = Date.now();
    await c.chat(req('retry info'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(490);
    expect(c.stats().retries).toBe(1);
  });
});

describe('retry budget and backoff', () => {
  it('a 429 is a queue: retried past maxRetries, bounded by time (--max-retry-time), not by a count', async () => {
    const paced = fault.status(429, { headers: { 'retry-after-ms': '5' } });
    server.setHandlers({ openai: script(...Array.from({ length: 8 }, () => paced), ok.openai) });
    const c = await client('openai'); // maxRetries 3
    const before = hitsOf('openai');
    await c.chat(req('paced 429s'));
    expect(hitsOf('openai') - before).toBe(9);
    expect(c.stats().retries).toBe(8);

    // Without a delay the client backs off on its own, and still does not give up after maxRetries.
    server.setHandlers({ openai: script(fault.status(429), fault.status(429), fault.status(429), fault.status(429), ok.openai) });
    await c.chat(req('bare 429s'));

    // Out of time: the last 429 is the error, and says so.
    server.setHandlers({ openai: script(paced) });
    const short = await client('openai', {}, { ...FAST, retryDeadlineMs: 60 });
    const err = await short.chat(req('endless 429s')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).status).toBe(429);
    expect((err as Error).message).toMatch(/out of --max-retry-time/);
  });

  it('an authentication failure is not retried and says where the key comes from', async () => {
    server.setHandlers({ openai: script(fault.status(401, { body: { error: { message: 'Incorrect API key provided' } } })) });
    const c = await client('openai');
    const before = hitsOf('openai');
    const err = await c.chat(req('auth')).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/HTTP 401.*OPENAI_API_KEY/);
    expect(hitsOf('openai') - before).toBe(1);
  });

  it("follows the server's x-should-retry over the status", async () => {
    server.setHandlers({ anthropic: script(fault.status(500, { headers: { 'x-should-retry': 'false' } }), ok.anthropic) });
    const c = await client('anthropic');
    const before = hitsOf('anthropic');
    await expect(c.chat(req('should not retry'))).rejects.toBeInstanceOf(ProviderError);
    expect(hitsOf('anthropic') - before).toBe(1);
    server.setHandlers({ anthropic: script(fault.status(400, { headers: { 'x-should-retry': 'true' } }), ok.anthropic) });
    await c.chat(req('should retry'));
    expect(hitsOf('anthropic') - before).toBe(3);
  });

  it('backs off exponentially with jitter, capped, and follows a server delay', () => {
    const policy = { maxRetries: 5, maxConnectionRetries: 1, baseMs: 100, maxMs: 1000, deadlineMs: 600_000 };
    for (let i = 0; i < 50; i++) {
      for (const [attempt, full] of [[0, 100], [1, 200], [2, 400], [3, 800], [6, 1000]] as const) {
        const d = backoffMs(attempt, policy);
        expect(d).toBeGreaterThanOrEqual(full / 2);
        expect(d).toBeLessThanOrEqual(full);
      }
      const s = backoffMs(0, policy, 300);
      expect(s).toBeGreaterThanOrEqual(300);
      expect(s).toBeLessThanOrEqual(300 + 75);
      expect(backoffMs(0, policy, 60_000)).toBe(1000);
    }
    expect(retryPolicy({}, {})).toEqual({ maxRetries: 5, maxConnectionRetries: 1, baseMs: 1000, maxMs: 60_000, deadlineMs: 600_000 });
    expect(retryPolicy({}, { SKILLBENCH_RETRY_BASE_MS: '5' }).baseMs).toBe(5);
    expect(retryPolicy({ retryBaseMs: 7 }, { SKILLBENCH_RETRY_BASE_MS: '5' }).baseMs).toBe(7);
    expect(retryPolicy({}, { SKILLBENCH_RETRY_BASE_MS: 'soon' }).baseMs).toBe(1000);
  });
});

describe('concurrency', () => {
  it('never has more than -j calls in flight, and updates the lane', async () => {
    let inFlight = 0;
    let peak = 0;
    server.setHandlers({
      openai: async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 60));
        inFlight--;
        return ok.openai;
      },
    });
    const c = await client('openai', { concurrency: 3 });
    const lane: Lane = { name: 'model', total: 9, done: 0, inFlight: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, errors: 0 };
    let lanePeak = 0;
    const timer = setInterval(() => (lanePeak = Math.max(lanePeak, lane.inFlight)), 5);
    await Promise.all(Array.from({ length: 9 }, (_, i) => c.chat(req(`concurrent ${i}`), { lane })));
    clearInterval(timer);
    expect(peak).toBe(3);
    expect(lanePeak).toBeLessThanOrEqual(3);
    expect(lane).toMatchObject({ inFlight: 0, cacheHits: 0, inputTokens: 900, outputTokens: 45, errors: 0 });
    await c.chat(req('concurrent 0'), { lane });
    expect(lane.cacheHits).toBe(1);
  });
});

describe('cache modes', () => {
  it('replays an identical request from the cache; a new sample or a changed request calls again', async () => {
    server.setHandlers({ gemini: script(ok.gemini) });
    const c = await client('gemini');
    const before = hitsOf('gemini');
    const a = await c.chat(req('same'));
    const b = await c.chat(req('same'));
    expect(a.cached).toBe(false);
    expect(b.cached).toBe(true);
    expect(b.response).toEqual(a.response);
    expect(b.costUsd).toBe(a.costUsd);
    await c.chat(req('same'), { sample: 1 });
    const changed = req('same');
    changed.tools[0]!.description = 'load a skill (changed)';
    await c.chat(changed);
    expect(hitsOf('gemini') - before).toBe(3);
    expect(c.stats()).toMatchObject({ calls: 3, cacheHits: 1 });
  });

  it('identical requests in flight at the same time make one call', async () => {
    server.setHandlers({ openai: async () => fault.delay(50, ok.openai) });
    const c = await client('openai');
    const before = hitsOf('openai');
    const rs = await Promise.all([c.chat(req('twin')), c.chat(req('twin')), c.chat(req('twin'), { sample: 1 })]);
    expect(hitsOf('openai') - before).toBe(2);
    expect(rs.map((r) => r.cached)).toEqual([false, true, false]);
    expect(rs[1]!.response).toEqual(rs[0]!.response);
    expect(c.stats()).toMatchObject({ calls: 2, cacheHits: 1 });
  });

  it('a shared call in flight that fails is an error in every waiting lane, and one error in the totals', async () => {
    server.setHandlers({ openai: async () => fault.delay(50, fault.status(400, { body: { error: { message: 'bad request: twin' } } })) });
    const c = await client('openai');
    const lane = (name: string): Lane => ({ name, total: 1, done: 0, inFlight: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, errors: 0 });
    const [first, second] = [lane('first'), lane('second')];
    const before = hitsOf('openai');
    const rs = await Promise.allSettled([c.chat(req('failing twin'), { lane: first }), c.chat(req('failing twin'), { lane: second })]);
    expect(hitsOf('openai') - before).toBe(1);
    for (const r of rs) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ProviderError);
    }
    expect(first).toMatchObject({ errors: 1, cacheHits: 0, inFlight: 0 });
    expect(second).toMatchObject({ errors: 1, cacheHits: 0, inFlight: 0 });
    expect(c.stats()).toMatchObject({ calls: 0, cacheHits: 0, errors: 1 });
  });

  it('--no-cache neither reads nor writes; --no-cache-write reads only; --cache-only replays with no key and counts misses', async () => {
    server.setHandlers({ anthropic: script(ok.anthropic) });
    const cacheDir = await tempDir();
    const live = await client('anthropic', { cacheDir, cache: false });
    const before = hitsOf('anthropic');
    await live.chat(req('one'));
    await live.chat(req('one'));
    expect(hitsOf('anthropic') - before).toBe(2);
    const replayNothing = await createChatClient({ provider: 'anthropic', cacheDir, cache: true, cacheOnly: true }, { env: {} });
    expect(await replayNothing.chat(req('one')).catch((e: unknown) => e)).toBeInstanceOf(CacheMissError); // nothing was written

    await (await client('anthropic', { cacheDir, cache: true })).chat(req('one')); // fills the cache with "one"
    const readOnly = await client('anthropic', { cacheDir, cache: true, cacheWrite: false });
    expect((await readOnly.chat(req('one'))).cached).toBe(true);
    expect((await readOnly.chat(req('two'))).cached).toBe(false); // called, and not kept
    expect(hitsOf('anthropic') - before).toBe(4);

    const replay = await createChatClient({ provider: 'anthropic', cacheDir, cache: true, cacheOnly: true }, { env: {} });
    const r = await replay.chat(req('one'));
    expect(r.cached).toBe(true);
    const miss = await replay.chat(req('two')).catch((e: unknown) => e);
    expect(miss).toBeInstanceOf(CacheMissError);
    expect(miss).toBeInstanceOf(ProviderError);
    expect(replay.stats().cacheMisses).toBe(1);
    expect(replay.summary()).toMatch(/1 requests missing from the cache/);
    expect(hitsOf('anthropic') - before).toBe(4);
    await expect(createChatClient({ provider: 'anthropic', cacheDir, cache: false, cacheOnly: true }, { env: {} })).rejects.toThrow(/contradict/);
  });


  it('never writes an API key or an auth header into the cache (chat and counts, every provider)', async () => {
    const authHeader: Record<Api, [string, string]> = {
      gemini: ['x-goog-api-key', KEY],
      anthropic: ['authorization', `Bearer ${KEY}`], // SDK 1.x sends the API key as a bearer token
      openai: ['authorization', `Bearer ${KEY}`],
    };
    server.setHandlers({
      ...Object.fromEntries((['gemini', 'anthropic', 'openai'] as const).map((p) => [p, script(ok[p])])),
      gemini: (r) => (r.method === 'countTokens' ? gemini.countTokens(42) : ok.gemini),
      anthropic: (r) => (r.method === 'count_tokens' ? anthropic.countTokens(42) : ok.anthropic),
    });
    const cacheDir = await tempDir();
    for (const p of ['gemini', 'anthropic', 'openai'] as const) {
      const first = server.requests.length;
      const c = await createChatClient({ provider: p, baseUrl: server.baseUrl(p), cacheDir, cache: true }, FAST);
      await c.chat(req(`secret check ${p}`));
      await c.countTokens(req(`secret count ${p}`));
      const [header, value] = authHeader[p];
      expect(server.requests.slice(first).map((r) => r.headers[header]), p).toEqual(p === 'openai' ? [value] : [value, value]); // sent
    }
    const files = await listFiles(cacheDir);
    expect(files.length).toBe(5); // 3 answers + 2 counts (openai has no count API)
    for (const f of files) {
      const text = (await readFile(f, 'utf8')).toLowerCase();
      expect(text).not.toContain(KEY.toLowerCase());
      for (const header of ['authorization', 'x-api-key', 'x-goog-api-key']) expect(text).not.toContain(header);
    }
  });

  it('does not cache an answer that would carry the API key (a key pasted into a request, or echoed back)', async () => {
    server.setHandlers({ openai: script(openai.text(`your key is ${KEY}`), ok.openai) });
    const cacheDir = await tempDir();
    const c = await createChatClient({ provider: 'openai', baseUrl: server.baseUrl('openai'), cacheDir, cache: true }, FAST);
    expect((await c.chat(req('echo my key'))).response.text).toContain(KEY); // the caller still gets the answer
    await c.chat(req(`my key is ${KEY}, is it valid?`)); // the request summary would hold it
    expect(await listFiles(cacheDir)).toEqual([]);
    expect(c.stats().cacheWarnings.filter((w) => /not written: it contains an API key/.test(w))).toHaveLength(2);
    expect(c.stats().cacheWarnings.join('\n')).not.toContain(KEY);
  });
});

describe('keys and provider resolution', () => {
  it('picks the provider a key exists for', () => {
    expect(availableChatProvider({})).toBeNull();
    expect(availableChatProvider({ OPENAI_API_KEY: 'x' })).toBe('openai');
    expect(availableChatProvider({ GOOGLE_API_KEY: 'x', ANTHROPIC_API_KEY: 'y' })).toBe('gemini');
  });

  it('a missing key is a UserError naming the variable, unless --cache-only or a local OpenAI-compatible server', async () => {
    const err = await createChatClient({ provider: 'gemini', cacheDir: await tempDir(), cache: true }, { env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).message).toBe('no API key for gemini: GEMINI_API_KEY is not set');
    expect((err as UserError).fix).toMatch(/--cache-only/);
    const anth = await createChatClient({ provider: 'anthropic', cacheDir: await tempDir(), cache: true }, { env: {} }).catch((e: unknown) => e);
    expect((anth as Error).message).toMatch(/ANTHROPIC_API_KEY/);
    await expect(createChatClient({ provider: 'gemini', cacheDir: await tempDir(), cache: true, cacheOnly: true }, { env: {} })).resolves.toBeTruthy();
    const local = await createChatClient({ baseUrl: server.baseUrl('openai'), model: 'llama3.2', cacheDir: await tempDir(), cache: true }, { env: {} });
    expect(local.provider).toBe('openai');
    server.setHandlers({ openai: script(ok.openai) });
    const r = await local.chat(req('local no key'));
    expect(r.costUsd).toBe(0); // a loopback server is free
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer skillbench-local-no-key');
  });

  it('resolves --base-url over the variable, defaults per provider, and rejects a bad --thinking', () => {
    const env = { ...ENV, OPENAI_BASE_URL: 'http://proxy.example/v1/' };
    expect(resolveConfig({ provider: 'openai', cacheDir: 'x', cache: true }, env)).toMatchObject({
      baseUrl: 'http://proxy.example/v1', model: defaultModel('openai')!.id, concurrency: 2, timeoutMs: 60_000, keyVariable: 'OPENAI_API_KEY',
    });
    expect(resolveConfig({ provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', cacheDir: 'x', cache: true, concurrency: 7, timeout: 2.5 }, env)).toMatchObject({
      baseUrl: 'http://127.0.0.1:9/v1', concurrency: 7, timeoutMs: 2500,
    });
    expect(resolveConfig({ provider: 'anthropic', cacheDir: 'x', cache: true }, ENV)).toMatchObject({ model: defaultModel('anthropic')!.id, concurrency: 4 });
    expect(resolveConfig({ cacheDir: 'x', cache: true }, { GOOGLE_API_KEY: 'g' })).toMatchObject({ provider: 'gemini', keyVariable: 'GOOGLE_API_KEY' });
    expect(() => resolveConfig({ cacheDir: 'x', cache: true }, {})).toThrow(UserError);
    expect(parseThinking('2048')).toBe(2048);
    expect(parseThinking('high')).toBe('high');
    expect(() => parseThinking('lots')).toThrow(UserError);
  });

  it('refuses a base URL without an http(s) scheme, naming where it came from', () => {
    const opts = { provider: 'openai', cacheDir: 'x', cache: true };
    expect(() => resolveConfig({ ...opts, baseUrl: 'localhost:11434/v1' }, ENV)).toThrow(/^--base-url: "localhost:11434\/v1" is not an http\(s\) URL$/);
    expect(() => resolveConfig(opts, { ...ENV, OPENAI_BASE_URL: 'proxy.example/v1' })).toThrow(/^OPENAI_BASE_URL: "proxy.example\/v1" is not an http\(s\) URL$/);
    const err = (() => {
      try {
        resolveConfig({ ...opts, provider: 'anthropic', baseUrl: 'ftp://x' }, ENV);
      } catch (e) {
        return e as UserError;
      }
    })();
    expect(err).toBeInstanceOf(UserError);
    expect(err!.fix).toMatch(/e\.g\. http:\/\/localhost:11434\/v1/);
  });

  it('honours the SDK base-URL variables when --base-url is absent', async () => {
    server.setHandlers({ gemini: script(ok.gemini), anthropic: script(ok.anthropic), openai: script(ok.openai) });
    for (const [p, v] of [['gemini', 'GOOGLE_GEMINI_BASE_URL'], ['anthropic', 'ANTHROPIC_BASE_URL'], ['openai', 'OPENAI_BASE_URL']] as const) {
      const c = await createChatClient({ provider: p, cacheDir: await tempDir(), cache: true }, { ...FAST, env: { ...ENV, [v]: server.baseUrl(p) } });
      const before = hitsOf(p);
      await c.chat(req(`env base ${p}`));
      expect(hitsOf(p) - before).toBe(1);
    }
  });
});

describe('cost, --dry-run and --max-cost', () => {
  it('prices usage at list price and separates cache reads', async () => {
    server.setHandlers({ anthropic: script(anthropic.toolUse('activate_skill', { name: 'pdf' }, { input: 100, cachedInput: 10_000, cacheWrite: 0, output: 50 })) });
    const c = await client('anthropic', { model: 'claude-haiku-4-5' });
    const r = await c.chat(req('priced'));
    // 100 uncached * $1 + 10,000 cached * $0.10 + 50 output * $5, per million
    expect(r.costUsd).toBeCloseTo((100 * 1 + 10_000 * 0.1 + 50 * 5) / 1e6, 12);
    expect(r.costUsd).toBeCloseTo(costOf('anthropic', 'claude-haiku-4-5-20251001', r.response.usage), 12);
    const st = c.stats();
    expect(st.tokens).toMatchObject({ inputTokens: 10_100, cachedInputTokens: 10_000, outputTokens: 50 });
    expect(st.spentUsd).toBeCloseTo(r.costUsd, 12);
    expect(c.summary()).toMatch(/10,000 cache reads/);
  });

  it('--dry-run calls nothing, counts cached requests and estimates the cost', async () => {
    server.setHandlers({ gemini: script(ok.gemini) });
    const cacheDir = await tempDir();
    const live = await client('gemini', { cacheDir });
    await live.chat(req('cached one'));
    const before = hitsOf('gemini');
    const dry = await createChatClient({ provider: 'gemini', cacheDir, cache: true, dryRun: true }, { env: {} });
    expect((await dry.chat(req('cached one'))).cached).toBe(true);
    // The second holds a special-token look-alike (untrusted text): counted as plain text, never a crash.
    for (const t of ['new one', 'new <|endoftext|> two']) await expect(dry.chat(req(t))).rejects.toBeInstanceOf(DryRunError);
    expect(hitsOf('gemini')).toBe(before);
    const rep = dry.dryRunReport();
    expect(rep).toMatchObject({ calls: 2, cached: 1, estimatedOutputTokens: 400 });
    expect(rep.estimatedInputTokens).toBeGreaterThan(20);
    expect(rep.estimatedCostUsd).toBeCloseTo((rep.estimatedInputTokens * 0.3 + 400 * 2.5) / 1e6, 12);
  });

  it('--max-cost refuses the call that could pass the limit, keeps serving the cache, and stays stopped', async () => {
    // Each answer bills 100,000 input tokens of gemini-2.5-flash = $0.03.
    server.setHandlers({ gemini: script(gemini.functionCall('activate_skill', { name: 'pdf' }, { input: 100_000, output: 0 })) });
    const c = await client('gemini', { maxCost: 0.0602 }); // 2 answers + the next estimate (~$0.0005) pass it
    const before = hitsOf('gemini');
    await c.chat(req('b1'));
    await c.chat(req('b2'));
    const err = await c.chat(req('b3')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err).not.toBeInstanceOf(ProviderError);
    expect(hitsOf('gemini') - before).toBe(2);
    expect((await c.chat(req('b1'))).cached).toBe(true);
    await expect(c.chat(req('b4'))).rejects.toBeInstanceOf(BudgetExceededError);
    expect(c.stats()).toMatchObject({ calls: 2, budgetExceeded: true });
    expect(c.stats().spentUsd).toBeCloseTo(0.06, 10);

    const zero = await client('gemini', { maxCost: 0 });
    await expect(zero.chat(req('nothing allowed'))).rejects.toBeInstanceOf(BudgetExceededError);
  });
});

describe('countTokens and embeddings through the client', () => {
  it('counts with the provider API once, then from the cache; openai has no count API', async () => {
    server.setHandlers({ anthropic: script(anthropic.countTokens(777)) });
    const c = await client('anthropic');
    const before = hitsOf('anthropic');
    expect(await c.countTokens(req('count me'))).toBe(777);
    expect(await c.countTokens(req('count me'))).toBe(777);
    expect(hitsOf('anthropic') - before).toBe(1);
    expect(await (await client('openai')).countTokens(req('x'))).toBeNull();
  });

  it('gemini embeddings: vectors cached on disk by model and text, --cache-only without a key', async () => {
    server.setHandlers({ gemini: (r) => gemini.embeddings(r.body.requests.map((_: unknown, i: number) => [i + 1, 0.5])) });
    const cacheDir = await tempDir();
    const e = await createEmbedder({ embeddings: 'gemini', baseUrl: server.url, cacheDir, cache: true }, FAST);
    expect(e.model).toBe('gemini-embedding-2');
    const docs = [{ text: 'Fill PDF forms', title: 'pdf' }, { text: 'Edit spreadsheets', title: 'xlsx' }];
    const before = hitsOf('gemini');
    const v1 = await e.embed(docs, 'document');
    const v2 = await e.embed(docs, 'document');
    expect(v2).toEqual(v1);
    expect(hitsOf('gemini') - before).toBe(1);
    const mixed = await e.embed([docs[1]!, { text: 'Write letters', title: 'docx' }], 'document');
    expect(mixed[0]).toEqual(v1[1]);
    expect(server.requests.at(-1)!.body.requests).toHaveLength(1); // only the new text was sent
    const files = await listFiles(path.join(cacheDir, 'embeddings', 'gemini--gemini-embedding-2'));
    expect(files).toHaveLength(1); // this process's segment
    expect(vectorFolderStats(path.dirname(files[0]!))).toMatchObject({ segments: 1, vectors: 3, duplicates: 0, badBytes: 0 });

    VectorStore.closeAll(); // a new process: read back from disk
    const offline = await createEmbedder({ embeddings: 'gemini', cacheDir, cache: true, cacheOnly: true }, { env: {} });
    expect(await offline.embed(docs, 'document')).toEqual(v1);
    await expect(offline.embed([{ text: 'unseen' }], 'query')).rejects.toBeInstanceOf(CacheMissError);
    await expect(createEmbedder({ embeddings: 'gemini', cacheDir, cache: true }, { env: {} })).rejects.toThrow(/GEMINI_API_KEY/);
    const dry = await createEmbedder({ embeddings: 'gemini', baseUrl: server.url, cacheDir, cache: true, dryRun: true }, FAST);
    const hits = hitsOf('gemini');
    await expect(dry.embed([{ text: 'unseen' }], 'query')).rejects.toBeInstanceOf(DryRunError);
    expect(await dry.embed(docs, 'document')).toEqual(v1);
    expect(hitsOf('gemini')).toBe(hits);
    expect(dry.stats()).toEqual({ cached: 2, computed: 0, misses: 1 });
  });
});

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
  }
  return out;
}
