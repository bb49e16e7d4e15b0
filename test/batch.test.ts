// --batch through each real SDK (@anthropic-ai/sdk, @google/genai, openai) against the wire server's batch APIs:
// a batch run writes the results file a live run writes (prices and timing apart) and fills the cache with the same
// keys and entries, so a rerun replays; a run killed after submitting is picked up without submitting again;
// expired, failed and stopped requests are error rows, never "none"; --batch-wait, --batch-status, --batch-cancel,
// --batch-retry; --dry-run --batch shows both prices.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readResults } from '../src/results.js';
import { computeMetrics } from '../src/metrics.js';
import type { ResultsFile } from '../src/types.js';
import { anthropic, fault, gemini, openai, startWireServer, type Api, type Recorded, type Reply, type WireServer } from './support/wire-server.js';
import { runCli } from './support/cli.js';
import { THREE_SKILLS } from './support/fixtures.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = existsSync(path.join(root, 'dist', 'cli.js'));

const catalogue = THREE_SKILLS;
const requests = [
  { id: 'pdf-1', text: 'Extract the tables from this PDF report', gold: 'doc-extractor' },
  { id: 'pdf-2', text: 'Merge these three PDF files into one', gold: 'doc-extractor' },
  { id: 'pdf-3', text: 'Split this long PDF in two', gold: 'doc-extractor' },
  { id: 'git-1', text: 'How do I resolve a merge conflict in git?', gold: 'git-helper' },
  { id: 'git-2', text: 'Rewrite the commit history of my branch', gold: 'git-helper' },
  { id: 'mail-1', text: 'Draft a professional email reply to my manager', gold: 'email-writer' },
  { id: 'neg-1', text: 'What is the capital of Peru?', gold: null },
  { id: 'neg-2', text: 'Tell me a joke about penguins', gold: null },
];
const gold = new Map(requests.map((r) => [r.text, r.gold]));

/** Models of the table with a batch price (openai on a loopback URL is free either way). */
const MODELS: Record<Api, string> = { anthropic: 'claude-haiku-5-5', gemini: 'gemini-3.5-flash-lite', openai: 'gpt-6-luna' };
const KEYS: Record<Api, string> = { anthropic: 'ANTHROPIC_API_KEY', gemini: 'GEMINI_API_KEY', openai: 'OPENAI_API_KEY' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function textOf(api: Api, body: any): string {
  if (api === 'gemini') return body.contents.at(-1).parts[0].text;
  return body.messages.at(-1).content;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function enumOf(api: Api, body: any): string[] {
  if (api === 'anthropic') return body.tools[0].input_schema.properties.name.enum;
  if (api === 'gemini') return body.tools[0].functionDeclarations[0].parametersJsonSchema.properties.name.enum;
  return body.tools[0].function.parameters.properties.name.enum;
}

/** The scripted model: loads the gold skill when it is offered, else answers in text; tokens follow the prompt. */
function answer(api: Api, rec: Recorded): Reply {
  const text = textOf(api, rec.body);
  const usage = { input: Math.round(JSON.stringify(rec.body).length / 4), output: 9 };
  const g = gold.get(text) ?? null;
  const load = g && enumOf(api, rec.body).includes(g) ? g : null;
  if (api === 'anthropic') return load ? anthropic.toolUse('activate_skill', { name: load }, usage) : anthropic.text('No skill needed.', usage);
  if (api === 'gemini') return load ? gemini.functionCall('activate_skill', { name: load }, usage) : gemini.text('No skill needed.', usage);
  return load ? openai.toolCall('activate_skill', { name: load }, usage) : openai.text('No skill needed.', usage);
}

/** Per test: what the batch requests get instead of the scripted answer (null: the answer). */
let special: ((api: Api, rec: Recorded) => Reply | null) | null = null;

let dir: string;
let server: WireServer;
const file = (name: string) => path.join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillbench-batch-'));
  await writeFile(file('catalogue.json'), JSON.stringify(catalogue));
  await writeFile(file('requests.json'), JSON.stringify(requests));
  const handler = (api: Api) => (rec: Recorded) => special?.(api, rec) ?? answer(api, rec);
  server = await startWireServer({ anthropic: handler('anthropic'), gemini: handler('gemini'), openai: handler('openai') });
});
afterAll(async () => {
  await server?.close();
  if (!process.env.KEEP_TMP) await rm(dir, { recursive: true, force: true });
});

const env = (api: Api) => ({
  [KEYS[api]]: `test-key-${api}-123456`,
  SKILLBENCH_BATCH_POLL_MS: '5',
  SKILLBENCH_RETRY_BASE_MS: '1',
  GEMINI_API_KEY: api === 'gemini' ? 'test-key-gemini-123456' : undefined,
  GOOGLE_API_KEY: undefined,
  ANTHROPIC_API_KEY: api === 'anthropic' ? 'test-key-anthropic-123456' : undefined,
  OPENAI_API_KEY: api === 'openai' ? 'test-key-openai-123456' : undefined,
  OPENAI_BASE_URL: undefined,
  ANTHROPIC_BASE_URL: undefined,
  GOOGLE_GEMINI_BASE_URL: undefined,
});

function args(api: Api, cache: string, ...more: string[]): string[] {
  return [
    'eval-trigger', '--no-progress', '--skills', file('catalogue.json'), '--requests', file('requests.json'),
    '--provider', api, '--model', MODELS[api], '--base-url', server.baseUrl(api), '--cache-dir', file(cache), ...more,
  ];
}
const cli = (api: Api, cache: string, ...more: string[]) => runCli(args(api, cache, ...more), { env: env(api) });
const count = (method: string, api?: Api) => server.requests.filter((r) => r.method === method && (!api || r.api === api)).length;

/** A results file without what a batch run may change: its prices, timing and the batch flag. */
function comparable(r: ResultsFile): unknown {
  return {
    ...r,
    createdAt: undefined,
    settings: { ...r.settings, batch: undefined },
    runs: r.runs.map((run) => ({ ...run, decisions: run.decisions.map((d) => ({ ...d, costUsd: undefined, latencyMs: undefined })) })),
  };
}

/** Every cache entry of a folder by key, without its date and its price. */
function entries(cache: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const top = path.join(file(cache), 'responses', 'v1');
  for (const sub of readdirSync(top)) {
    for (const name of readdirSync(path.join(top, sub))) {
      // The server names each answer's tool calls afresh (toolu_..., call_...): two calls never share an id.
      const text = readFileSync(path.join(top, sub, name), 'utf8').replace(/"(toolu|call)_[0-9a-z]+"/g, '"$1_*"');
      const e = JSON.parse(text);
      out.set(name, { ...e, createdAt: undefined, costUsd: undefined });
    }
  }
  return out;
}

function records(cache: string): { id: string | null; state: string; items: unknown[] }[] {
  const d = path.join(file(cache), 'batches');
  return existsSync(d) ? readdirSync(d).filter((n) => n.endsWith('.json')).map((n) => JSON.parse(readFileSync(path.join(d, n), 'utf8'))) : [];
}

describe.each(['anthropic', 'gemini', 'openai'] as const)('--batch through the %s SDK', (api) => {
  it('writes the results file a live run writes, prices and timing apart, and fills the cache a rerun replays', async () => {
    special = null;
    const live = await cli(api, `${api}-live`, '--selectors', 'model', '--json', file(`${api}-live.json`));
    expect(live.code, live.stderr).toBe(0);
    const creates = count('batches.create', api);
    const batch = await cli(api, `${api}-batch`, '--selectors', 'model', '--batch', '--json', file(`${api}-batch.json`));
    expect(batch.code, batch.stderr).toBe(0);
    expect(count('batches.create', api)).toBe(creates + 1); // every request in one job
    expect(batch.stderr).toMatch(/batch \S+ \(.+\): 8 requests submitted, recorded in .*batches/);
    // A local (loopback) OpenAI-compatible server is free, in a batch too.
    const multiplier = api === 'openai' ? '1' : '0\\.5';
    expect(batch.stderr).toMatch(new RegExp(`batch: 8 requests submitted in 1 batch; answers at the batch price \\(${multiplier}x the list price\\)`));
    const [a, b] = [await readResults(file(`${api}-live.json`)), await readResults(file(`${api}-batch.json`))];
    expect(comparable(b)).toEqual(comparable(a));
    expect(b.settings.batch).toBe(true);
    expect(computeMetrics(b.runs[0]!, b.requests).accuracy).toEqual(computeMetrics(a.runs[0]!, a.requests).accuracy);
    // The same keys, the same entries (date and price apart): the batch answers are a live run's cache.
    expect(entries(`${api}-batch`)).toEqual(entries(`${api}-live`));
    if (api !== 'openai') {
      // Half the list price, decision by decision (openai on a loopback base URL is free either way).
      const live$ = a.runs[0]!.decisions.map((d) => d.costUsd!);
      const batch$ = b.runs[0]!.decisions.map((d) => d.costUsd!);
      expect(live$.every((x) => x > 0)).toBe(true);
      batch$.forEach((x, i) => expect(x).toBeCloseTo(live$[i]! / 2, 12));
    }
    // A rerun replays the batch's answers: no call, the batch prices kept.
    const before = server.requests.length;
    const replay = await cli(api, `${api}-batch`, '--selectors', 'model', '--cache-only', '--json', file(`${api}-replay.json`));
    expect(replay.code, replay.stderr).toBe(0);
    expect(server.requests.length).toBe(before);
    const c = await readResults(file(`${api}-replay.json`));
    expect(c.runs[0]!.decisions.map((d) => [d.chosen, d.costUsd, d.cached])).toEqual(b.runs[0]!.decisions.map((d) => [d.chosen, d.costUsd, true]));
    expect(records(`${api}-batch`).map((r) => r.state)).toEqual(['collected']);
  });

  it.skipIf(!built)('picks up the batch of a run killed after submitting, without submitting again', async () => {
    special = null;
    server.batches.hold();
    const creates = count('batches.create', api);
    const child = spawn(process.execPath, [path.join(root, 'bin', 'skillbench.js'), ...args(api, `${api}-killed`, '--selectors', 'model', '--batch')], {
      env: { ...process.env, ...Object.fromEntries(Object.entries(env(api)).filter(([, v]) => v !== undefined)) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    try {
      // Killed once the job exists and its id is on disk.
      for (let i = 0; i < 400 && !records(`${api}-killed`).some((r) => r.state === 'submitted'); i++) await new Promise((r) => setTimeout(r, 25));
      expect(records(`${api}-killed`).map((r) => r.state), stderr).toEqual(['submitted']);
    } finally {
      child.kill('SIGKILL');
    }
    await exited;
    expect(count('batches.create', api)).toBe(creates + 1);
    server.batches.release();
    const r = await cli(api, `${api}-killed`, '--selectors', 'model', '--batch', '--json', file(`${api}-resumed.json`));
    expect(r.code, r.stderr).toBe(0);
    expect(count('batches.create', api)).toBe(creates + 1); // picked up, not submitted again
    expect(r.stderr).toMatch(/submitted by an earlier run on .*; 8 of its 8 requests are asked for again: waiting for it, not submitting them again/);
    expect(r.stderr).toMatch(/batch: 8 picked up from 1 batch an earlier run submitted/);
    const resumed = await readResults(file(`${api}-resumed.json`));
    const live = await readResults(file(`${api}-live.json`));
    expect(comparable(resumed)).toEqual(comparable(live));
    expect(records(`${api}-killed`).map((x) => x.state)).toEqual(['collected']);
  });
});

describe('--batch with model and hybrid, and with --max-cost', () => {
  it('sends the model and hybrid calls in one batch, hybrid\'s after the similarity ranking', async () => {
    special = null;
    const live = await cli('gemini', 'hybrid-live', '--selectors', 'model,hybrid', '--k', '2', '--json', file('hybrid-live.json'));
    expect(live.code, live.stderr).toBe(0);
    const creates = count('batches.create', 'gemini');
    const r = await cli('gemini', 'hybrid-batch', '--selectors', 'model,hybrid', '--k', '2', '--batch', '--json', file('hybrid-batch.json'));
    expect(r.code, r.stderr).toBe(0);
    expect(count('batches.create', 'gemini')).toBe(creates + 1);
    expect(server.batches.jobs.at(-1)!.items).toHaveLength(16);
    expect(comparable(await readResults(file('hybrid-batch.json')))).toEqual(comparable(await readResults(file('hybrid-live.json'))));
  });

  it('--max-cost reserves at the batch price and leaves what it refuses as budget rows', async () => {
    special = null;
    // About two requests' worth at the batch price (each estimated ~450 input + 200 output tokens, $0.00007).
    const r = await cli('anthropic', 'budget', '--selectors', 'model', '--batch', '--max-cost', '0.0002', '--json', file('budget.json'));
    expect(r.code).toBe(4);
    const res = await readResults(file('budget.json'));
    const kinds = res.runs[0]!.decisions.map((d) => d.errorKind ?? 'answered');
    expect(kinds.filter((k) => k === 'answered').length).toBeGreaterThan(0);
    expect(kinds.filter((k) => k === 'budget').length).toBeGreaterThan(0);
    expect(kinds.every((k) => k === 'answered' || k === 'budget')).toBe(true);
    expect(r.stderr).toMatch(/stopped calling: --max-cost reached/);
    expect(server.batches.jobs.at(-1)!.items.length).toBe(kinds.filter((k) => k === 'answered').length);
  });
});

describe('--batch when requests do not come back answered', () => {
  it('makes expired, failed and stopped requests error rows, counted apart and not cached; a rerun sends only them', async () => {
    const api = 'anthropic';
    special = (_api, rec) => {
      if (!rec.batch) return null;
      const text = textOf('anthropic', rec.body);
      if (text.startsWith('Split this long')) return fault.batchExpired();
      if (text.startsWith('How do I resolve')) return fault.status(400, { body: { type: 'error', error: { type: 'invalid_request_error', message: 'scripted refusal' } } });
      if (text.startsWith('Tell me a joke')) return anthropic.message([{ type: 'text', text: 'Why did the' }], { input: 50, output: 1024 }, 'max_tokens');
      return null;
    };
    const r = await cli(api, 'fail', '--selectors', 'model', '--batch', '--json', file('fail.json'));
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/batch: 1 expired, 1 failed: error rows, not cached; rerun with --batch to submit them in a new batch, or without --batch to call them live/);
    expect(r.stderr).toMatch(/1 responses ended without an answer \(length 1\): error rows, not cached/);
    const res = await readResults(file('fail.json'));
    const byId = new Map(res.runs[0]!.decisions.map((d) => [d.requestId, d]));
    expect(byId.get('pdf-3')).toMatchObject({ chosen: null, errorKind: 'call', error: expect.stringMatching(/batch request expired/) });
    expect(byId.get('git-1')).toMatchObject({ chosen: null, errorKind: 'call', error: expect.stringMatching(/invalid_request_error: scripted refusal/) });
    expect(byId.get('neg-2')).toMatchObject({ chosen: null, errorKind: 'stop', stopReason: 'length' });
    expect(res.completeness).toMatchObject({ failed: 3, total: 8, complete: false });
    expect(computeMetrics(res.runs[0]!, res.requests).errors).toBe(3);
    // The rerun answers the five cached ones from the cache and submits only the three others, in a new batch.
    special = null;
    const creates = count('batches.create', api);
    const again = await cli(api, 'fail', '--selectors', 'model', '--batch', '--json', file('fail-2.json'));
    expect(again.code, again.stderr).toBe(0);
    expect(count('batches.create', api)).toBe(creates + 1);
    const job = server.batches.jobs.at(-1)!;
    expect(job.items).toHaveLength(3);
    expect(again.stderr).toMatch(/anthropic\/claude-haiku-5-5: 3 calls, 5 cached, 0 errors/);
  });

  it('--batch-retry batch sends them again in a new batch in the same run; --batch-retry live calls them', async () => {
    let expiredOnce = false;
    special = (api, rec) => {
      if (!rec.batch || expiredOnce || !textOf(api, rec.body).startsWith('Split this long')) return null;
      expiredOnce = true;
      return fault.batchExpired();
    };
    const creates = count('batches.create', 'openai');
    const r = await cli('openai', 'retry-batch', '--selectors', 'model', '--batch', '--batch-retry', 'batch', '--json', file('retry-batch.json'));
    expect(r.code, r.stderr).toBe(0);
    expect(count('batches.create', 'openai')).toBe(creates + 2);
    expect(r.stderr).toMatch(/1 batch requests expired, were canceled or failed: sending them again in a new batch \(--batch-retry batch\)/);
    expect((await readResults(file('retry-batch.json'))).runs[0]!.decisions.every((d) => d.error === undefined)).toBe(true);

    // Gemini expires a whole job: every request comes back without an answer, and is called live.
    expiredOnce = false;
    const liveBefore = count('generateContent', 'gemini');
    const g = await cli('gemini', 'retry-live', '--selectors', 'model', '--batch', '--batch-retry', 'live', '--json', file('retry-live.json'));
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toMatch(/8 batch requests expired, were canceled or failed: sending them again live \(--batch-retry live\)/);
    expect(count('generateContent', 'gemini')).toBe(liveBefore + 8);
    const res = await readResults(file('retry-live.json'));
    expect(res.runs[0]!.decisions.every((d) => d.error === undefined)).toBe(true);
    expect(comparable(res)).toEqual(comparable(await readResults(file('gemini-live.json'))));
  });
});

describe('--batch-wait, --batch-status, --batch-cancel and --dry-run --batch', () => {
  it('leaves a running batch after --batch-wait, shows it, cancels it, and collects it on the next run', async () => {
    special = null;
    server.batches.hold();
    const api = 'anthropic';
    try {
      const r = await cli(api, 'manage', '--selectors', 'model', '--batch', '--batch-wait', '0', '--json', file('manage-1.json'));
      expect(r.code).toBe(4); // nothing measured yet: incomplete
      expect(r.stderr).toMatch(/batch: 8 requests still running after --batch-wait: error rows for now; rerun the same command to collect them/);
      const first = await readResults(file('manage-1.json'));
      expect(first.runs[0]!.decisions.every((d) => d.error?.includes('still running after --batch-wait 0 s'))).toBe(true);

      const dry = await cli(api, 'manage', '--selectors', 'model', '--batch', '--dry-run');
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(/8 of these calls are in batches an earlier run submitted: they would be picked up, not submitted again/);

      const status = await cli(api, 'manage', '--batch-status');
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toMatch(/msgbatch_\w+ {2}anthropic\/claude-haiku-5-5 {2}8 requests {2}submitted/);
      expect(status.stdout).toMatch(/at the provider: in_progress.*still running/);

      const cancel = await cli(api, 'manage', '--batch-cancel');
      expect(cancel.code, cancel.stderr).toBe(0);
      expect(cancel.stdout).toMatch(/cancel requested/);
      expect(count('batches.cancel', api)).toBeGreaterThan(0);
      expect(records('manage').map((x) => x.state)).toEqual(['cancelling']);
    } finally {
      server.batches.release();
    }
    // The next run collects the cancelled job (its requests canceled), and --batch-retry batch submits them anew.
    const creates = count('batches.create', api);
    const next = await cli(api, 'manage', '--selectors', 'model', '--batch', '--batch-retry', 'batch', '--json', file('manage-2.json'));
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/8 canceled; 8 sent again \(--batch-retry\)/);
    expect(count('batches.create', api)).toBe(creates + 1);
    const status = await cli(api, 'manage', '--batch-status');
    expect(status.stdout.trim().split('\n').filter((l) => / collected: /.test(l)), status.stdout + next.stderr).toHaveLength(2);
  });

  it('says when a run stopped mid-submission, and gives up on a job the server does not know, submitting again', async () => {
    special = null;
    const { mkdir } = await import('node:fs/promises');
    // A record as a run stopped before the provider returned the id leaves it, and one of a job the server never had.
    const done = records('openai-batch')[0]! as unknown as Record<string, unknown>;
    await mkdir(path.join(file('orphans'), 'batches'), { recursive: true });
    const write = (name: string, fields: Record<string, unknown>) =>
      writeFile(path.join(file('orphans'), 'batches', `${name}.json`), JSON.stringify({ ...done, local: name, ...fields }));
    await write('skillbench-interrupted', { id: null, state: 'submitting' });
    const r1 = await cli('openai', 'orphans', '--selectors', 'model', '--batch', '--json', file('orphans-1.json'));
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.stderr).toMatch(/a run stopped while submitting its 8 requests, before the provider returned an id; if that job exists \(look for "skillbench-interrupted"/);
    expect(records('orphans').filter((x) => x.state === 'submitting')).toHaveLength(0);

    await rm(path.join(file('orphans'), 'responses'), { recursive: true });
    await write('skillbench-lost', { id: 'batch_unknown0000', state: 'submitted', createdAt: '2026-01-01T00:00:00.000Z' });
    const creates = count('batches.create', 'openai');
    const r2 = await cli('openai', 'orphans', '--selectors', 'model', '--batch', '--batch-retry', 'batch', '--json', file('orphans-2.json'));
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stderr).toMatch(/batch batch_unknown0000 .*submitted by an earlier run/);
    expect(count('batches.create', 'openai')).toBe(creates + 1);
    const lost = JSON.parse(readFileSync(path.join(file('orphans'), 'batches', 'skillbench-lost.json'), 'utf8'));
    expect(lost).toMatchObject({ state: 'collected', note: expect.stringMatching(/unknown to the server: .*404/) });
    expect(comparable(await readResults(file('orphans-2.json')))).toEqual(comparable(await readResults(file('openai-live.json'))));
  });

  it('--dry-run --batch shows the list and the batch price of the calls it would submit', async () => {
    const r = await cli('gemini', 'dry', '--selectors', 'model', '--batch', '--dry-run');
    expect(r.code).toBe(0);
    const m = /8 calls would be submitted in a batch and 0 \(0%\) answered from the cache; .*~\$([\d.]+) at the list price, ~\$([\d.]+) at the batch price \(0\.5x, --batch\)/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(Number(m![2])).toBeCloseTo(Number(m![1]) / 2, 4);
    expect(count('batches.create', 'gemini')).toBeGreaterThan(0); // earlier tests only: the dry run submitted nothing
  });

  it('refuses --batch with --cache-only, and says when no selector makes a model call', async () => {
    const r = await cli('openai', 'x', '--selectors', 'model', '--batch', '--cache-only');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--batch and --cache-only/);
    const k = await cli('openai', 'x', '--selectors', 'keyword', '--batch');
    expect(k.code).toBe(0);
    expect(k.stderr).toMatch(/--batch applies to the model and hybrid selectors only/);
  });
});
