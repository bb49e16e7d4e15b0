// eval-quality: the case file, the answer checks, the judge, and the whole command through the real SDKs against the
// wire server (a stateless scripted model that answers by request and turn), in both modes.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anthropic, gemini, startWireServer, type Recorded, type Reply, type WireServer } from './support/wire-server.js';
import { main } from '../src/cli.js';
import { checkAnswer, parseQualityCases, parseVerdict } from '../src/quality.js';
import { readResults } from '../src/results.js';
import { bwrapWorks } from '../src/sandbox.js';
import { UserError } from '../src/errors.js';

const canSandbox = await bwrapWorks();
const tokensOf = (body: unknown) => Math.ceil(JSON.stringify(body).length / 4);

describe('quality: case file', () => {
  it('reads the bundled quality set', () => {
    const cases = parseQualityCases(JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'quality.json'), 'utf8')), 'fixtures/quality.json');
    expect(cases.length).toBeGreaterThanOrEqual(5);
    expect(cases.every((c) => c.skill && (c.checks.regex?.length || c.checks.contains?.length))).toBe(true);
  });

  it.each([
    [{}, /non-empty JSON list/],
    [[], /non-empty JSON list/],
    [[{ id: 'a', request: '', skill: null, checks: { contains: ['x'] } }], /case 0 \("a"\): field "request"/],
    [[{ id: 'a', request: 'r', skill: 3, checks: { contains: ['x'] } }], /field "skill"/],
    [[{ id: 'a', request: 'r', skill: null }], /field "checks"/],
    [[{ id: 'a', request: 'r', skill: null, checks: { regex: ['(unclosed'] } }], /field "checks.regex\[0\]" is not a valid regular expression/],
    [[{ id: 'a', request: 'r', skill: null, checks: { contians: ['x'] } }], /checks.contians" is not a known check/],
    [[{ id: 'a', request: 'r', skill: null, checks: {} }], /has no check/],
    [[{ id: 'a', request: 'r', skill: null, checks: { forbidden: 'x' } }], /checks.forbidden" must be a list/],
    [
      [
        { id: 'a', request: 'r', skill: null, checks: { contains: ['x'] } },
        { id: 'a', request: 'r', skill: null, checks: { contains: ['x'] } },
      ],
      /"a" is used twice/,
    ],
  ])('refuses %j', (data, message) => {
    expect(() => parseQualityCases(data, 'cases.json')).toThrow(UserError);
    expect(() => parseQualityCases(data, 'cases.json')).toThrow(message);
  });
});

describe('quality: answer checks and judge parsing', () => {
  it('contains and forbidden ignore case and spacing; regexes apply as written', () => {
    expect(checkAnswer('Priority  P1, queue Apps.', { contains: ['p1', 'APPS'], regex: ['P\\d'], forbidden: ['facilities'] })).toEqual({ passed: true, failures: [] });
    const bad = checkAnswer('Total 576.8 EUR', { contains: ['551.80'], regex: ['551[.,]80'], forbidden: ['576.8'] });
    expect(bad.passed).toBe(false);
    expect(bad.failures).toEqual(['missing "551.80"', 'no match for /551[.,]80/', 'contains forbidden "576.8"']);
    expect(checkAnswer('147\u00a0€ au total', { forbidden: ['147 €'] }).passed).toBe(false);
  });

  it('parses a judge verdict, clamping the score, and rejects anything else', () => {
    expect(parseVerdict('{"score": 0.8, "reason": "ok"}')).toEqual({ score: 0.8, reason: 'ok' });
    expect(parseVerdict('```json\n{"score": 1.4, "reason": "x"}\n```').score).toBe(1);
    expect(() => parseVerdict('great answer')).toThrow(/not \{"score", "reason"\} JSON/);
    expect(() => parseVerdict('{"score": "high"}')).toThrow();
  });
});

// ---------------------------------------------------------------- the command, end to end

const EXPENSE_REQ = 'Check the demo expense report assets/sample-expenses.csv: what is reimbursable?';
const LEAVE_REQ = 'I joined on 11 March 2019 and took 14.5 days this year. How many days are left?';
const CASES = [
  { id: 'expense', request: EXPENSE_REQ, skill: 'expense-report-checker', checks: { regex: ['551[.,]80'], forbidden: ['576.8'] }, rubric: 'States the reimbursable total of 551.80 EUR.' },
  { id: 'leave', request: LEAVE_REQ, skill: 'leave-balance-calculator', checks: { regex: ['10[.,]33'] } },
];
const RUN = { name: 'run_skill_script', args: { name: 'expense-report-checker', path: 'scripts/check_expenses.mjs', args: ['assets/sample-expenses.csv'] } };
/** Per request and mode, the model's turns; the leave answer is deliberately wrong (a failed check). */
const SCRIPT: Record<string, Record<'progressive' | 'load-all', ({ name: string; args: Record<string, unknown> } | string)[]>> = {
  [EXPENSE_REQ]: {
    progressive: [{ name: 'activate_skill', args: { name: 'expense-report-checker' } }, RUN, 'Reimbursable: 551.80 EUR.'],
    'load-all': [RUN, 'Reimbursable: 551.80 EUR.'],
  },
  [LEAVE_REQ]: {
    progressive: [{ name: 'activate_skill', args: { name: 'leave-balance-calculator' } }, 'You have 13.33 days left.'],
    'load-all': ['You have 13.33 days left.'],
  },
};

function firstUserText(api: 'gemini' | 'anthropic', body: Record<string, any>): string {
  return api === 'gemini' ? body.contents[0].parts[0].text : body.messages[0].content;
}
const isJudge = (body: unknown) => JSON.stringify(body).includes('You grade an assistant');
const isLoadAll = (body: unknown) => JSON.stringify(body).includes('<all_skills>');

/** Stateless: the turn is the number of model turns already in the history. */
function model(api: 'gemini' | 'anthropic') {
  return (req: Recorded): Reply => {
    const usage = { input: tokensOf(req.body), output: 7 };
    if (isJudge(req.body)) {
      const verdict = { score: 0.9, reason: 'states the total' };
      return api === 'gemini' ? gemini.json(verdict, usage) : anthropic.text(JSON.stringify(verdict), usage);
    }
    const history = api === 'gemini' ? req.body.contents : req.body.messages;
    const turn = (history.length - 1) / 2;
    const steps = SCRIPT[firstUserText(api, req.body)]![isLoadAll(req.body) ? 'load-all' : 'progressive'];
    const step = steps[Math.min(turn, steps.length - 1)]!;
    if (typeof step === 'string') return api === 'gemini' ? gemini.text(step, usage) : anthropic.text(step, usage);
    return api === 'gemini' ? gemini.functionCall(step.name, step.args, usage) : anthropic.toolUse(step.name, step.args, usage);
  };
}

let server: WireServer;
let dir: string;
let casesFile: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
  server = await startWireServer({ gemini: model('gemini'), anthropic: model('anthropic') });
  dir = mkdtempSync(join(tmpdir(), 'skillbench-quality-test-'));
  casesFile = join(dir, 'cases.json');
  writeFileSync(casesFile, JSON.stringify(CASES));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.env = { ...savedEnv };
  vi.restoreAllMocks();
});

async function cli(args: string[], env: Record<string, string> = {}, command = 'eval-quality') {
  for (const k of ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL']) delete process.env[k];
  Object.assign(process.env, env);
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ') + '\n'));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const code = await main(['node', 'skillbench', command, ...args]);
  vi.restoreAllMocks();
  return { code, stdout: out.join(''), stderr: err.join('\n') };
}

describe.skipIf(!canSandbox)('eval-quality through the real SDKs (skipped: no sandbox for the scripts)', () => {
  for (const api of ['gemini', 'anthropic'] as const) {
    it(`${api}: pass rate with interval, tokens and calls per request, token ratio; results file`, async () => {
      const before = server.requests.length;
      const json = join(dir, `quality-${api}.json`);
      const others = ['md', 'csv', 'xml', 'html'].map((ext) => join(dir, `quality-${api}.${ext}`));
      const { code, stdout, stderr } = await cli(
        ['--cases', casesFile, '--provider', api, '--base-url', server.baseUrl(api), '--cache-dir', join(dir, `cache-${api}`), '--judge', '-o', json, '--no-progress', ...others.flatMap((o) => ['-o', o])],
        { [api === 'gemini' ? 'GEMINI_API_KEY' : 'ANTHROPIC_API_KEY']: 'test-key' },
      );
      expect(stderr).not.toMatch(/internal error/);
      expect(code).toBe(0);
      const sent = server.requests.slice(before).filter((r) => r.api === api);
      const judged = sent.filter((r) => isJudge(r.body));
      // The expense case has a rubric: judged in each mode; the two judge requests are identical (same answer), so
      // the second may be served from the response cache.
      expect(judged.length).toBeGreaterThanOrEqual(1);
      expect(judged.length).toBeLessThanOrEqual(2);
      const agent = sent.filter((r) => !isJudge(r.body));
      expect(agent).toHaveLength(3 + 2 + 2 + 1);

      for (const f of others) expect(readFileSync(f, 'utf8').length).toBeGreaterThan(0);
      const results = await readResults(json);
      expect(results.command).toBe('eval-quality');
      const q = results.quality!;
      const perMode = (loadAll: boolean) => agent.filter((r) => isLoadAll(r.body) === loadAll).reduce((s, r) => s + tokensOf(r.body), 0) / 2;
      const [p, l] = q.modes;
      expect(p!.mode).toBe('progressive');
      expect(p!.pass).toMatchObject({ k: 1, n: 2, rate: 0.5 });
      expect(p!.pass.low).toBeCloseTo(0.0945, 3);
      expect(p!.pass.high).toBeCloseTo(0.9055, 3);
      expect(p!.inputTokensPerRequest).toBe(perMode(false));
      expect(l!.inputTokensPerRequest).toBe(perMode(true));
      expect(p!.callsPerRequest).toBe(2.5);
      // 7 output tokens a call: (3 + 2) calls / 2 cases.
      expect(p!.outputTokensPerRequest).toBe(17.5);
      expect(l!.callsPerRequest).toBe(1.5);
      expect(q.tokenRatio).toBeCloseTo(perMode(false) / perMode(true), 10);
      expect(p!.judge).toEqual({ n: 1, mean: 0.9 });
      expect(l!.judge).toEqual({ n: 1, mean: 0.9 });

      const dec = results.runs[0]!.decisions.find((d) => d.requestId === 'leave')!;
      expect(dec.chosen).toBe('leave-balance-calculator');
      expect(dec.detail).toMatchObject({ passed: false, failures: ['no match for /10[.,]33/'] });

      expect(stdout).toMatch(/progressive\s+│\s+50\.0% \(1\/2\) \[9\.5–90\.5\]/);
      expect(stdout).toMatch(new RegExp(`│ progressive │ [^│]+│\\s+0 │\\s+${p!.inputTokensPerRequest!.toLocaleString('en-US', { maximumFractionDigits: 0 })} │\\s+2\\.5 │\\s+18 │ [^│]+│\\s+0\\.90 \\(1\\) │`));
      expect(stdout).toContain(`progressive / load-all input tokens per request: ${(perMode(false) / perMode(true)).toFixed(2)}`);
      expect(stdout).toMatch(/leave: no match for \/10\[\.,\]33\//);
      // Every report names the sandbox that ran the scripts, from the results file alone.
      const scripts = results.runs.flatMap((run) => run.decisions.flatMap((d) => (d.detail?.scripts ?? []) as { sandbox: string; path: string }[]));
      expect(scripts.length).toBeGreaterThan(0);
      for (const s of scripts) expect(s.sandbox).toMatch(/^bwrap [\d.]+ as /);
      expect(stdout).toContain(`Skill scripts: ${scripts.length} script runs, all under ${scripts[0]!.sandbox}`);
      expect(readFileSync(others[0]!, 'utf8')).toContain(`Skill scripts: ${scripts.length} script runs, all under ${scripts[0]!.sandbox}.`);
      expect(readFileSync(others[3]!, 'utf8')).toContain(`Skill scripts: ${scripts.length} script runs, all under ${scripts[0]!.sandbox}.`);

      // `skillbench report` on the results file prints the same tables: one renderer, from the file alone.
      const report = await cli([json], {}, 'report');
      expect(report.code).toBe(0);
      expect(report.stdout).toBe(stdout);
    });
  }

  it('--min-pass-rate fails the gate (exit 1) after writing the results', async () => {
    const json = join(dir, 'gate.json');
    const r = await cli(['--cases', casesFile, '--provider', 'gemini', '--base-url', server.baseUrl('gemini'), '--cache-dir', join(dir, 'cache-gate'), '--min-pass-rate', '0.9', '--mode', 'progressive', '-o', json, '--no-progress'], {
      GEMINI_API_KEY: 'test-key',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/progressive pass rate 50\.0% is below --min-pass-rate 90\.0%/);
    expect((await readResults(json)).runs).toHaveLength(1);
  });
});

describe('eval-quality: bad input and missing keys', () => {
  it('without a key: the missing-key message, exit 2', async () => {
    const r = await cli(['--cases', casesFile, '--provider', 'anthropic', '--cache-dir', join(dir, 'nokey')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no API key for anthropic: ANTHROPIC_API_KEY is not set/);
  });

  it('a bad case file or an unknown skill: exit 2 naming the field', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ id: 'x', request: 'r', skill: 'no-such-skill', checks: { contains: ['a'] } }]));
    const r = await cli(['--cases', bad, '--provider', 'gemini'], { GEMINI_API_KEY: 'k' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/case "x" needs skill "no-such-skill"/);
    writeFileSync(bad, '[{"id": "x", "request": "r", "skill": null, "checks": {"regex": ["("]}}]');
    const r2 = await cli(['--cases', bad, '--provider', 'gemini'], { GEMINI_API_KEY: 'k' });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/checks.regex\[0\]/);
    // A rubric-only case would pass whatever the answer without --judge.
    writeFileSync(bad, JSON.stringify([{ id: 'judged', request: 'r', skill: null, checks: {}, rubric: 'says hello' }]));
    const r3 = await cli(['--cases', bad, '--provider', 'gemini'], { GEMINI_API_KEY: 'k' });
    expect(r3.code).toBe(2);
    expect(r3.stderr).toMatch(/case "judged" has only a "rubric", which is graded with --judge alone/);
  });
});
