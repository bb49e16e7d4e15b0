#!/usr/bin/env node
// The offline selectors against their goals (issue 14), through the real launcher (`npm run bench`, or
// `node bench/run.mjs offline`):
//  1. MetaTool (../shared/data/metatool: 199 tools, 1,040 requests) offline with the default selectors (fused,
//     similarity, keyword, explicit): wall time cold (empty cache: every text embedded with `use`) and warm (vectors
//     cached; median of 5). Targets: cold under 30 s, warm under 2 s.
//  2. Its figures, honest: the default run cross-validates in 5 folds; and calibrated on one half, scored on the
//     other (requests split in alternating pairs), both ways. Goal for fused: mean of wrong and needless load at most
//     0.33, recall@3 at least 80%, recall@10 at least 92%.
//  3. The bundled catalogue (skills/, requests.json): covered requests fused ranks first (goal: at least 22 of 24).
// Results go to docs/benchmarks.md, section "Offline selectors".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { machineLine, root, writeBenchSection } from './run.mjs';

const launcher = path.join(root, 'bin', 'skillbench.js');
const env = { ...process.env, GEMINI_API_KEY: '', GOOGLE_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
const { computeMetrics } = await import(pathToFileURL(path.join(root, 'dist', 'metrics.js')).href);

function cli(args, extraEnv = {}) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [launcher, ...args], { cwd: root, env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`skillbench ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  return seconds;
}

const pct = (r) => (r.rate === null ? '-' : `${(100 * r.rate).toFixed(1)}%`);
const count = (r) => `${pct(r)} (${r.k}/${r.n})`;
const fmt = (s) => `${s.toFixed(1)} s`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const read = (file) => JSON.parse(readFileSync(file, 'utf8'));

function figures(results) {
  return results.runs
    .filter((run) => run.selector !== 'explicit')
    .map((run) => ({ run, m: computeMetrics(run, results.requests) }));
}

function figureRows(results) {
  return figures(results).map(({ run, m }) => {
    const mean = (m.wrongLoad.rate + m.needlessLoad.rate) / 2;
    const r = m.recall;
    return `| \`${run.selector}\` | ${pct(r.top1)} | ${pct(r.top3)} | ${pct(r.top5)} | ${pct(r.top10)} | ${count(m.wrongLoad)} | ${count(m.needlessLoad)} | **${mean.toFixed(3)}** |`;
  });
}

const sections = [];
const work = mkdtempSync(path.join(os.tmpdir(), 'skillbench-offline-bench-'));
try {
  const metatool = path.resolve(root, '..', 'shared', 'data', 'metatool');
  if (existsSync(path.join(metatool, 'tools.json'))) {
    const cache = path.join(work, 'cache');
    const base = ['eval-trigger', '--no-progress', '--cache-dir', cache, '--skills', path.join(metatool, 'tools.json')];
    const all = path.join(metatool, 'requests.json');
    const cold = cli([...base, '--requests', all, '-o', path.join(work, 'mt.json')]);
    const warm = median(Array.from({ length: 5 }, () => cli([...base, '--requests', all])));
    const oneCache = path.join(work, 'cache-one-thread');
    const coldOne = cli(['eval-trigger', '--no-progress', '--cache-dir', oneCache, '--skills', path.join(metatool, 'tools.json'), '--requests', all], { SKILLBENCH_USE_THREADS: '1' });
    // Halves: alternating pairs, so each half has 260 covered and 260 uncovered requests.
    const requests = read(all);
    const halves = { a: requests.filter((_, i) => Math.floor(i / 2) % 2 === 0), b: requests.filter((_, i) => Math.floor(i / 2) % 2 === 1) };
    for (const [k, v] of Object.entries(halves)) writeFileSync(path.join(work, `half-${k}.json`), JSON.stringify(v));
    cli([...base, '--requests', path.join(work, 'half-b.json'), '--calibrate', path.join(work, 'half-a.json'), '-o', path.join(work, 'b-by-a.json')]);
    cli([...base, '--requests', path.join(work, 'half-a.json'), '--calibrate', path.join(work, 'half-b.json'), '-o', path.join(work, 'a-by-b.json')]);
    const halfRows = [['half b (fitted on a)', 'b-by-a.json'], ['half a (fitted on b)', 'a-by-b.json']].flatMap(([label, file]) =>
      figures(read(path.join(work, file))).map(({ run, m }) =>
        `| ${label} | \`${run.selector}\` | ${count(m.wrongLoad)} | ${count(m.needlessLoad)} | **${((m.wrongLoad.rate + m.needlessLoad.rate) / 2).toFixed(3)}** |`),
    );
    sections.push(`### MetaTool (199 tools, 1,040 requests: 520 covered, 520 uncovered)

\`\`\`bash
node bin/skillbench.js eval-trigger --skills ../shared/data/metatool/tools.json --requests ../shared/data/metatool/requests.json -o mt.json
\`\`\`

| run | wall time | target | met |
|---|---:|---|---|
| cold (empty cache: 1,040 requests and 2 x 199 descriptions embedded with \`use\`) | ${fmt(cold)} | under 30 s | ${cold < 30 ? 'yes' : 'no'} |
| warm (vectors read from the cache), median of 5 | ${fmt(warm)} | under 2 s | ${warm < 2 ? 'yes' : 'no'} |
| cold on one thread (\`SKILLBENCH_USE_THREADS=1\`), for scale | ${fmt(coldOne)} | - | - |

Figures of that run (thresholds, and fused's decision, cross-validated in 5 folds: the default with this many requests):

| selector | recall@1 | recall@3 | recall@5 | recall@10 | wrong load | needless load | (wrong + needless) / 2 |
|---|---:|---:|---:|---:|---:|---:|---:|
${figureRows(read(path.join(work, 'mt.json'))).join('\n')}

Fitted on one half and scored on the other (\`--calibrate\`; halves are alternating pairs of requests):

| scored on | selector | wrong load | needless load | (wrong + needless) / 2 |
|---|---|---:|---:|---:|
${halfRows.join('\n')}

Goals for \`fused\`: (wrong + needless) / 2 at most 0.33, recall@3 at least 80%, recall@10 at least 92%.

- The fusion weights (words 0.5, n-grams 0.25, cosine of \`name: description\` 1, cosine of the description 0.5)
  were chosen on MetaTool's other 995 positive requests (\`requests_selection_sample.json\`, no text in common
  with \`requests.json\`), not on the requests above; the decision is fitted on the labelled requests and the
  figures are held out (5 folds, or the other half).
- Wall times depend on the machine's load (this one is shared: see the load average above). Cold is almost all
  embedding with \`use\` (about 1,440 texts); since the fused selector shares the request and description vectors
  with \`similarity\`, it adds only the 199 \`name: description\` vectors.
- Before these changes (commit \`01becbf\`, "eval-trigger (before the fused selector)" above, thresholds chosen on
  one half and scored on the other): similarity 0.408-0.440, keyword 0.429-0.438.
- The issue-14 run measured \`fused\` at 0.327 (284/520 wrong). Since descriptions are read trimmed, as skills-ref reads
  them (one MetaTool description ended in whitespace), every BM25 score moves slightly (the mean document length
  changes) and 4 decisions near the boundary flipped: 0.331 (288/520), just over the 0.33 goal. Checked by running
  commit 6614ff8 and the current code on the same cache: the rankings differ only in the fourth decimal.
- Tried on the development file (\`requests_selection_sample.json\`) to reach the recall goals, each within about
  half a point of recall@10 85.3% there: other fusion weights (a 60-point grid, a fitted linear ranker), reciprocal-
  rank and min-max fusion, BM25 k1 0.6-2 and b 0.3-0.9, name splitting and boosting, word bigrams, other n-gram
  sizes, pseudo-relevance feedback (RM3, Rocchio on the vectors), hub correction, sentence-level matching. Of the
  146 development requests whose tool is outside the top 10, only 54 have it in the top 10 of any one signal: a
  perfect fusion of these signals would reach about 90.7%, so recall@10 92% needs a stronger offline reader than
  Universal Sentence Encoder lite.`);
  } else {
    console.log(`bench: ${metatool} is absent: MetaTool skipped`);
  }

  const cache = path.join(work, 'cache-bundled');
  cli(['eval-trigger', '--no-progress', '--cache-dir', cache, '-o', path.join(work, 'bundled.json')]);
  const bundled = read(path.join(work, 'bundled.json'));
  sections.push(`### Bundled catalogue (skills/, requests.json: 6 skills, 30 requests, 24 covered, half in French)

\`\`\`bash
node bin/skillbench.js eval-trigger -o bundled.json
\`\`\`

| selector | recall@1 | recall@3 | recall@5 | recall@10 | wrong load | needless load | (wrong + needless) / 2 |
|---|---:|---:|---:|---:|---:|---:|---:|
${figureRows(bundled).join('\n')}

Goal: \`fused\` ranks at least 22 of the 24 covered requests first (recall@1).`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

const body = `Command: \`npm run bench\` (or \`node bench/run.mjs offline\`), file \`bench/offline.bench.mjs\`, through \`bin/skillbench.js\`.
Machine: ${machineLine()}. No API key set (offline selectors only).

${sections.join('\n\n')}
`;
writeBenchSection('Offline selectors', body);
console.log(body);
