// --shard I/N and `report --merge`: deterministic slices by request-id hash (stable when requests are added), and
// shard results joined into one results file with the figures of a single run (optimistic thresholds re-chosen on
// every request), read by every report format and the baseline gate; shards of different runs refused, naming the
// file and the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readResults } from '../src/results.js';
import { computeMetrics } from '../src/metrics.js';
import { parseShard, selectShard, shardOfId } from '../src/shard.js';
import type { EvalRequest, ResultsFile } from '../src/types.js';
import { openai, startWireServer, type WireServer } from './support/wire-server.js';
import { runCli } from './support/cli.js';
import { clearProviderEnv, THREE_SKILLS } from './support/fixtures.js';

clearProviderEnv();

const catalogue = [
  ...THREE_SKILLS,
  { name: 'sql-tutor', description: 'Write and explain SQL queries: joins, group by, window functions and indexes.' },
];
const texts: [string, string | null][] = [
  ['Extract the tables from this PDF report', 'doc-extractor'],
  ['Merge these three PDF files into one', 'doc-extractor'],
  ['Split the PDF into separate pages', 'doc-extractor'],
  ['Fill in the PDF form with my address', 'doc-extractor'],
  ['Pull the text out of the scanned document', 'doc-extractor'],
  ['How do I resolve a merge conflict in git?', 'git-helper'],
  ['git says my branch has diverged, what does that error mean?', 'git-helper'],
  ['Rewrite the commit history of my branch', 'git-helper'],
  ['Undo my last commit', 'git-helper'],
  ['Draft a professional email reply to my manager', 'email-writer'],
  ['Polish this follow-up email to a client', 'email-writer'],
  ['/email-writer an apology to customers about the outage', 'email-writer'],
  ['Write an announcement for the team', 'email-writer'],
  ['Write a SQL query that joins orders and customers', 'sql-tutor'],
  ['Explain window functions in SQL', 'sql-tutor'],
  ['Why is my query slow, do I need an index?', 'sql-tutor'],
  ['Group sales by month in SQL', 'sql-tutor'],
  ['What is the capital of Peru?', null],
  ['Tell me a joke about penguins', null],
  ['How many legs does a spider have?', null],
  ['Recommend a good book about history', null],
  ['What is the weather like on Mars?', null],
  ['Merge two lists in Python', null],
  ['Split the bill between four friends', null],
];
const requests: EvalRequest[] = texts.map(([text, gold], i) => ({ id: `q-${i + 1}`, text, gold }));

let dir: string;
const file = (name: string) => path.join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillbench-shard-'));
  await writeFile(file('catalogue.json'), JSON.stringify(catalogue));
  await writeFile(file('changed.json'), JSON.stringify(catalogue.map((s) => (s.name === 'sql-tutor' ? { ...s, description: 'Databases.' } : s))));

  await writeFile(file('requests.json'), JSON.stringify(requests));
  await writeFile(file('other-requests.json'), JSON.stringify(requests.slice(0, 20)));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const base = (skills = 'catalogue.json', reqs = 'requests.json') => ['--no-progress', '--skills', file(skills), '--requests', file(reqs), '--cache-dir', file('cache')];
const trigger = (...args: string[]) => runCli(['eval-trigger', ...args]);
const report = (...args: string[]) => runCli(['report', ...args]);

/** Everything a figure is computed from, per selector: the decisions and the metrics. */
function figures(r: ResultsFile) {
  return r.runs.map((run) => ({
    selector: run.selector,
    threshold: run.threshold,
    decisions: run.decisions.map((d) => ({ ...d, latencyMs: undefined, costUsd: undefined, cached: undefined })),
    metrics: computeMetrics(run, r.requests),
  }));
}

describe('--shard I/N', () => {
  it('parses I/N and refuses anything else in one line naming the option', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    for (const bad of ['0/4', '5/4', '2', 'a/b', '1/0', '-1/3']) expect(() => parseShard(bad), bad).toThrow(/--shard: ".*" is not I\/N with 1 <= I <= N/);
  });

  it('puts every request in exactly one shard, by id, and keeps the shards when requests are added', () => {
    const many = Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}`, text: `t${i}`, gold: null }));
    const parts = [1, 2, 3, 4].map((index) => selectShard(many, { index, count: 4 }).requests);
    expect(parts.flat().map((r) => r.id).sort()).toEqual(many.map((r) => r.id).sort());
    for (const p of parts) expect(p.length).toBeGreaterThan(600); // ~750 each
    // Adding 500 requests (anywhere) moves none of the others.
    const more = [...many.slice(0, 1000), ...Array.from({ length: 500 }, (_, i) => ({ id: `new${i}`, text: '', gold: null })), ...many.slice(1000)];
    for (const r of many) expect(shardOfId(r.id, 4)).toBe(parts.findIndex((p) => p.some((x) => x.id === r.id)) + 1);
    const again = selectShard(more, { index: 2, count: 4 }).requests.filter((r) => !r.id.startsWith('new'));
    expect(again.map((r) => r.id)).toEqual(parts[1]!.map((r) => r.id));
  });
});

describe('report --merge', () => {
  it('gives the figures of one run: decisions, thresholds re-chosen on every request, metrics, completeness', async () => {
    const sel = ['--selectors', 'similarity,keyword,explicit', '--cv', 'off'];
    expect((await trigger(...base(), ...sel, '--json', file('full.json'))).code).toBe(0);
    for (const i of [1, 2, 3]) {
      const r = await trigger(...base(), ...sel, '--shard', `${i}/3`, '--json', file(`s${i}.json`));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`shard ${i}/3: \\d+ of 24 requests; join every shard's results with \`skillbench report --merge\``));
    }
    const shards = await Promise.all([1, 2, 3].map((i) => readResults(file(`s${i}.json`))));
    expect(shards.reduce((n, s) => n + s.requests.length, 0)).toBe(24);
    const m = await report('--merge', file('s1.json'), file('s2.json'), file('s3.json'), '-o', file('merged.json'));
    expect(m.code, m.stderr).toBe(0);
    const [full, merged] = [await readResults(file('full.json')), await readResults(file('merged.json'))];
    expect(merged.requests).toEqual(full.requests); // in file order
    expect(figures(merged)).toEqual(figures(full));
    expect(merged.completeness).toEqual(full.completeness);
    expect(merged.tokenAudit).toEqual(full.tokenAudit);
    expect(merged.settings.shard).toBeUndefined();
    expect(merged.settings.merged).toEqual({ shards: 3, files: [1, 2, 3].map((i) => file(`s${i}.json`)) });
    // Per shard, a threshold was chosen on a third of the requests; merged, on all of them, as the single run.
    const value = (r: ResultsFile, sel: string) => r.runs.find((x) => x.selector === sel)!.threshold!.value;
    for (const sel of ['similarity', 'keyword']) expect(value(merged, sel)).toBe(value(full, sel));
    expect(shards.some((s) => ['similarity', 'keyword'].some((sel) => value(s, sel) !== value(full, sel)))).toBe(true);
  });

  it('fits cross-validated thresholds and fused\'s decision again over every request, as one run does (and optimistic ones)', { timeout: 120_000 }, async () => {
    for (const cv of [[], ['--cv', 'off']]) {
      const sel = ['--selectors', 'fused,similarity,keyword', ...cv];
      const tag = cv.length ? 'off' : 'cv';
      expect((await trigger(...base(), ...sel, '-o', file(`full-${tag}.json`))).code).toBe(0);
      for (const i of [1, 2, 3]) expect((await trigger(...base(), ...sel, '--shard', `${i}/3`, '-o', file(`${tag}${i}.json`))).code).toBe(0);
      const m = await report('--merge', file(`${tag}1.json`), file(`${tag}2.json`), file(`${tag}3.json`), '-o', file(`merged-${tag}.json`));
      expect(m.code, m.stderr).toBe(0);
      const [full, merged] = [await readResults(file(`full-${tag}.json`)), await readResults(file(`merged-${tag}.json`))];
      expect(full.runs.map((r) => r.threshold!.source)).toEqual(Array(3).fill(cv.length ? 'optimistic' : 'cross-validated'));
      expect(figures(merged)).toEqual(figures(full));
      expect(merged.runs.find((r) => r.selector === 'fused')!.fit).toEqual(full.runs.find((r) => r.selector === 'fused')!.fit);
      // Each shard fitted fused on its own slice: the merge is what makes the figures those of one run.
      const shard = await readResults(file(`${tag}1.json`));
      expect(shard.runs.find((r) => r.selector === 'fused')!.fit).not.toEqual(full.runs.find((r) => r.selector === 'fused')!.fit);
    }
    // A fused shard written without the features its refit needs is refused, naming the field.
    const old = JSON.parse(await readFile(file('cv1.json'), 'utf8')) as ResultsFile;
    for (const d of old.runs.find((r) => r.selector === 'fused')!.decisions) delete d.detail!.features;
    await writeFile(file('old1.json'), JSON.stringify(old));
    const refused = await report('--merge', file('old1.json'), file('cv2.json'), file('cv3.json'), '-o', file('never.json'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/old1\.json: field "runs\[0\]\.decisions\[0\]\.detail\.features" is missing: fused's decision cannot be fitted again/);
  });

  it('is read by every report format and by the baseline gate as one run', async () => {
    const r = await report('--merge', file('s3.json'), file('s1.json'), file('s2.json'), '-o', file('m.md'), '-o', file('m.xml'), '-o', file('m.csv'), '-o', file('m.html'));
    expect(r.code, r.stderr).toBe(0);
    const md = await readFile(file('m.md'), 'utf8');
    const fullMd = (await report(file('full.json'), '-o', file('full.md'))).code === 0 ? await readFile(file('full.md'), 'utf8') : '';
    const rows = (text: string) => text.split('\n').filter((l) => /^\| (similarity|keyword|explicit) /.test(l));
    expect(rows(md).length).toBeGreaterThan(0);
    expect(rows(md)).toEqual(rows(fullMd));
    const junit = await readFile(file('m.xml'), 'utf8');
    expect((junit.match(/<testcase /g) ?? []).length).toBe(24 * 3);
    // Terminal tables, and the baseline gate both ways.
    const t = await report('--merge', file('s1.json'), file('s2.json'), file('s3.json'));
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/keyword/);
    expect((await report(file('merged.json'), '--baseline', file('full.json'))).code).toBe(0);
    expect((await report('--merge', file('s1.json'), file('s2.json'), file('s3.json'), '--baseline', file('full.json'))).code).toBe(0);
    const again = await trigger(...base(), '--selectors', 'similarity,keyword,explicit', '--baseline', file('merged.json'), '--threshold', 'baseline');
    expect(again.code, again.stderr).toBe(0);
  });

  it('refuses shards of different settings, catalogues or request sets, missing or repeated shards, naming the file and the field', async () => {
    const sel = ['--selectors', 'keyword,explicit', '--cv', 'off'];
    for (const i of [1, 2]) expect((await trigger(...base(), ...sel, '--shard', `${i}/2`, '--json', file(`k${i}.json`))).code).toBe(0);
    expect((await trigger(...base(), ...sel, '--shard', '2/2', '--k', '2', '--json', file('k2-k.json'))).code).toBe(0);
    // The same catalogue path with a changed description (a shard run on another commit).
    await writeFile(file('catalogue.json'), await readFile(file('changed.json'), 'utf8'));
    try {
      expect((await trigger(...base(), ...sel, '--shard', '2/2', '--json', file('k2-cat.json'))).code).toBe(0);
    } finally {
      await writeFile(file('catalogue.json'), JSON.stringify(catalogue));
    }
    expect((await trigger(...base('catalogue.json', 'other-requests.json'), ...sel, '--shard', '2/2', '--json', file('k2-req.json'))).code).toBe(0);
    expect((await trigger(...base(), ...sel, '--shard', '2/3', '--json', file('k2-of-3.json'))).code).toBe(0);

    const cases: [string[], RegExp][] = [
      [['k1.json', 'k2-k.json'], /k2-k\.json: field "settings\.k" is 2, but .*k1\.json has 3/],
      [['k1.json', 'k2-cat.json'], /k2-cat\.json: field "catalogue\.skills\[3\]\.hash" is "\w+", but .*k1\.json has "\w+"/],
      [['k1.json', 'k2-req.json'], /k2-req\.json: field "settings\.requests" is ".*other-requests\.json", but .*k1\.json has ".*requests\.json"/],
      [['k1.json', 'k2-of-3.json'], /k2-of-3\.json: field "settings\.shard\.count" is 3, but .*k1\.json has 2/],
      [['k1.json'], /report --merge: shard 2 of 2 missing/],
      [['k1.json', 'k1.json', 'k2.json'], /k1\.json: field "settings\.shard\.index" is 1\/2, like .*k1\.json: each shard once/],
      [['k1.json', 'full.json'], /full\.json: field "settings\.shard" is missing: not the results of an eval-trigger --shard I\/N run/],
    ];
    for (const [files, message] of cases) {
      const r = await report('--merge', ...files.map(file), '-o', file('bad.json'));
      expect(r.code, files.join(' ')).toBe(2);
      expect(r.stderr, files.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/at .*\(/); // one line and a fix, no stack
    }
    const both = await report(file('k1.json'), '--merge', file('k1.json'), file('k2.json'));
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/a results file .* and --merge both given/);
  });
});

describe('shards of a model run, one of them through a batch', () => {
  let server: WireServer;
  beforeAll(async () => {
    const gold = new Map(requests.map((r) => [r.text, r.gold]));
    server = await startWireServer({
      openai: (req) => {
        const text = req.body.messages.at(-1).content as string;
        const g = gold.get(text) ?? null;
        const usage = { input: Math.round(JSON.stringify(req.body).length / 4), output: 8 };
        if (req.body.model === 'wire-fail' && text === 'Undo my last commit') return { status: 400, body: { error: { message: 'scripted failure', type: 'invalid_request_error' } } };
        // A model that is wrong on a few requests, so the figures are not all perfect.
        if (g && !text.includes('SQL')) return openai.toolCall('activate_skill', { name: g }, usage);
        return openai.text('No skill needed.', usage);
      },
    });
  });
  afterAll(() => server?.close());

  it('merges shards run live and in a batch into the figures of one live run', async () => {
    const model = ['--selectors', 'model,explicit', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-shard'];
    const env = { SKILLBENCH_BATCH_POLL_MS: '5' };
    const one = await runCli(['eval-trigger', ...base(), ...model, '--json', file('model-full.json'), '--cache-dir', file('cache-full')], { env });
    expect(one.code, one.stderr).toBe(0);
    const a = await runCli(['eval-trigger', ...base(), ...model, '--shard', '1/2', '--json', file('model-1.json'), '--cache-dir', file('cache-1')], { env });
    const b = await runCli(['eval-trigger', ...base(), ...model, '--shard', '2/2', '--batch', '--json', file('model-2.json'), '--cache-dir', file('cache-2')], { env });
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    expect(server.batches.jobs).toHaveLength(1);
    const m = await report('--merge', file('model-1.json'), file('model-2.json'), '-o', file('model-merged.json'));
    expect(m.code, m.stderr).toBe(0);
    const [full, merged] = [await readResults(file('model-full.json')), await readResults(file('model-merged.json'))];
    expect(figures(merged)).toEqual(figures(full));
    const model0 = computeMetrics(merged.runs[0]!, merged.requests);
    expect(model0.wrongLoad.k).toBe(3); // the three requests that say SQL
  });

  it('makes the merged run incomplete when a shard was: outputs written, exit 4, no gate passes', async () => {
    const model = ['--selectors', 'model', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-fail', '--cache-dir', file('cache-fail')];
    const codes = [];
    for (const i of [1, 2]) codes.push((await runCli(['eval-trigger', ...base(), ...model, '--shard', `${i}/2`, '--json', file(`fail-${i}.json`)])).code);
    expect(codes.sort()).toEqual([0, 4]);
    const m = await report('--merge', file('fail-1.json'), file('fail-2.json'), '-o', file('fail-merged.json'), '--baseline', file('model-full.json'));
    expect(m.code).toBe(4);
    const merged = await readResults(file('fail-merged.json'));
    expect(merged.completeness).toMatchObject({ failed: 1, total: 24, complete: false });
    expect(merged.gate!.passed).toBe(false);
    expect(merged.gate!.reasons[0]).toMatch(/^incomplete: 1 of 24 calls failed.*no gate passes on an incomplete run/);
  });
});

describe('the sharded GitHub Actions workflow example', () => {
  interface Step { id?: string; name?: string; uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string> }
  interface Job { needs?: string; strategy?: { matrix: { shard: number[] } }; steps: Step[] }

  it('runs every shard of the matrix with options that exist, and merges all of them', async () => {
    const text = await readFile(path.join(import.meta.dirname, '..', 'examples', 'github-workflow-shards.yml'), 'utf8');
    const { default: matter } = await import('gray-matter');
    const wf = matter(`---\n${text}\n---\n`).data as { jobs: Record<string, Job> };
    const shards = wf.jobs.shard!.strategy!.matrix.shard;
    expect(shards).toEqual([1, 2, 3, 4]);
    expect(wf.jobs.merge!.needs).toBe('shard');
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    for (const step of steps) {
      expect(Boolean(step.uses) !== Boolean(step.run), JSON.stringify(step)).toBe(true);
      if (step.uses) expect(step.uses).toMatch(/^[\w-]+\/[\w-]+(\/[\w-]+)?@v\d+$/);
    }
    const { buildProgram } = await import('../src/cli.js');
    const optionsOf = (name: string) => new Set(buildProgram().commands.find((c) => c.name() === name)!.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
    const runs = steps.map((s) => (s.run ?? '').replace(/\\\n/g, ' ')).join('\n');
    const evalLine = /skillbench eval-trigger[^\n]*/.exec(runs)![0];
    const mergeLine = /skillbench report --merge[^\n]*/.exec(runs)![0];
    for (const [line, cmd] of [[evalLine, 'eval-trigger'], [mergeLine, 'report']] as const) {
      const known = optionsOf(cmd);
      for (const [option] of line.matchAll(/(?<=\s)--?[a-z][\w-]*/g)) expect(known.has(option), `${cmd} ${option}`).toBe(true);
    }
    expect(evalLine).toContain(`--shard "$SHARD/${shards.length}"`);
    expect(evalLine).toContain('-o "skillbench/shard-$SHARD.json"');
    expect(evalLine).toContain('"${threshold[@]}"');
    for (const i of shards) expect(mergeLine).toContain(`skillbench/shard-${i}.json`);
    expect(steps.find((s) => s.id === 'eval')!.env!.SHARD).toBe('${{ matrix.shard }}');
  });
});
