// `skillbench e2e` through the CLI entry point, the real Gemini and Anthropic SDKs and the local wire server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anthropic, gemini, startWireServer, type Recorded, type Reply, type WireServer } from './support/wire-server.js';
import { runCli } from './support/cli.js';
import { bwrapWorks } from '../src/sandbox.js';

const EXPENSE = 'expense-report-checker';
const canSandbox = await bwrapWorks();
const tokensOf = (body: unknown) => Math.ceil(JSON.stringify(body).length / 4);

type Step = { name: string; args: Record<string, unknown> } | string;
const PROGRESSIVE: Step[] = [
  { name: 'activate_skill', args: { name: EXPENSE } },
  { name: 'run_skill_script', args: { name: EXPENSE, path: 'scripts/check_expenses.mjs', args: ['assets/sample-expenses.csv'] } },
  { name: 'read_skill_file', args: { name: EXPENSE, path: 'assets/report.md' } },
  { name: 'read_skill_file', args: { name: EXPENSE, path: 'references/policy.md' } },
  'Reimbursable: 551.80 EUR.',
];
const LOAD_ALL: Step[] = [
  { name: 'run_skill_script', args: { name: EXPENSE, path: 'scripts/check_expenses.mjs', args: ['assets/sample-expenses.csv'] } },
  'Reimbursable: 551.80 EUR.',
];

/** One scripted model per mode, told apart by the system prompt (load-all carries <all_skills>). */
function model(api: 'gemini' | 'anthropic') {
  const turn = { progressive: 0, 'load-all': 0 };
  return (req: Recorded): Reply => {
    const mode = JSON.stringify(req.body).includes('<all_skills>') ? 'load-all' : 'progressive';
    const steps = mode === 'load-all' ? LOAD_ALL : PROGRESSIVE;
    const step = steps[Math.min(turn[mode]++, steps.length - 1)]!;
    const usage = { input: tokensOf(req.body), output: 9 };
    if (typeof step === 'string') return api === 'gemini' ? gemini.text(step, usage) : anthropic.text(step, usage);
    return api === 'gemini' ? gemini.functionCall(step.name, step.args, usage) : anthropic.toolUse(step.name, step.args, usage);
  };
}

let server: WireServer;
let dir: string;

beforeAll(async () => {
  server = await startWireServer({});
  dir = mkdtempSync(join(tmpdir(), 'skillbench-e2e-test-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const KEYS = ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL'];

/** Runs `skillbench e2e` with no provider key or base URL but `env`; stdout/stderr are its lines joined with '\n'. */
async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  const r = await runCli(['e2e', ...args], { env: { ...Object.fromEntries(KEYS.map((k) => [k, undefined])), ...env } });
  return { code: r.code, stdout: r.stdout.replace(/\n$/, ''), stderr: r.stderr.replace(/\n$/, '') };
}

describe.skipIf(!canSandbox)('e2e: the demo expense case (skipped: no sandbox for the script)', () => {
  for (const api of ['gemini', 'anthropic'] as const) {
    it(`${api}: prints the trace of both modes and the comparison`, async () => {
      server.setHandlers({ [api]: model(api) });
      const before = server.requests.length;
      const traceFile = join(dir, `trace-${api}.json`);
      const { code, stdout, stderr } = await cli(
        ['Check the demo expense report.', '--provider', api, '--base-url', server.baseUrl(api), '--cache-dir', join(dir, `cache-${api}`), '-o', traceFile],
        { [api === 'gemini' ? 'GEMINI_API_KEY' : 'ANTHROPIC_API_KEY']: 'test-key' },
      );
      expect(stderr).not.toMatch(/internal error/);
      expect(code).toBe(0);
      // docs/harness.md shows this trace: SKILLBENCH_TRACE_OUT=trace.txt npx vitest run test/e2e.test.ts -t anthropic
      if (process.env.SKILLBENCH_TRACE_OUT && api === 'anthropic') writeFileSync(process.env.SKILLBENCH_TRACE_OUT, stdout + '\n');
      const sent = server.requests.slice(before);
      expect(sent).toHaveLength(7);
      expect(stdout).toContain('== progressive');
      expect(stdout).toContain('== load-all');
      expect(stdout).toMatch(/-> activate_skill \{"name":"expense-report-checker"\}\s+\[body\] result [\d,]+ chars, ~[\d,]+ tokens/);
      expect(stdout).toMatch(/-> run_skill_script .*\[exit 0, [\d,]+ ms, bwrap [\d.]+ as [\w ]+\]/); // the sandbox that ran it
      expect(stdout).toMatch(/-> read_skill_file \{"name":"expense-report-checker","path":"references\/policy.md"\}\s+\[resource\]/);
      // Cumulative input of each mode = the sum of what the server counted for the requests of that mode.
      const isLoadAll = (r: Recorded) => JSON.stringify(r.body).includes('<all_skills>');
      const progressive = sent.filter((r) => !isLoadAll(r)).reduce((s, r) => s + tokensOf(r.body), 0);
      const loadAll = sent.filter(isLoadAll).reduce((s, r) => s + tokensOf(r.body), 0);
      const fmt = (n: number) => n.toLocaleString('en-US');
      expect(stdout).toContain(`total: ${fmt(progressive)} input tokens over 5 calls`);
      expect(stdout).toContain(`total: ${fmt(loadAll)} input tokens over 2 calls`);
      expect(stdout).toContain(`progressive vs load-all: ${fmt(progressive)} vs ${fmt(loadAll)} input tokens (${(progressive / loadAll).toFixed(2)}x`);
      expect(stdout).toContain('5 vs 2 calls');
      const trace = JSON.parse(readFileSync(traceFile, 'utf8')) as { runs: { mode: string; inputTokens: number }[] };
      expect(trace.runs.map((r) => [r.mode, r.inputTokens])).toEqual([
        ['progressive', progressive],
        ['load-all', loadAll],
      ]);
    });
  }

  it('replays a run from the cache without a key (--cache-only), byte-identical trace', async () => {
    server.setHandlers({ gemini: model('gemini') });
    const cacheDir = join(dir, 'cache-replay');
    const args = ['Check the demo expense report, please.', '--provider', 'gemini', '--mode', 'progressive', '--cache-dir', cacheDir];
    const first = await cli([...args, '--base-url', server.baseUrl('gemini')], { GEMINI_API_KEY: 'test-key' });
    expect(first.code).toBe(0);
    const before = server.requests.length;
    const replay = await cli([...args, '--cache-only']);
    expect(replay.code).toBe(0);
    expect(server.requests.length).toBe(before);
    const strip = (s: string) => s.replace(/ \[replayed from cache\]/g, '').replace(/[\d,]+ ms, /g, 'N ms, ');
    expect(strip(replay.stdout)).toBe(strip(first.stdout));
    expect(replay.stdout).toContain('[replayed from cache]');
  });

  it('a scenario file gives the request, the expected skill and the mode', async () => {
    server.setHandlers({ anthropic: model('anthropic') });
    const file = join(dir, 'scenario.json');
    writeFileSync(file, JSON.stringify({ request: 'Check the demo expense report.', skill: EXPENSE, mode: 'progressive' }));
    const { code, stdout } = await cli(['--scenario', file, '--provider', 'anthropic', '--base-url', server.baseUrl('anthropic'), '--cache-dir', join(dir, 'cache-scenario')], {
      ANTHROPIC_API_KEY: 'test-key',
    });
    expect(code).toBe(0);
    expect(stdout).toContain(`expected skill loaded: ${EXPENSE}`);
    expect(stdout).not.toContain('== load-all');
  });
});

describe('e2e: bad input and missing keys', () => {
  it('without a key and without --cache-only: the missing-key message, exit 2', async () => {
    const r = await cli(['hello', '--provider', 'gemini', '--cache-dir', join(dir, 'nokey')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no API key for gemini: GEMINI_API_KEY is not set/);
    expect(r.stderr).toMatch(/--cache-only/);
    expect(r.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace
    const none = await cli(['hello', '--cache-dir', join(dir, 'nokey')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no API key is set/);
  });

  it('--cache-only with nothing cached: the trace says so, then exit 2 with the fix', async () => {
    const r = await cli(['never asked before', '--provider', 'gemini', '--cache-only', '--mode', 'progressive', '--cache-dir', join(dir, 'empty-cache')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('stopped before the first call: not in the cache (--cache-only)');
    expect(r.stderr).toMatch(/the progressive run stopped: not in the cache/);
    expect(r.stderr).toMatch(/run once without --cache-only/);
  });

  it('refuses a missing request, both a request and a scenario, and bad scenario files', async () => {
    expect((await cli([])).stderr).toMatch(/no request given/);
    const bad = join(dir, 'bad.json');
    for (const [content, message] of [
      ['{"request": 3}', /field "request"/],
      ['[1]', /must be a JSON object/],
      ['{"request": "x", "mode": "fast"}', /field "mode"/],
      ['{"request": "x", "skill": "no-such-skill"}', /"no-such-skill" is not in the catalogue/],
      ['not json', /not valid JSON/],
    ] as const) {
      writeFileSync(bad, content);
      const r = await cli(['--scenario', bad, '--provider', 'gemini'], { GEMINI_API_KEY: 'k' });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const both = await cli(['hi', '--scenario', bad]);
    expect(both.code).toBe(2);
    expect((await cli(['--scenario', join(dir, 'missing.json')])).stderr).toMatch(/cannot read the scenario \(ENOENT\)/);
    expect((await cli(['hi', '--mode', 'fast'])).code).toBe(2);
  });
});
