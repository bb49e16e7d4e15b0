// `skillbench eval-trigger` end to end, in process through the CLI's main(): offline selectors on a fixture
// catalogue, the no-key notice, the model/hybrid/explicit paths against the local wire-format server, the results
// file, the rate gates and the baseline gate (identical run passes; a worsened description fails naming the flips).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { readResults } from '../src/results.js';
import { computeMetrics } from '../src/metrics.js';
import { fault, openai, startWireServer, type WireServer } from './support/wire-server.js';
import { runCli } from './support/cli.js';
import { clearProviderEnv, THREE_SKILLS } from './support/fixtures.js';

clearProviderEnv();

const catalogue = THREE_SKILLS;
const pdfRequests = [
  'Extract the tables from this PDF report',
  'Merge these three PDF files into one',
  'Split the PDF into separate pages',
  'Fill in the PDF form with my address',
  'Pull the text out of the scanned PDF',
  'Can you combine two PDF files for me?',
  'I need the tables from the annual report PDF',
  'Split this long PDF in two',
];
const requests = [
  ...pdfRequests.map((text, i) => ({ id: `pdf-${i + 1}`, text, gold: 'doc-extractor' })),
  { id: 'git-1', text: 'How do I resolve a merge conflict in git?', gold: 'git-helper' },
  { id: 'git-2', text: 'git says my branch has diverged, what does that error mean?', gold: 'git-helper' },
  { id: 'git-3', text: 'Rewrite the commit history of my branch', gold: 'git-helper' },
  { id: 'mail-1', text: 'Draft a professional email reply to my manager', gold: 'email-writer' },
  { id: 'mail-2', text: 'Polish this follow-up email to a client', gold: 'email-writer' },
  { id: 'mail-3', text: '/email-writer an apology to customers about the outage', gold: 'email-writer' },
  { id: 'neg-1', text: 'What is the capital of Peru?', gold: null },
  { id: 'neg-2', text: 'Tell me a joke about penguins', gold: null },
  { id: 'neg-3', text: 'How many legs does a spider have?', gold: null },
];

let dir: string;
const file = (name: string) => path.join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillbench-eval-trigger-'));
  await writeFile(file('catalogue.json'), JSON.stringify(catalogue));
  await writeFile(file('worse.json'), JSON.stringify(catalogue.map((s) => (s.name === 'doc-extractor' ? { ...s, description: 'Helps with office work.' } : s))));
  await writeFile(file('requests.json'), JSON.stringify(requests));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `skillbench eval-trigger` (no progress, this file's cache) in process from `cwd`; out/err are what it printed. */
async function cliIn(cwd: string | undefined, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await runCli(['eval-trigger', '--no-progress', '--cache-dir', file('cache'), ...args], { cwd });
  return { code: r.code, out: r.stdout, err: r.stderr };
}
const cli = (...args: string[]) => cliIn(undefined, ...args);

const base = () => ['--skills', file('catalogue.json'), '--requests', file('requests.json')];

describe('eval-trigger offline', () => {
  it('runs the offline selectors without a key and says in one line what it skipped and how to enable it', async () => {
    const r = await cli(...base(), '-o', file('offline.json'));
    expect(r.code).toBe(0);
    const notice = r.err.split('\n').filter((l) => l.includes('skipped'));
    expect(notice).toHaveLength(1);
    expect(notice[0]).toMatch(/skipped model, hybrid/);
    expect(notice[0]).toMatch(/OPENAI_API_KEY/);
    expect(notice[0]).toMatch(/--provider openai --base-url/);
    expect(notice[0]).toMatch(/--cache-only/);
    for (const s of ['fused', 'similarity', 'keyword', 'explicit']) expect(r.out).toMatch(new RegExp(`│ ${s}\\s+│`));
    expect(r.out).toMatch(/lowest score of a correctly ranked positive/);
    expect(r.out).toMatch(/sweep \(\d+ candidate thresholds/);
    expect(r.out).toMatch(/optimistic: chosen on the same requests/);
    expect(r.out).not.toMatch(/\x1b\[/); // no colours outside a terminal

    const results = await readResults(file('offline.json'));
    expect(results.runs.map((x) => x.selector)).toEqual(['fused', 'similarity', 'keyword', 'explicit']);
    expect(results.settings.skipped).toEqual(['model', 'hybrid']);
    expect(results.requests).toHaveLength(requests.length);
    // The file is enough to recompute every figure: the explicit run loads only the one mentioned skill.
    const explicit = computeMetrics(results.runs.find((x) => x.selector === 'explicit')!, results.requests);
    expect([explicit.accuracy.k, explicit.accuracy.n]).toEqual([4, 17]); // mail-3 + 3 negatives
    const similarity = results.runs.find((x) => x.selector === 'similarity')!;
    expect(similarity.decisions[0]!.scores).toHaveLength(3);
    // 3 uncovered requests: too few for 5 folds, so the thresholds are chosen on these requests, and said so.
    expect(similarity.threshold!.source).toBe('optimistic');
    expect(results.runs[0]!.fit!.features).toHaveLength(10);
  });

  it('says that --runs repeats only the model selectors', async () => {
    const r = await cli(...base(), '--selectors', 'keyword', '--runs', '3');
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/--runs 3 repeats model and hybrid requests only; keyword decide/);
  });

  it('applies a fixed threshold and one calibrated on another request set', async () => {
    // 12 requests also scored (in-sample) and one that is not: both sides, as --calibrate needs.
    await writeFile(file('calib.json'), JSON.stringify([...requests.slice(0, 12), { id: 'cal-neg', text: 'What is the boiling point of water?', gold: null }]));
    const fixed = await cli(...base(), '--selectors', 'keyword', '--threshold', 'keyword=0.9', '-o', file('fixed.json'));
    expect(fixed.code).toBe(0);
    expect(fixed.out).toMatch(/threshold applied: 0\.900 \(fixed by --threshold\)/);
    const cal = await cli(...base(), '--selectors', 'keyword', '--calibrate', file('calib.json'), '-o', file('cal.json'));
    expect(cal.code).toBe(0);
    const th = (await readResults(file('cal.json'))).runs[0]!.threshold!;
    expect(th.source).toBe('calibrated');
    expect(th.calibrationFile).toBe(file('calib.json'));
    expect(th.inSample).toEqual({ shared: 12, of: 13 });
    expect(cal.out.replace(/\s+/g, ' ')).toMatch(/calibrated on .*calib\.json, in-sample: 12 of its 13 requests are also scored here/);
  });

  it('reads skill-creator\'s format for one skill with --skill', async () => {
    await writeFile(file('sc.json'), JSON.stringify([
      { query: 'Merge these three PDF files into one', should_trigger: true },
      { query: 'What is the capital of Peru?', should_trigger: false },
    ]));
    const r = await cli('--skills', file('catalogue.json'), '--requests', file('sc.json'), '--skill', 'doc-extractor', '--selectors', 'keyword', '-o', file('sc-results.json'));
    expect(r.code).toBe(0);
    const results = await readResults(file('sc-results.json'));
    expect(results.requests.map((q) => q.gold)).toEqual(['doc-extractor', null]);
  });

  it('fails a rate gate with exit 1 after writing the results', async () => {
    const r = await cli(...base(), '--selectors', 'explicit', '--max-wrong-load', '0.5', '-o', file('gated.json'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/gate failed: explicit: wrong load 92\.9% \(13\/14\) is above --max-wrong-load 0\.5/);
    const results = await readResults(file('gated.json'));
    expect(results.gate!.passed).toBe(false);
  });
});

describe('baseline gate', () => {
  const keyword = ['--selectors', 'keyword', '--threshold', '0.01'];
  it('passes an identical run and fails a worsened description, naming the requests that flipped', async () => {
    const first = await cli(...base(), ...keyword, '-o', file('baseline.json'));
    expect(first.code).toBe(0);
    const same = await cli(...base(), ...keyword, '--baseline', file('baseline.json'));
    expect(same.code).toBe(0);
    expect(same.out).toMatch(/gate: passed/);
    expect(same.out).toMatch(/better on 0, worse on 0 requests/);

    const worse = await cli('--skills', file('worse.json'), '--requests', file('requests.json'), ...keyword, '--baseline', file('baseline.json'), '-o', file('worse-results.json'));
    expect(worse.code).toBe(1);
    expect(worse.err).toMatch(/gate failed: keyword: worse than .*baseline\.json on \d+ of 17 paired requests/);
    const results = await readResults(file('worse-results.json'));
    const broken = results.gate!.flips.filter((f) => !f.nowCorrect).map((f) => f.requestId);
    expect(broken.length).toBeGreaterThanOrEqual(6);
    expect(broken.every((id) => id.startsWith('pdf-'))).toBe(true);
    for (const id of broken) expect(worse.out).toContain(`broken keyword ${id}: doc-extractor ->`);
  });
  it('--github-annotations: the failed gate as an error, each request that got worse as a warning at its line', async () => {
    await writeFile(file('pretty.json'), JSON.stringify(requests, null, 2));
    const shown = path.relative(process.cwd(), file('pretty.json'));
    expect((await cli('--skills', file('catalogue.json'), '--requests', file('pretty.json'), ...keyword, '-o', file('pretty-base.json'))).code).toBe(0);
    const passed = await cli('--skills', file('catalogue.json'), '--requests', file('pretty.json'), ...keyword, '--baseline', file('pretty-base.json'), '--github-annotations');
    expect(passed.code).toBe(0);
    expect(passed.out).not.toContain('::'); // nothing to annotate when the gate passes
    const worse = await cli('--skills', file('worse.json'), '--requests', file('pretty.json'), ...keyword, '--baseline', file('pretty-base.json'), '--github-annotations');
    expect(worse.code).toBe(1);
    const lines = worse.out.split('\n').filter((l) => l.startsWith('::'));
    expect(lines[0]).toMatch(/^::error title=skillbench gate failed::keyword: worse than .*pretty-base\.json on \d+ of 17 paired requests/);
    const pdf2 = lines.find((l) => l.includes('got worse on pdf-2'))!;
    const line = (await import('node:fs')).readFileSync(file('pretty.json'), 'utf8').split('\n').findIndex((l) => l.includes('"id": "pdf-2"')) + 1;
    expect(pdf2).toBe(`::warning file=${shown},line=${line},title=skillbench%3A keyword got worse on pdf-2::"Merge these three PDF files into one" now loads ${pdf2.split(' now loads ')[1]}`);
    expect(pdf2).toMatch(/\(the baseline loaded doc-extractor\)$/);
  });

  it('says which requests it could not pair when the request sets differ', async () => {
    await cli(...base(), ...keyword, '-o', file('baseline-all.json'));
    await writeFile(file('fewer.json'), JSON.stringify(requests.slice(0, 15)));
    const r = await cli('--skills', file('catalogue.json'), '--requests', file('fewer.json'), ...keyword, '--baseline', file('baseline-all.json'));
    expect(r.code).toBe(0);
    expect(r.out.replace(/\n {2,}/g, ' ')).toMatch(/note: the request sets differ: compared on the 15 requests .* 0 only in this run, 2 only in .*baseline-all\.json \(neg-2, neg-3\)/);
  });
  it('writes the outputs of a run whose baseline cannot be compared, then exits 2 naming why', async () => {
    const r = await cli(...base(), '--selectors', 'explicit', '--baseline', file('baseline.json'), '-o', file('unpaired.json'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/baseline\.json: no selector in common with this run \(baseline has keyword; this run has explicit\)/);
    expect((await readResults(file('unpaired.json'))).runs[0]!.selector).toBe('explicit');
  });
  it('gives exit 2 for a baseline that is not a results file', async () => {
    await writeFile(file('not-results.json'), JSON.stringify({ schema: 'skillbench.results', version: 7 }));
    const r = await cli(...base(), '--selectors', 'keyword', '--baseline', file('not-results.json'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/not-results\.json: field "version" is 7/);
  });
});

describe('--threshold baseline', () => {
  const scoreSelectors = ['--selectors', 'similarity,keyword'];
  it('measures the run at the thresholds the baseline applied, not at the ones its own requests would pick', async () => {
    // The baseline: the worsened catalogue, thresholds chosen on it (optimistic).
    const main = await cli('--skills', file('worse.json'), '--requests', file('requests.json'), ...scoreSelectors, '-o', file('th-main.json'));
    expect(main.code).toBe(0);
    const baseline = await readResults(file('th-main.json'));
    // The same run on the changed catalogue, left to choose: its requests pick other thresholds.
    const own = await cli(...base(), ...scoreSelectors, '-o', file('th-own.json'));
    expect(own.code).toBe(0);
    const optimistic = await readResults(file('th-own.json'));

    const pr = await cli(...base(), ...scoreSelectors, '--baseline', file('th-main.json'), '--threshold', 'baseline', '-o', file('th-pr.json'));
    expect(pr.code).toBe(0);
    const results = await readResults(file('th-pr.json'));
    for (const selector of ['similarity', 'keyword']) {
      const then = baseline.runs.find((r) => r.selector === selector)!.threshold!;
      const chosen = optimistic.runs.find((r) => r.selector === selector)!.threshold!;
      const run = results.runs.find((r) => r.selector === selector)!;
      expect(then.source).toBe('optimistic');
      expect(chosen.value, selector).not.toBe(then.value);
      expect(run.threshold).toEqual({ value: then.value, source: 'fixed', calibrationFile: file('th-main.json') });
      expect(pr.out).toContain(`${selector}: threshold applied: ${then.value.toFixed(3)} (fixed`);
      // Applied, not only recorded: a skill loads only at a top score at or above the baseline's threshold.
      for (const d of run.decisions) {
        const top = d.scores![0]?.score ?? -Infinity; // keyword: no candidate when no word is shared
        if (d.chosen !== null) expect(top).toBeGreaterThanOrEqual(then.value);
        if (top < then.value) expect(d.chosen).toBeNull();
      }
    }
    expect(results.settings.threshold).toEqual({ similarity: baseline.runs[0]!.threshold!.value, keyword: baseline.runs[1]!.threshold!.value });
    expect(results.settings.thresholdFrom).toBe(file('th-main.json'));
  });

  it('refuses --threshold baseline without --baseline, or with --calibrate', async () => {
    const r = await cli(...base(), '--selectors', 'keyword', '--threshold', 'baseline', '-o', file('th-none.json'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--threshold baseline: no --baseline FILE to take the thresholds from/);
    expect(r.err).not.toMatch(/\[keyword\]/); // refused before running
    const c = await cli(...base(), '--selectors', 'keyword', '--threshold', 'baseline', '--baseline', file('th-main.json'), '--calibrate', file('requests.json'));
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/--threshold baseline and --calibrate both set the thresholds/);
  });
});

describe('bad input', () => {
  it('asks for --skills when there is no skills/ folder here', async () => {
    const empty = file('empty');
    await mkdir(empty, { recursive: true });
    const r = await cliIn(empty, '--selectors', 'keyword');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no skills in .*empty/);
    expect(r.err).toMatch(/pass --skills PATH/);
  });
  it('names an unknown selector and a gold skill missing from the catalogue', async () => {
    const r = await cli(...base(), '--selectors', 'keyword,magic');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown selector "magic"/);
    await writeFile(file('bad-gold.json'), JSON.stringify([{ id: 'x', text: 'hello', gold: 'nope' }]));
    const g = await cli('--skills', file('catalogue.json'), '--requests', file('bad-gold.json'), '--selectors', 'keyword');
    expect(g.code).toBe(2);
    expect(g.err).toMatch(/request "x" field "gold" names "nope"/);
    const o = await cli(...base(), '--selectors', 'keyword', '-o', file('results.txt'));
    expect(o.code).toBe(2);
    expect(o.err).toMatch(/results\.txt: unknown output format/);
    expect(o.err).not.toMatch(/\[keyword\]/); // refused before running
  });
});

describe('model, hybrid and explicit through the wire server', () => {
  let server: WireServer;
  const gold = new Map(requests.map((r) => [r.text, r.gold]));
  const seen = new Map<string, number>();
  beforeAll(async () => {
    server = await startWireServer({
      openai: (req) => {
        if (req.method === 'embeddings') return fault.status(400, { body: { error: { message: 'scripted embedding failure', type: 'invalid_request_error' } } });
        const text = req.body.messages.at(-1).content as string;
        const enumNames = req.body.tools[0].function.parameters.properties.name.enum as string[];
        // Input tokens follow the prompt size, so hybrid's smaller catalogue shows.
        const usage = { input: Math.round(JSON.stringify(req.body).length / 4), output: 8 };
        if (text.startsWith('Split this long')) return fault.status(400, { body: { error: { message: 'scripted failure', type: 'invalid_request_error' } } });
        if (text.startsWith('Pull the text')) return openai.toolCall('activate_skill', { name: 'ocr-reader' }, usage);
        // A flaky answer (model wire-runs only): every other call on this request loads nothing.
        if (req.body.model === 'wire-runs' && text.startsWith('Fill in the PDF')) {
          const n = (seen.get(text) ?? 0) + 1;
          seen.set(text, n);
          if (n % 2 === 0) return openai.text('Sure, what is your address?', usage);
        }
        const g = gold.get(text) ?? null;
        if (g && enumNames.includes(g)) return openai.toolCall('activate_skill', { name: g }, usage);
        return openai.text('No skill needed.', usage);
      },
    });
  });
  afterAll(() => server?.close());

  it('runs every selector asked for and records usage, errors apart, and hybrid tokens beside the model\'s', async () => {
    const r = await cli(...base(), '--selectors', 'model,hybrid,explicit', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire', '--k', '2', '-o', file('model.json'));
    expect(r.err).not.toMatch(/skipped/);
    // pdf-8 fails in both chat selectors: the run is incomplete (exit 4), and says so after writing its results.
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/incomplete: 2 of 51 calls failed; rerun to finish them, answered calls are cached/);
    expect(r.out).toMatch(/^incomplete: 2 of 51 calls failed/m);
    const results = await readResults(file('model.json'));
    expect(results.runs.map((x) => x.selector)).toEqual(['model', 'hybrid', 'explicit']);
    const [model, hybrid] = results.runs.map((x) => computeMetrics(x, results.requests));
    // model: 17 requests, 1 error (pdf-8); pdf-5 asks for a name outside the enum: wrong. 16 decided, 15 right.
    expect(model!.errors).toBe(1);
    expect([model!.accuracy.k, model!.accuracy.n]).toEqual([15, 16]);
    expect([model!.wrongLoad.k, model!.wrongLoad.n]).toEqual([1, 13]);
    expect(model!.confusion).toEqual([{ gold: 'doc-extractor', got: 'ocr-reader', count: 1 }]);
    expect(hybrid!.meanInputTokens!).toBeLessThan(model!.meanInputTokens!);
    // hybrid, by hand from its own similarity ranking: the scripted model loads the gold skill when it is among the
    // k = 2 shown, else nothing; so a covered request is right exactly when its gold is in the top 2. pdf-8 fails.
    const hybridRun = results.runs[1]!;
    const goldOf = new Map(results.requests.map((q) => [q.id, q.gold]));
    let right = 0;
    let covered = 0;
    for (const d of hybridRun.decisions.filter((x) => x.error === undefined)) {
      const g = goldOf.get(d.requestId)!;
      if (g === null) continue;
      covered++;
      if (d.requestId === 'pdf-5') continue; // the model asks for ocr-reader, outside the enum: wrong
      if (d.scores!.slice(0, 2).some((s) => s.name === g)) right++;
    }
    expect(hybrid!.errors).toBe(1);
    expect([hybrid!.wrongLoad.k, hybrid!.wrongLoad.n]).toEqual([covered - right, covered]);
    expect(hybrid!.needlessLoad.k).toBe(0);
    expect(r.out).toMatch(/│ model\s+│\s+17 │/);
    expect(r.out).toMatch(/│ hybrid\s+│\s+17 │/);
    expect(r.out).toContain('error: openai: HTTP 400');
    expect(r.err).toMatch(/openai\/wire: \d+ calls/);
    // Version 2: the descriptions measured, and what the model answered (its call, or its text) and why it stopped.
    expect(results.version).toBe(2);
    expect(results.catalogue.skills.every((s) => typeof s.description === 'string' && s.description.length > 0)).toBe(true);
    const modelRun = results.runs[0]!;
    const called = modelRun.decisions.find((d) => d.chosen !== null)!;
    expect(called.calls).toEqual([{ name: 'activate_skill', args: { name: called.chosen } }]);
    expect(called.stopReason).toBe('tool_calls');
    const answered = modelRun.decisions.find((d) => d.chosen === null && !d.error && !d.rawChoice)!;
    expect(answered.answer).toBe('No skill needed.');
    expect(answered.calls).toBeUndefined();
    expect(answered.stopReason).toBe('stop');
    expect(modelRun.decisions.find((d) => d.rawChoice)!.calls).toEqual([{ name: 'activate_skill', args: { name: 'ocr-reader' } }]);
  });

  it('shows hybrid the top k even when k is above the 10 candidates a large catalogue keeps', async () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ name: `tool-${i}`, description: `Tool number ${i} handles task ${i}.` }));
    await writeFile(file('many.json'), JSON.stringify(many));
    await writeFile(file('one.json'), JSON.stringify([{ id: 'q', text: 'handle task 7', gold: null }]));
    const before = server.requests.length;
    const r = await cli('--skills', file('many.json'), '--requests', file('one.json'), '--selectors', 'hybrid', '--k', '12',
      '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-k', '--no-cache');
    expect(r.code).toBe(0);
    const sent = server.requests.slice(before).filter((q) => q.body?.tools);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.tools[0].function.parameters.properties.name.enum).toHaveLength(12);
  });

  it('repeats model requests with --runs and lists the flaky ones', async () => {
    const r = await cli(...base(), '--selectors', 'model', '--runs', '2', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-runs', '-o', file('runs.json'),
      '--max-error-rate', '0.1');
    expect(r.code).toBe(0); // 2 errors of 34 calls: within --max-error-rate 0.1
    const results = await readResults(file('runs.json'));
    expect(results.runs[0]!.decisions).toHaveLength(34);
    expect(r.out).toMatch(/model: 1 of 17 requests changed their choice between runs/);
    expect(r.out).toMatch(/pdf-4 \(right in 50\.0% of runs\): (doc-extractor, \(none\)|\(none\), doc-extractor)/);
  });

  it('replays with --cache-only without calling; a miss is exit 2 after the results are written', async () => {
    const first = await cli(...base(), '--selectors', 'model', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-replay', '-o', file('replay-1.json'));
    expect(first.code).toBe(4); // pdf-8 failed: incomplete
    const before = server.hits.openai;
    // The failed request (pdf-8) is not cached: errors never are, so even a full replay misses exactly that one.
    const replay = await cli(...base(), '--selectors', 'model', '--provider', 'openai', '--cache-only', '--model', 'wire-replay', '-o', file('replay-2.json'));
    expect(server.hits.openai).toBe(before);
    expect(replay.code).toBe(2);
    expect(replay.err).toMatch(/1 requests were not in the cache \(--cache-only\)/);
    const [a, b] = [await readResults(file('replay-1.json')), await readResults(file('replay-2.json'))];
    const chosen = (r: typeof a) => r.runs[0]!.decisions.filter((d) => !d.error).map((d) => [d.requestId, d.chosen]);
    expect(chosen(b)).toEqual(chosen(a));

    const other = await cli(...base(), '--selectors', 'model', '--provider', 'openai', '--cache-only', '--model', 'never-cached', '-o', file('replay-3.json'));
    expect(server.hits.openai).toBe(before);
    expect(other.code).toBe(2);
    expect(other.err).toMatch(/17 requests were not in the cache/);
    // Said before the tables: none of the requests is in the cache, the model rows are errors.
    expect(other.err).toMatch(/--cache-only: the cache \(.+\) holds none of the 17 model requests: every model row below is errors, not decisions/);
    expect(replay.err).toMatch(/--cache-only: 1 of 17 model requests are not in the cache \(.+\): they count as errors below/);
    expect((await readResults(file('replay-3.json'))).runs[0]!.decisions.every((d) => d.error)).toBe(true);
  });

  it('--dry-run calls nothing and prints calls, cached share and cost, and nothing that looks like a result', async () => {
    const before = server.hits.openai;
    const r = await cli(...base(), '--dry-run', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-dry');
    expect(r.code).toBe(0);
    expect(server.hits.openai).toBe(before);
    expect(r.out).toMatch(/^dry run, nothing called \(openai\/wire-dry\): 34 requests, 34 calls to make and 0 \(0%\) answered from the cache; ~[\d,]+ input \+ ~[\d,]+ output tokens/);
    expect(r.out).toContain('estimated: model, hybrid');
    expect(r.out).toContain('not run: fused, similarity, keyword, explicit (no model call, nothing to estimate)');
    expect(r.out).not.toMatch(/wrong load|│/);
    // The progress says what was estimated: no "done", no errors, tokens or dollars; the offline selectors did not run.
    const lanes = r.err.split('\n').filter((l) => l.startsWith('['));
    expect(lanes).toEqual(['[model] 17/17 (100%) estimated, 0 in the cache', '[hybrid] 17/17 (100%) estimated, 0 in the cache']);
    expect(r.err).not.toMatch(/done|errors|\$0/);

    // Once the answers are cached, a dry run says the cache would answer them.
    expect((await cli(...base(), '--selectors', 'model', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-dry')).code).toBe(4); // pdf-8 fails: incomplete
    const again = await cli(...base(), '--selectors', 'model', '--dry-run', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-dry');
    expect(again.out).toMatch(/17 requests, 1 call to make and 16 \(94%\) answered from the cache/); // pdf-8's failed call is not cached
  });

  it('--dry-run without --provider or a key: the run would be offline; nothing is run', async () => {
    const r = await cli(...base(), '--dry-run', '-o', file('dry.json'));
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      'dry run, nothing called: fused, similarity, keyword, explicit call no model; the run would score 17 requests offline, with no call and no cost.\n' +
        '  model and hybrid would be skipped (no model API key found); to estimate them: --dry-run --provider gemini|anthropic|openai (no key needed for a dry run)\n',
    );
    expect(r.err).not.toMatch(/\[similarity\]|\[keyword\]/);
    expect(existsSync(file('dry.json'))).toBe(false);
  });

  it('--no-cache neither reads nor writes the cache; --no-cache-write reads it but keeps nothing new', async () => {
    const cache = file('cache-modes');
    // One request of 17 always fails (pdf-8): within --max-error-rate 0.1, so each run is complete (exit 0).
    const model = ['--selectors', 'model', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--cache-dir', cache, '--max-error-rate', '0.1'];
    const entries = async () => (await readdir(cache, { recursive: true }).catch(() => [])).filter((f) => String(f).endsWith('.json')).length;
    let before = server.hits.openai;
    expect((await cli(...base(), ...model, '--model', 'wire-modes', '--no-cache')).code).toBe(0);
    expect(server.hits.openai - before).toBe(17);
    expect(await entries()).toBe(0); // nothing written
    expect((await cli(...base(), ...model, '--model', 'wire-modes')).code).toBe(0); // fills the cache (16: errors are never cached)
    const kept = await entries();
    expect(kept).toBe(16);
    before = server.hits.openai;
    expect((await cli(...base(), ...model, '--model', 'wire-modes', '--no-cache')).code).toBe(0);
    expect(server.hits.openai - before).toBe(17); // nothing read either: every call is made again
    const dry = await cli(...base(), ...model, '--model', 'wire-modes', '--no-cache', '--dry-run');
    expect(dry.out).toMatch(/17 calls to make and 0 \(0%\) answered from the cache/); // cached entries exist, --no-cache reads none
    before = server.hits.openai;
    expect((await cli(...base(), ...model, '--model', 'wire-modes', '--no-cache-write')).code).toBe(0);
    expect(server.hits.openai - before).toBe(1); // read: only the request that failed before is called
    expect((await cli(...base(), ...model, '--model', 'wire-other', '--no-cache-write')).code).toBe(0);
    expect(await entries()).toBe(kept); // the other model's answers were not kept
    const both = await cli(...base(), ...model, '--model', 'wire-modes', '--no-cache', '--cache-only');
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--no-cache and --cache-only contradict each other/);
  });

  it('prints the results file on stdout with --json; the old `--json FILE` writes FILE with a note', async () => {
    const r = await cli(...base(), '--selectors', 'keyword,explicit', '--json');
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.out);
    expect(parsed).toMatchObject({ schema: 'skillbench.results', version: 2, command: 'eval-trigger' });
    expect(parsed.runs.map((x: { selector: string }) => x.selector)).toEqual(['keyword', 'explicit']);
    const old = await cli(...base(), '--selectors', 'keyword', '--json', file('old-spelling.json'));
    expect(old.code).toBe(0);
    expect(old.out).toMatch(/│ keyword/); // the tables, as before
    expect(old.err).toContain(`\`--json ${file('old-spelling.json')}\` is the old spelling: write \`-o ${file('old-spelling.json')}\``);
    expect((await readResults(file('old-spelling.json'))).runs[0]!.selector).toBe('keyword');
    // The old `-o a b` (one -o, several files): still written, with a note; a stray argument is named.
    const greedy = await cli(...base(), '--selectors', 'keyword', '-o', file('greedy.json'), file('greedy.md'));
    expect(greedy.code).toBe(0);
    expect(greedy.err).toContain(`is the old spelling: write -o before each file (-o ${file('greedy.json')} -o ${file('greedy.md')})`);
    expect((await readFile(file('greedy.md'), 'utf8')).length).toBeGreaterThan(0);
    const stray = await cli(...base(), '--selectors', 'keyword', 'skills');
    expect(stray.code).toBe(2);
    expect(stray.err).toContain('unexpected argument "skills" for eval-trigger');
    const twice = await cli(...base(), '--selectors', 'keyword', '-o', file('twice.json'), '-o', file('twice.json'));
    expect(twice.code).toBe(2);
    expect(twice.err).toMatch(/twice\.json is given twice as an output/);
  });

  it('turns a failed embedding provider into error decisions, counted apart, not a crash', async () => {
    const r = await cli(...base(), '--selectors', 'similarity,keyword', '--embeddings', 'openai', '--base-url', server.baseUrl('openai'), '-o', file('emb-fail.json'));
    expect(r.code).toBe(4);
    const results = await readResults(file('emb-fail.json'));
    const sim = computeMetrics(results.runs[0]!, results.requests);
    expect(sim.errors).toBe(17);
    expect(sim.accuracy.n).toBe(0);
    expect(results.runs[0]!.decisions[0]!.error).toMatch(/embeddings: .*400/);
    expect(computeMetrics(results.runs[1]!, results.requests).errors).toBe(0);
  });

  it('--threshold baseline fails with exit 2, before any call, when the baseline cannot give a score selector its threshold', async () => {
    // Baselines written offline: keyword only; similarity with the offline use model; similarity whose embeddings failed.
    expect((await cli(...base(), '--selectors', 'keyword', '-o', file('th-keyword.json'))).code).toBe(0);
    expect((await cli(...base(), '--selectors', 'similarity', '-o', file('th-use.json'))).code).toBe(0);
    const failed = await cli(...base(), '--selectors', 'similarity', '--embeddings', 'openai', '--base-url', server.baseUrl('openai'), '-o', file('th-failed.json'));
    expect(failed.code).toBe(4);
    expect((await readResults(file('th-failed.json'))).runs[0]!.threshold).toBeUndefined();

    const paid = ['--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-th', '--embeddings', 'openai', '--no-cache'];
    const cases: [string[], RegExp][] = [
      [['--selectors', 'model,similarity,keyword', '--baseline', file('th-keyword.json')],
        /th-keyword\.json: --threshold baseline: the baseline has no similarity run to take a threshold from \(it has keyword\)/],
      [['--selectors', 'model,similarity', '--baseline', file('th-failed.json')],
        /th-failed\.json: --threshold baseline: the baseline's similarity run has no threshold/],
      [['--selectors', 'model,similarity', '--baseline', file('th-use.json')],
        /th-use\.json: --threshold baseline: the baseline's similarity scores come from use\/.* embeddings, this run uses openai\/default/],
      [['--selectors', 'model,hybrid,keyword'], /--threshold baseline: no --baseline FILE/],
    ];
    for (const [args, message] of cases) {
      const before = server.hits.openai;
      const r = await cli(...base(), ...paid, ...args, '--threshold', 'baseline', '-o', file('th-refused.json'));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err).toMatch(/fix: /);
      expect(server.hits.openai, args.join(' ')).toBe(before); // no chat call, no embedding call
    }
  });
});
