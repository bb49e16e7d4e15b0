// Selectors end to end: model and hybrid through the real OpenAI / Anthropic SDKs against the local wire-format
// server (scripted answers: the right skill, a wrong one, none, a name outside the enum, an error), explicit mentions,
// keyword (BM25) and similarity with the offline `use` model, and the metrics computed from them checked by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { anthropic, fault, openai, startWireServer, type Recorded, type WireServer } from './support/wire-server.js';
import { createChatClient, createEmbedder } from '../src/client.js';
import { computeMetrics } from '../src/metrics.js';
import { runModelSelector, MODEL_INSTRUCTION } from '../src/selectors/model.js';
import { runHybridSelector, shortlist } from '../src/selectors/hybrid.js';
import { explicitMention, runExplicitSelector } from '../src/selectors/explicit.js';
import { rankByKeyword } from '../src/selectors/keyword.js';
import { rankBySimilarity, cosine } from '../src/selectors/similarity.js';
import { scoreRun } from '../src/selectors/index.js';
import type { ProviderOptions } from '../src/options.js';
import type { EvalRequest, Lane, Skill } from '../src/types.js';

function skill(name: string, description: string): Skill {
  return {
    name, description, body: '', category: '', file: `/cat/${name}/SKILL.md`, location: `${name}/SKILL.md`, hash: name.slice(0, 4),
    resources: [], state: 'available', toolProfiles: [], frontmatter: {},
  };
}

const skills = [
  skill('pdf-tools', 'Extract text and tables from PDF files, merge and split PDF documents, and fill PDF forms.'),
  skill('git-helper', 'Explain git errors, resolve merge conflicts, rewrite commit history and manage branches.'),
  skill('email-writer', 'Draft and polish professional emails: replies, follow-ups, apologies and announcements.'),
  skill('weather-report', 'Give the current weather and a five-day forecast for a city.'),
];

// What the scripted model answers, by request text.
const requests: EvalRequest[] = [
  { id: 'right', text: 'Merge these two PDF files into one', gold: 'pdf-tools' },
  { id: 'wrong', text: 'I have a merge conflict in git', gold: 'git-helper' },
  { id: 'none', text: 'Write an apology email to a customer', gold: 'email-writer' },
  { id: 'outside', text: 'Split this PDF into pages', gold: 'pdf-tools' },
  { id: 'error', text: 'What is the weather in Lyon tomorrow?', gold: 'weather-report' },
  { id: 'neg-ok', text: 'What is the capital of France?', gold: null },
  { id: 'neg-load', text: 'Tell me a joke about cats', gold: null },
];
const script: Record<string, { call?: string; text?: string; fail?: boolean }> = {
  right: { call: 'pdf-tools' },
  wrong: { call: 'email-writer' },
  none: { text: 'Dear customer, we are sorry...' },
  outside: { call: 'pdf-splitter' },
  error: { fail: true },
  'neg-ok': { text: 'Paris.' },
  'neg-load': { call: 'weather-report' },
};

const lastUser = (body: { messages: { role: string; content: unknown }[] }) => {
  const m = [...body.messages].reverse().find((x) => x.role === 'user')!;
  return typeof m.content === 'string' ? m.content : (m.content as { text: string }[]).map((p) => p.text).join('');
};
const idOf = (text: string) => requests.find((r) => r.text === text)!.id;

let server: WireServer;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillbench-selectors-'));
  server = await startWireServer({
    openai: (req) => {
      const s = script[idOf(lastUser(req.body))]!;
      if (s.fail) return fault.status(400, { body: { error: { message: 'scripted bad request', type: 'invalid_request_error' } } });
      return s.call ? openai.toolCall('activate_skill', { name: s.call }, { input: 1000, output: 10 }) : openai.text(s.text!, { input: 1000, output: 20 });
    },
    anthropic: (req) => {
      const s = script[idOf(lastUser(req.body))]!;
      if (s.fail) return fault.status(400, { body: { type: 'error', error: { type: 'invalid_request_error', message: 'scripted' } } });
      return s.call ? anthropic.toolUse('activate_skill', { name: s.call }, { input: 100, cachedInput: 900, output: 10 }) : anthropic.text(s.text!);
    },
  });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const providerOpts = (over: Partial<ProviderOptions>): ProviderOptions => ({ cacheDir: path.join(dir, 'cache'), cache: true, ...over });
const lane = (): Lane => ({ name: 'x', total: 0, done: 0, inFlight: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, errors: 0 });

describe('model selector through the OpenAI SDK and the wire server', () => {
  it('turns each scripted answer into the right decision and the metrics by hand', async () => {
    const client = await createChatClient(providerOpts({ provider: 'openai', baseUrl: server.baseUrl('openai'), model: 'local-model', cache: false }), { env: {}, maxRetries: 0 });
    const l = lane();
    const run = await runModelSelector(client, skills, requests, { format: 'xml', runs: 1, lane: l });
    const by = Object.fromEntries(run.decisions.map((d) => [d.requestId, d]));
    expect(by.right).toMatchObject({ chosen: 'pdf-tools', cached: false });
    expect(by.right!.usage!.inputTokens).toBe(1000);
    expect(by.wrong!.chosen).toBe('email-writer');
    expect(by.none!.chosen).toBeNull();
    expect(by.none!.rawChoice).toBeUndefined();
    expect(by.outside).toMatchObject({ chosen: null, rawChoice: 'pdf-splitter' });
    expect(by.error!.error).toMatch(/400/);
    expect(by.error!.chosen).toBeNull();
    expect(by['neg-load']!.chosen).toBe('weather-report');
    expect(l.done).toBe(7);

    // What the SDK sent: the instruction and the level-1 catalogue, the tool with the names as an enum, one user turn.
    const sent = server.requests.filter((r: Recorded) => r.api === 'openai');
    const body = sent[0]!.body;
    expect(body.messages[0].content).toContain(MODEL_INSTRUCTION);
    expect(body.messages[0].content).toContain('git-helper');
    expect(body.messages).toHaveLength(2);
    expect(body.tools[0].function.name).toBe('activate_skill');
    expect(body.tools[0].function.parameters.properties.name.enum).toEqual(['email-writer', 'git-helper', 'pdf-tools', 'weather-report']);

    // By hand: 6 decisions without error; correct: right, neg-ok -> 2/6. Covered without error: right, wrong, none,
    // outside -> wrong load 3/4. Uncovered: neg-ok, neg-load -> needless 1/2. One error, counted apart.
    const m = computeMetrics(run, requests);
    expect([m.accuracy.k, m.accuracy.n]).toEqual([2, 6]);
    expect([m.wrongLoad.k, m.wrongLoad.n]).toEqual([3, 4]);
    expect([m.needlessLoad.k, m.needlessLoad.n]).toEqual([1, 2]);
    expect(m.errors).toBe(1);
    expect(m.meanInputTokens).toBe(1000);
    expect(m.confusion).toEqual(expect.arrayContaining([{ gold: 'pdf-tools', got: 'pdf-splitter', count: 1 }, { gold: 'git-helper', got: 'email-writer', count: 1 }]));
  });

  it('gives each --runs repeat its own cache key and replays them with --cache-only', async () => {
    const opts = providerOpts({ provider: 'openai', baseUrl: server.baseUrl('openai'), model: 'runs-model', cacheDir: path.join(dir, 'runs-cache') });
    const before = server.hits.openai;
    const live = await runModelSelector(await createChatClient(opts, { env: {}, maxRetries: 0 }), skills, requests.slice(0, 2), { format: 'xml', runs: 3 });
    expect(server.hits.openai - before).toBe(6);
    expect(live.decisions.map((d) => d.run)).toEqual([0, 0, 1, 1, 2, 2]);
    const replay = await runModelSelector(await createChatClient({ ...opts, cacheOnly: true }, { env: {} }), skills, requests.slice(0, 3), { format: 'xml', runs: 1 });
    expect(server.hits.openai - before).toBe(6);
    expect(replay.decisions[0]).toMatchObject({ chosen: 'pdf-tools', cached: true });
    // Not cached: an error result ("not in the cache"), never "none".
    expect(replay.decisions[2]!.error).toMatch(/not in the cache/);
  });
});

describe('model selector through the Anthropic SDK', () => {
  it('marks the catalogue block for caching and records cached input tokens', async () => {
    const client = await createChatClient(providerOpts({ provider: 'anthropic', baseUrl: server.baseUrl('anthropic'), cache: false }), {
      env: { ANTHROPIC_API_KEY: 'test-key' },
      maxRetries: 0,
    });
    const run = await runModelSelector(client, skills, requests.slice(0, 1), { format: 'xml', runs: 1 });
    expect(run.decisions[0]!.chosen).toBe('pdf-tools');
    expect(run.decisions[0]!.usage).toMatchObject({ inputTokens: 1000, cachedInputTokens: 900 });
    const body = server.requests.filter((r) => r.api === 'anthropic').at(-1)!.body;
    const cachedBlock = body.system.find((b: { cache_control?: unknown }) => b.cache_control);
    expect(cachedBlock.text).toContain('pdf-tools');
  });
});

describe('hybrid selector', () => {
  it('asks the model among the top k of the similarity ranking only', async () => {
    const client = await createChatClient(providerOpts({ provider: 'openai', baseUrl: server.baseUrl('openai'), model: 'hybrid-model', cache: false }), { env: {}, maxRetries: 0 });
    const reqs = requests.filter((r) => ['right', 'wrong', 'neg-ok'].includes(r.id));
    // Fixed rankings (as similarity would give): 'wrong' has its gold ranked 3rd, outside k = 2.
    const rankings = [
      [{ name: 'pdf-tools', score: 0.9 }, { name: 'git-helper', score: 0.5 }, { name: 'email-writer', score: 0.2 }],
      [{ name: 'email-writer', score: 0.6 }, { name: 'weather-report', score: 0.5 }, { name: 'git-helper', score: 0.4 }],
      [{ name: 'weather-report', score: 0.3 }, { name: 'pdf-tools', score: 0.1 }, { name: 'git-helper', score: 0.0 }],
    ];
    const start = server.requests.length;
    const run = await runHybridSelector(client, skills, reqs, rankings, { k: 2, format: 'xml', runs: 1 });
    expect(run.selector).toBe('hybrid');
    const sent = server.requests.slice(start).map((r) => r.body);
    const enums = sent.map((b) => b.tools[0].function.parameters.properties.name.enum as string[]);
    expect(enums.every((e) => e.length === 2)).toBe(true);
    const forWrong = sent.find((b) => lastUser(b) === reqs[1]!.text)!;
    expect(forWrong.tools[0].function.parameters.properties.name.enum).toEqual(['email-writer', 'weather-report']);
    expect(forWrong.messages[0].content).not.toContain('git-helper');
    expect(run.decisions.map((d) => d.chosen)).toEqual(['pdf-tools', 'email-writer', null]);
    expect(run.decisions[0]!.scores![0]).toEqual({ name: 'pdf-tools', score: 0.9 });
    const m = computeMetrics(run, reqs);
    expect([m.accuracy.k, m.accuracy.n]).toEqual([2, 3]);
    expect(m.recall!.top1.k).toBe(1); // only 'right' has its gold first
    expect(m.recall!.top3.k).toBe(2);
  });
  it('keeps the shortlist in catalogue order', () => {
    expect(shortlist(skills, [{ name: 'weather-report', score: 1 }, { name: 'pdf-tools', score: 0.5 }], 2).map((s) => s.name)).toEqual(['pdf-tools', 'weather-report']);
  });
});

describe('explicit selector', () => {
  it('reads /name at the start and @name anywhere, not paths or e-mail addresses', () => {
    expect(explicitMention('/pdf-tools merge a.pdf and b.pdf')).toBe('pdf-tools');
    expect(explicitMention('please use @git-helper, thanks')).toBe('git-helper');
    expect(explicitMention('can you (@email-writer) draft it?')).toBe('email-writer');
    expect(explicitMention('/usr/bin/python is slow')).toBeNull();
    expect(explicitMention('mail bob@pdf-tools.com')).toBeNull();
    expect(explicitMention('summarise /pdf-tools docs')).toBeNull();
    expect(explicitMention('end with @weather-report.')).toBe('weather-report');
  });
  it('loads the named skill, misses an unknown name (no crash) and loads nothing without a mention', () => {
    const reqs: EvalRequest[] = [
      { id: 'a', text: '/pdf-tools split this', gold: 'pdf-tools' },
      { id: 'b', text: 'ask @Git-Helper about this rebase', gold: 'git-helper' },
      { id: 'c', text: '/pdf-magic split this', gold: 'pdf-tools' },
      { id: 'd', text: 'split this PDF', gold: 'pdf-tools' },
      { id: 'e', text: 'hello @nobody', gold: null },
    ];
    const run = runExplicitSelector(skills, reqs);
    expect(run.decisions.map((d) => [d.chosen, d.rawChoice, d.detail?.unresolved])).toEqual([
      ['pdf-tools', undefined, undefined],
      ['git-helper', undefined, undefined],
      [null, undefined, 'pdf-magic'],
      [null, undefined, undefined],
      [null, undefined, 'nobody'],
    ]);
    const m = computeMetrics(run, reqs);
    expect([m.wrongLoad.k, m.wrongLoad.n]).toEqual([2, 4]);
    // An unresolved mention loads nothing: no needless load (the host would answer "no such skill").
    expect([m.needlessLoad.k, m.needlessLoad.n]).toEqual([0, 1]);
  });
});

describe('keyword selector', () => {
  it('ranks with BM25 over names and descriptions, best first, every skill kept for a small catalogue', () => {
    const [pdf, git, none] = rankByKeyword(skills, [
      { id: '1', text: 'merge and split PDF documents', gold: 'pdf-tools' },
      { id: '2', text: 'git branches are a mess', gold: 'git-helper' },
      { id: '3', text: 'zzz qqq', gold: null },
    ]);
    expect(pdf![0]!.name).toBe('pdf-tools');
    expect(git![0]!.name).toBe('git-helper');
    expect(pdf).toHaveLength(4);
    expect(none![0]!.score).toBe(0);
    expect(pdf![0]!.score).toBeGreaterThan(pdf![1]!.score);
  });
});

describe('similarity selector with the offline use model', () => {
  it('ranks the matching description first and thresholds the top score', async () => {
    const embedder = await createEmbedder(providerOpts({ embeddings: 'use', cacheDir: path.join(dir, 'emb') }));
    const reqs: EvalRequest[] = [
      { id: 's1', text: 'Will it rain in Paris this weekend?', gold: 'weather-report' },
      { id: 's2', text: 'Help me write a polite follow-up email to a client', gold: 'email-writer' },
      { id: 's3', text: 'How do I undo my last git commit?', gold: 'git-helper' },
    ];
    const rankings = await rankBySimilarity(embedder, skills, reqs);
    expect(rankings.map((r) => r[0]!.name)).toEqual(['weather-report', 'email-writer', 'git-helper']);
    expect(rankings[0]).toHaveLength(4);
    expect(rankings[0]![0]!.score).toBeGreaterThan(rankings[0]![1]!.score);
    const run = scoreRun('similarity', reqs, rankings, { value: 2, source: 'fixed' });
    expect(run.decisions.every((d) => d.chosen === null)).toBe(true); // cosine never reaches 2
    expect(scoreRun('similarity', reqs, rankings, { value: -1, source: 'fixed' }).decisions.map((d) => d.chosen)).toEqual([
      'weather-report', 'email-writer', 'git-helper',
    ]);
  });
  it('computes cosine', () => {
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 1], [2, 2])).toBeCloseTo(1, 12);
    expect(cosine([0, 0], [1, 1])).toBe(0);
  });
});
