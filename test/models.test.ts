// Issue 10's guarantees, end to end through the CLI and the real SDKs against the strict wire server: every model
// of the table runs a default eval-trigger with 0 errors; settings a model does not take are refused before any
// call; responses that stopped without an answer are error rows (never "none", never cached); outages stop the run
// fast with exit 4; --timeout bounds the whole answer; keys and base-URL credentials reach no output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import { findModel, isRetired, modelTable, parseModelTable, today, daysBetween } from '../src/providers/models.js';
import { planModel, thinkingParam } from '../src/providers/params.js';
import { readResults } from '../src/results.js';
import { responseProblem } from '../src/cache.js';
import type { ProviderId } from '../src/types.js';
import {
  anthropic,
  fault,
  gemini,
  geminiDailyQuota,
  openai,
  openaiInsufficientQuota,
  script,
  startWireServer,
  type Api,
  type Handler,
  type Recorded,
  type WireServer,
} from './support/wire-server.js';
import { strictRefusal } from './support/strict-models.js';
import { runCli } from './support/cli.js';
import { clearProviderEnv } from './support/fixtures.js';

clearProviderEnv();

const catalogue = [
  { name: 'doc-extractor', description: 'Extract text and tables from PDF files and fill PDF forms.' },
  { name: 'git-helper', description: 'Explain git errors and resolve merge conflicts.' },
  { name: 'email-writer', description: 'Draft and polish professional emails.' },
];
const requests = [
  { id: 'pdf', text: 'Extract the tables from this PDF report', gold: 'doc-extractor' },
  { id: 'git', text: 'How do I resolve a merge conflict in git?', gold: 'git-helper' },
  { id: 'mail', text: 'Draft a reply to my manager', gold: 'email-writer' },
  { id: 'none', text: 'What is the capital of Peru?', gold: null },
];
const goldOf = new Map(requests.map((r) => [r.text, r.gold]));

let dir: string;
const file = (name: string) => path.join(dir, name);
const ENV_KEYS: Record<Api, string> = { gemini: 'GEMINI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };

/** The last user text of a request, whatever the API. */
function userText(req: Recorded): string {
  if (req.api === 'gemini') return req.body.contents.at(-1).parts[0].text;
  const last = req.body.messages.at(-1);
  return typeof last.content === 'string' ? last.content : last.content[0].text;
}

/** A model that loads the gold skill, or answers in words when none fits. */
const decider: Record<Api, Handler> = {
  gemini: (req) => (goldOf.get(userText(req)) ? gemini.functionCall('activate_skill', { name: goldOf.get(userText(req))! }) : gemini.text('No skill needed.')),
  anthropic: (req) => (goldOf.get(userText(req)) ? anthropic.toolUse('activate_skill', { name: goldOf.get(userText(req))! }) : anthropic.text('No skill needed.')),
  openai: (req) => (goldOf.get(userText(req)) ? openai.toolCall('activate_skill', { name: goldOf.get(userText(req))! }) : openai.text('No skill needed.')),
};

let runs = 0;
async function evalTrigger(api: Api, server: WireServer | string, extra: string[] = [], env: Record<string, string | undefined> = {}, cache = `cache-${api}-${++runs}`) {
  const baseUrl = typeof server === 'string' ? server : server.baseUrl(api);
  return runCli(
    ['eval-trigger', '--skills', file('skills.json'), '--requests', file('requests.json'), '--selectors', 'model', '--provider', api, '--base-url', baseUrl,
      '--cache-dir', file(cache), '--no-progress', ...extra],
    { env: { [ENV_KEYS[api]]: 'test-key-0123456789', SKILLBENCH_RETRY_BASE_MS: '5', ...env } },
  );
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillbench-models-'));
  await writeFile(file('skills.json'), JSON.stringify(catalogue));
  await writeFile(file('requests.json'), JSON.stringify(requests));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the model table', () => {
  const table = modelTable();

  it('has one current default per provider, none retired or retiring within three months of its review date', () => {
    for (const p of ['gemini', 'anthropic', 'openai'] as ProviderId[]) {
      const defaults = table.models.filter((m) => m.provider === p && m.kind === 'chat' && m.default);
      expect(defaults).toHaveLength(1);
      const d = defaults[0]!;
      expect(isRetired(d, table.reviewed)).toBe(false);
      if (d.shutdown) expect(daysBetween(table.reviewed, d.shutdown)).toBeGreaterThan(90);
      expect(d.prices).not.toBeNull();
    }
  });

  it('every row is dated and sourced, and the review is recent', () => {
    for (const m of table.models) {
      expect(m.sources.length).toBeGreaterThan(0);
      for (const s of m.sources) expect(s.read).toMatch(/^\d{4}-\d{2}(-\d{2})?$/);
    }
    // A table older than 45 days is stale: model facts move monthly.
    expect(daysBetween(table.reviewed, today())).toBeLessThan(45);
  });

  it('refuses a bad row naming the file, the row and the field', () => {
    const row = { provider: 'openai', id: 'x', kind: 'chat', status: 'active', thinking: { style: 'level', levels: [] }, sources: [] };
    expect(() => parseModelTable(JSON.stringify({ reviewed: '2026-12-01', models: [row] }), 'my.json')).toThrow(/my\.json: models\[0\] \(openai\/x\) field "thinking\.levels"/);
    expect(() => parseModelTable(JSON.stringify({ reviewed: '2026-12-01', models: [{ ...row, status: 'gone' }] }), 'my.json')).toThrow(/field "status" must be one of/);
    expect(() => parseModelTable('{"models": []}', 'my.json')).toThrow(/field "reviewed"/);
  });
});

describe('parameters each model takes', () => {
  const row = (p: ProviderId, id: string) => findModel(p, id)!;

  it('translates --thinking per row, and refuses what a model does not take, naming what it does', () => {
    const luna = row('openai', 'gpt-6-luna');
    expect(thinkingParam(luna, undefined)).toEqual({ level: 'none' });
    // gpt-6-luna takes `low`, but not together with function tools (Chat Completions): refused before any call.
    expect(() => planModel('openai', 'gpt-6-luna', luna, 'low', '2026-12-01', false)).toThrow(/takes function tools only with reasoning effort none/);
    expect(strictRefusal('openai', 'chat.completions', 'gpt-6-luna', { tools: [{}], reasoning_effort: 'low' })?.status).toBe(400);
    expect(() => thinkingParam(luna, 'minimal')).toThrow(/does not take thinking level "minimal"/);
    expect(() => thinkingParam(luna, 2048)).toThrow(/not a token budget/);
    const haiku = row('anthropic', 'claude-haiku-5-5');
    expect(thinkingParam(haiku, undefined)).toEqual({ adaptive: 'low' });
    expect(thinkingParam(haiku, 'off')).toBeUndefined();
    const lite = row('gemini', 'gemini-2.5-flash-lite');
    expect(thinkingParam(lite, 'off')).toEqual({ budget: 0 });
    expect(() => planModel('gemini', 'gemini-2.5-flash', row('gemini', 'gemini-2.5-flash'), undefined, '2026-12-01', false)).toThrow(/retired on 2026-12-01.*/);
    expect(() => planModel('openai', 'mystery', null, 'high', '2026-12-01', false)).toThrow(/not in the model table/);
    expect(planModel('openai', 'mystery', null, undefined, '2026-12-01', false).notes[0]).toMatch(/not in the model table: no optional parameter/);
  });

  it('the strict server refuses what the real API refuses', () => {
    expect(strictRefusal('openai', 'chat.completions', 'gpt-6-luna', { temperature: 0 })?.status).toBe(400);
    expect(strictRefusal('openai', 'chat.completions', 'gpt-6-luna', { reasoning_effort: 'minimal' })?.status).toBe(400);
    expect(strictRefusal('openai', 'chat.completions', 'gpt-6-luna', { reasoning_effort: 'none' })).toBeNull();
    expect(strictRefusal('anthropic', 'messages', 'claude-haiku-5-5', { thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 4096 })?.status).toBe(400);
    expect(strictRefusal('gemini', 'generateContent', 'gemini-2.5-flash', {})?.status).toBe(404);
    expect(strictRefusal('openai', 'chat.completions', 'local-test-model', { temperature: 0 })).toBeNull();
  });

  it('--thinking a model does not take stops the run before any call, in one line (exit 2)', async () => {
    const server = await startWireServer(decider);
    try {
      const r = await evalTrigger('openai', server, ['--model', 'gpt-6-luna', '--thinking', 'minimal']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--thinking minimal: openai\/gpt-6-luna does not take thinking level "minimal"/);
      expect(server.hits.openai).toBe(0);
      const retired = await evalTrigger('gemini', server, ['--model', 'gemini-2.5-flash']);
      expect(retired.code).toBe(2);
      expect(retired.stderr).toMatch(/retired on 2026-12-01; calls to it fail[\s\S]*--model gemini-3\.5-flash-lite/);
      expect(server.hits.gemini).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('every chat row of the table runs a default eval-trigger with 0 errors (real SDKs, strict server)', () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer(decider);
  });
  afterAll(() => server.close());
  const rows = modelTable().models.filter((m) => m.kind === 'chat' && !isRetired(m, today()));
  const toolless = rows.filter((m) => m.thinking.withTools?.length === 0);

  it.each(toolless.map((m) => [`${m.provider}/${m.id}`, m.provider, m.id] as const))('%s takes no function tools: refused before any call', async (_name, provider, id) => {
    const before = server.hits[provider];
    const r = await evalTrigger(provider, server, ['--model', id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/takes no function tools through the API skillbench calls/);
    expect(server.hits[provider]).toBe(before);
  });

  it.each(rows.filter((m) => !toolless.includes(m)).map((m) => [`${m.provider}/${m.id}`, m.provider, m.id] as const))('%s', async (_name, provider, id) => {
    const r = await evalTrigger(provider, server, ['--model', id, '--no-cache', '-o', file(`${provider}-${id}.json`)]);
    expect(r.stderr).not.toMatch(/refused|HTTP 4|run stopped|incomplete/);
    expect(r.code).toBe(0);
    const results = await readResults(file(`${provider}-${id}.json`));
    const decisions = results.runs[0]!.decisions;
    expect(decisions.filter((d) => d.error)).toEqual([]);
    expect(decisions.map((d) => d.chosen)).toEqual(['doc-extractor', 'git-helper', 'email-writer', null]);
    expect(results.completeness).toMatchObject({ complete: true, failed: 0, total: 4 });
  });
});

describe('a response that stopped without an answer is an error row with its reason, never "none", never cached', () => {
  const stopped: Record<Api, { length: () => ReturnType<Handler>; refusal: () => ReturnType<Handler> }> = {
    gemini: { length: () => gemini.content([{ text: 'Let me think' }], { output: 512 }, 'MAX_TOKENS'), refusal: () => gemini.content([], {}, 'SAFETY') },
    anthropic: { length: () => anthropic.message([{ type: 'text', text: 'Let me' }], {}, 'max_tokens'), refusal: () => anthropic.message([], {}, 'refusal') },
    openai: {
      length: () => openai.message({ role: 'assistant', content: 'Let me' }, {}, 'length'),
      refusal: () => openai.message({ role: 'assistant', content: null, refusal: 'I cannot help with that.' }, {}, 'stop'),
    },
  };

  for (const api of ['gemini', 'anthropic', 'openai'] as Api[]) {
    it(`${api}: length and refusal are errors with their reasons; a rerun asks again`, async () => {
      const server = await startWireServer({
        [api]: (req: Recorded) => (userText(req).includes('PDF') ? stopped[api].length() : userText(req).includes('git') ? stopped[api].refusal() : decider[api](req)),
      });
      try {
        const first = await evalTrigger(api, server, ['-o', file(`stop-${api}.json`), '-o', file(`stop-${api}.md`)], {}, `cache-stop-${api}`);
        expect(first.code).toBe(4);
        const d = (await readResults(file(`stop-${api}.json`))).runs[0]!.decisions;
        expect(d[0]).toMatchObject({ chosen: null, errorKind: 'stop', stopReason: 'length' });
        expect(d[1]).toMatchObject({ chosen: null, errorKind: 'stop', stopReason: api === 'gemini' ? 'safety' : 'refusal' });
        expect(d[3]).toMatchObject({ chosen: null });
        expect(d[3]!.error).toBeUndefined();
        expect(first.stderr).toMatch(/2 responses ended without an answer/);
        expect(await readFile(file(`stop-${api}.md`), 'utf8')).toMatch(/incomplete: 2 of 4 calls failed/);
        const hits = server.hits[api];
        await evalTrigger(api, server, [], {}, `cache-stop-${api}`);
        expect(server.hits[api] - hits).toBe(2); // the two stopped requests again; the answered ones from the cache
      } finally {
        await server.close();
      }
    });
  }

  it('a cached entry that is not an answer, or has fields of the wrong type, is not served', () => {
    const usage = { inputTokens: 1, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 1, thinkingTokens: 0 };
    expect(responseProblem({ calls: [null], text: '', usage })).toMatch(/calls\[0\]/);
    expect(responseProblem({ calls: [], text: '', usage: { ...usage, outputTokens: '12' } })).toMatch(/outputTokens/);
    expect(responseProblem({ calls: [], text: '', usage, stopKind: 'length' })).toMatch(/without an answer/);
    expect(responseProblem({ calls: [], text: 'ok', usage, stopKind: 'stop' })).toBeNull();
  });

  it('a corrupt cache entry is reported, ignored and fetched again, not a crash', async () => {
    const server = await startWireServer(decider);
    try {
      const cache = file('cache-corrupt');
      expect((await evalTrigger('openai', server, ['--cache-dir', cache])).code).toBe(0);
      const files: string[] = [];
      const walk = async (d: string) => {
        for (const e of await readdir(d, { withFileTypes: true })) {
          if (e.isDirectory()) await walk(path.join(d, e.name));
          else if (e.name.endsWith('.json')) files.push(path.join(d, e.name));
        }
      };
      await walk(cache);
      const entry = JSON.parse(await readFile(files[0]!, 'utf8'));
      entry.response.calls = [null];
      await writeFile(files[0]!, JSON.stringify(entry));
      const entry2 = JSON.parse(await readFile(files[1]!, 'utf8'));
      entry2.response.usage.outputTokens = '12';
      await writeFile(files[1]!, JSON.stringify(entry2));
      const hits = server.hits.openai;
      const again = await evalTrigger('openai', server, ['--cache-dir', cache]);
      expect(again.code).toBe(0);
      expect(server.hits.openai - hits).toBe(2);
      expect(again.stderr).toMatch(/2 corrupt cache entries ignored/);
    } finally {
      await server.close();
    }
  });
});

describe('outages stop the run fast and exit honestly', () => {
  it('a dead base URL: a non-zero exit within 10 seconds with default settings, one line saying why', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    for (const api of ['gemini', 'anthropic', 'openai'] as Api[]) {
      const started = Date.now();
      const r = await evalTrigger(api, `http://127.0.0.1:${port}${api === 'openai' ? '/v1' : ''}`, [], { SKILLBENCH_RETRY_BASE_MS: undefined });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r.code).toBe(4);
      expect(r.stderr, r.stderr).toMatch(/run stopped: .*connection refused/);
    }
  }, 40_000);

  it('a port fetch refuses to reach (9, 6000, ...) is not retried: the run stops at once and says why', async () => {
    for (const api of ['gemini', 'anthropic', 'openai'] as Api[]) {
      const started = Date.now();
      const r = await evalTrigger(api, `http://127.0.0.1:9${api === 'openai' ? '/v1' : ''}`, [], { SKILLBENCH_RETRY_BASE_MS: undefined });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r.code).toBe(4);
      expect(r.stderr, r.stderr).toMatch(/run stopped: .*fetch refuses to connect to the base URL's port/);
    }
  }, 40_000);

  it('27 of 30 calls failing (HTTP 500): no gate passes, the exit code is the incomplete one, every format says so', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, text: `request number ${i} about a PDF`, gold: 'doc-extractor' }));
    await writeFile(file('thirty.json'), JSON.stringify(many));
    let n = 0;
    const server = await startWireServer({ openai: (req) => (++n <= 3 ? decider.openai(req) : fault.status(500)) });
    try {
      const r = await runCli(
        ['eval-trigger', '--skills', file('skills.json'), '--requests', file('thirty.json'), '--selectors', 'model', '--provider', 'openai', '--base-url', server.baseUrl('openai'),
          '--cache-dir', file('cache-500'), '--no-progress', '-j', '1', '--max-wrong-load', '0.99', '-o', file('500.json'), '-o', file('500.md'), '-o', file('500.xml'), '-o', file('500.html')],
        { env: { OPENAI_API_KEY: 'test-key-0123456789', SKILLBENCH_RETRY_BASE_MS: '1' } },
      );
      expect(r.code).toBe(4);
      expect(r.stdout).not.toMatch(/gate: passed/);
      const results = await readResults(file('500.json'));
      expect(results.completeness).toMatchObject({ failed: 27, total: 30, complete: false });
      expect(results.gate?.passed).toBe(false);
      for (const ext of ['md', 'xml', 'html']) expect(await readFile(file(`500.${ext}`), 'utf8')).toMatch(/incomplete: 27 of 30 calls failed/);
      // --max-error-rate tolerates them (the gate then reads what was measured).
      const tolerant = await runCli(
        ['eval-trigger', '--skills', file('skills.json'), '--requests', file('thirty.json'), '--selectors', 'model', '--provider', 'openai', '--base-url', server.baseUrl('openai'),
          '--cache-dir', file('cache-500'), '--no-progress', '--max-error-rate', '0.95'],
        { env: { OPENAI_API_KEY: 'test-key-0123456789', SKILLBENCH_RETRY_BASE_MS: '1' } },
      );
      expect(tolerant.code).toBe(0);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('quota that waiting cannot cure is not retried; the run stops after the first few', async () => {
    for (const [api, reply] of [['gemini', geminiDailyQuota()], ['openai', openaiInsufficientQuota()]] as const) {
      const server = await startWireServer({ [api]: () => reply });
      try {
        const r = await evalTrigger(api, server, ['-j', '1']);
        expect(r.code).toBe(4);
        expect(server.hits[api]).toBe(3); // three calls, no retry, then the run stopped
        expect(r.stderr).toMatch(/run stopped: .*quota is used up/);
      } finally {
        await server.close();
      }
    }
  });

  it('a 400 that names a parameter becomes one line naming it, the model and what changes it', async () => {
    // A user's table that says gpt-6-luna takes temperature, while the server (the real row) refuses it.
    const server = await startWireServer({ openai: () => fault.status(400, { body: { error: { message: "Unsupported parameter: 'reasoning_effort' is not supported with this model.", type: 'invalid_request_error' } } }) });
    try {
      const r = await evalTrigger('openai', server, ['--model', 'gpt-6-luna', '-j', '1']);
      expect(r.code).toBe(4);
      expect(server.hits.openai).toBe(3);
      expect(r.stderr).toMatch(/run stopped: openai\/gpt-6-luna refused the parameter reasoning_effort \(HTTP 400\); change it with --thinking/);
    } finally {
      await server.close();
    }
  });
});

describe('--timeout bounds the whole answer on every provider', () => {
  const ok: Record<Api, () => ReturnType<Handler>> = {
    gemini: () => gemini.functionCall('activate_skill', { name: 'doc-extractor' }),
    anthropic: () => anthropic.toolUse('activate_skill', { name: 'doc-extractor' }),
    openai: () => openai.toolCall('activate_skill', { name: 'doc-extractor' }),
  };
  for (const api of ['gemini', 'anthropic', 'openai'] as Api[]) {
    it(`${api}: a stalled body and a slow drip end at --timeout`, async () => {
      for (const reply of [fault.stall(ok[api]() as never), fault.drip(50)]) {
        const server = await startWireServer({ [api]: script(reply) });
        try {
          const started = Date.now();
          const r = await runCli(
            ['eval-trigger', '--skills', file('skills.json'), '--requests', file('requests.json'), '--selectors', 'model', '--provider', api, '--base-url', server.baseUrl(api),
              '--cache-dir', file(`cache-timeout-${api}`), '--no-progress', '--timeout', '0.5', '-j', '4'],
            { env: { [ENV_KEYS[api]]: 'test-key-0123456789', SKILLBENCH_RETRY_BASE_MS: '1' } },
          );
          expect(r.code).toBe(4);
          expect(r.stdout, r.stdout).toMatch(/error: \w+: (no complete answer|request timed out)/);
          // 4 requests at -j 4, each 1 + 5 retries of 0.5 s, with backoff of a few ms: well under 10 s.
          expect(Date.now() - started).toBeLessThan(10_000);
        } finally {
          await server.close();
        }
      }
    }, 30_000);
  }
});

describe('secrets reach no output', () => {
  async function filesUnder(d: string): Promise<string[]> {
    const out: string[] = [];
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) out.push(...(await filesUnder(path.join(d, e.name))));
      else out.push(await readFile(path.join(d, e.name), 'utf8'));
    }
    return out;
  }
  const formats = (stem: string) => ['json', 'md', 'xml', 'csv', 'html'].map((e) => file(`${stem}.${e}`));

  it('a key with a trailing CRLF, and a key echoed in a 401 body, are in no cache entry, results or report', async () => {
    const key = 'sk-secret-key-with-newline-0042';
    const server = await startWireServer({
      openai: (req) =>
        userText(req).includes('git')
          ? fault.status(401, { body: { error: { message: `Incorrect API key provided: ${req.headers.authorization?.replace('Bearer ', '')}`, type: 'invalid_request_error' } } })
          : decider.openai(req),
    });
    try {
      const outs = formats('secret');
      const r = await runCli(
        ['eval-trigger', '--skills', file('skills.json'), '--requests', file('requests.json'), '--selectors', 'model', '--provider', 'openai',
          '--base-url', server.baseUrl('openai'), '--cache-dir', file('cache-secret'), '--no-progress', ...outs.flatMap((o) => ['-o', o])],
        { env: { OPENAI_API_KEY: `${key}\r\n` } },
      );
      expect(r.code).toBe(4);
      expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${key}`); // the trimmed key is what is sent
      const texts = [r.stdout, r.stderr, ...(await Promise.all(outs.map((o) => readFile(o, 'utf8')))), ...(await filesUnder(file('cache-secret')))];
      for (const t of texts) expect(t).not.toContain(key);
      expect((await readResults(outs[0]!)).runs[0]!.decisions[1]!.error).toContain('Incorrect API key provided: ***');
    } finally {
      await server.close();
    }
  });

  it('credentials in --base-url are never written: a key-like query value is ***; a user:password URL is refused without echoing it', async () => {
    const server = await startWireServer(decider);
    try {
      const outs = formats('url');
      const r = await runCli(
        ['eval-trigger', '--skills', file('skills.json'), '--requests', file('requests.json'), '--selectors', 'model', '--provider', 'openai',
          '--base-url', `${server.baseUrl('openai')}?api_key=query-secret-123`, '--cache-dir', file('cache-url'), '--no-progress', ...outs.flatMap((o) => ['-o', o])],
        { env: { OPENAI_API_KEY: 'test-key-0123456789' } },
      );
      const texts = [r.stdout, r.stderr, ...(await Promise.all(outs.map((o) => readFile(o, 'utf8'))))];
      for (const t of texts) expect(t).not.toContain('query-secret-123');
      expect((await readResults(outs[0]!)).settings.baseUrl).toMatch(/api_key=\*\*\*/);
      const userinfo = await runCli(
        ['eval-trigger', '--skills', file('skills.json'), '--requests', file('requests.json'), '--selectors', 'model', '--provider', 'openai',
          '--base-url', server.url.replace('http://', 'http://user:pa55word-secret@'), '--no-progress'],
        { env: { OPENAI_API_KEY: 'test-key-0123456789' } },
      );
      expect(userinfo.code).toBe(2);
      expect(userinfo.stderr).toMatch(/carries a user name or password/);
      expect(userinfo.stderr + userinfo.stdout).not.toContain('pa55word-secret');
    } finally {
      await server.close();
    }
  });
});

describe('prompt caching, as it really behaves', () => {
  it('tokens and --dry-run say whether the stable prefix reaches the model\'s cache minimum', async () => {
    const tokens = await runCli(['tokens', '--skills', 'skills'], { cwd: path.resolve(__dirname, '..') });
    expect(tokens.code).toBe(0);
    for (const p of ['gemini', 'anthropic', 'openai']) expect(tokens.stdout).toMatch(new RegExp(`prompt cache: the stable prefix \\(~[\\d,]+ tokens\\) .*${p}/`));
    // claude-haiku-4-5's minimum (4,096) is above this small catalogue's prefix: never cached, and said so.
    const dry = await evalTrigger('anthropic', 'http://127.0.0.1:9', ['--model', 'claude-haiku-4-5', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/prompt cache: the stable prefix \(~[\d,]+ tokens\) is below anthropic\/claude-haiku-4-5's minimum of 4,096: it is never cached/);
  });
});
