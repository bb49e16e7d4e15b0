#!/usr/bin/env node
// Scale benchmarks on generated catalogues (bench/generate-catalogue.mjs), through bin/skillbench.js (run through
// `npm run bench`, or `node bench/run.mjs scale`): `validate`, `tokens` and offline `eval-trigger --selectors keyword`
// at 1,000, 10,000 and 50,000 skills (folders of SKILL.md files, 100 requests), the keyword run on a JSON list with
// one request, and `eval-trigger --selectors similarity` at 1,000 and 10,000 skills with a warm vector cache (the cold
// run that fills it is timed too). Wall time and peak memory (maxRSS of the skillbench process) per run; the median of
// three runs below 50,000 skills, one run at 50,000. Targets (issue 13): from 10,000 to 50,000 skills the cost grows at
// most 6 times, and validate on 10,000 skills takes under 5 s.
//   SKILLBENCH_SCALE_SIZES=1000,10000 node bench/run.mjs scale --no-build     a quicker partial run (not written)
// Results go to docs/benchmarks.md, section "Scale (generated catalogues)", only for a full run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateRequests, generateSkills, writeFolderCatalogue, writeJsonCatalogue } from './generate-catalogue.mjs';
import { machineLine, root, writeBenchSection } from './run.mjs';

const FULL = [1_000, 10_000, 50_000];
const sizes = process.env.SKILLBENCH_SCALE_SIZES ? process.env.SKILLBENCH_SCALE_SIZES.split(',').map(Number) : FULL;
const SIMILARITY_SIZES = new Set([1_000, 10_000]);
const launcher = path.join(root, 'bin', 'skillbench.js');
const preload = path.join(root, 'bench', 'rusage-preload.mjs');
const env = { ...process.env, GEMINI_API_KEY: '', GOOGLE_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
const tmp = mkdtempSync(path.join(os.tmpdir(), 'skillbench-scale-bench-'));
const statsFile = path.join(tmp, 'stats.json');

/** One run of the CLI: wall seconds and peak memory (MiB); throws on an exit code other than 0 or 1. */
function runOnce(args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', preload, launcher, ...args], {
    cwd: root,
    env: { ...env, SKILLBENCH_BENCH_STATS: statsFile },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0 && r.status !== 1) throw new Error(`skillbench ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-800)}`);
  const stats = JSON.parse(readFileSync(statsFile, 'utf8'));
  return { seconds, mib: stats.maxRssKb / 1024 };
}

/** The median run by wall time of `times` runs. */
function measure(args, times) {
  const runs = Array.from({ length: times }, () => runOnce(args)).sort((a, b) => a.seconds - b.seconds);
  return runs[Math.floor(runs.length / 2)];
}

const fmt = (m) => (m ? `${m.seconds.toFixed(2)} s, ${Math.round(m.mib)} MiB` : '-');
const rows = new Map(); // label -> size -> measurement
const put = (label, n, m) => {
  if (!rows.has(label)) rows.set(label, new Map());
  rows.get(label).set(n, m);
  console.log(`bench: ${label} at ${n.toLocaleString('en-US')} skills: ${fmt(m)}`);
};

try {
  for (const n of sizes) {
    const skills = generateSkills(n);
    const folder = path.join(tmp, `skills-${n}`);
    const json = path.join(tmp, `skills-${n}.json`);
    writeFolderCatalogue(folder, skills);
    writeJsonCatalogue(json, skills);
    const requests = path.join(tmp, `requests-${n}.json`);
    const one = path.join(tmp, `request-${n}.json`);
    const set = generateRequests(skills, 100).map((r) => ({ id: r.id, text: r.text, gold: r.skill }));
    writeFileSync(requests, JSON.stringify(set));
    writeFileSync(one, JSON.stringify(set.slice(0, 1)));
    const times = n >= 50_000 ? 1 : 3;
    const cache = path.join(tmp, `cache-${n}`);
    const trigger = (skillsPath, req, selector) => ['eval-trigger', '--skills', skillsPath, '--requests', req, '--selectors', selector, '--no-progress', '--cache-dir', cache];

    runOnce(['validate', folder]); // warm the file system cache once
    put('`validate <folder>`', n, measure(['validate', folder], times));
    put('`tokens --skills <folder>`', n, measure(['tokens', '--skills', folder], times));
    put('`eval-trigger --selectors keyword` (folder, 100 requests)', n, measure(trigger(folder, requests, 'keyword'), times));
    put('`eval-trigger --selectors keyword` (JSON list, 1 request)', n, measure(trigger(json, one, 'keyword'), times));
    if (SIMILARITY_SIZES.has(n)) {
      put('`eval-trigger --selectors similarity`, cold cache (fills it: every description and request embedded)', n, runOnce(trigger(folder, requests, 'similarity')));
      put('`eval-trigger --selectors similarity`, warm cache', n, measure(trigger(folder, requests, 'similarity'), times));
    }
    rmSync(folder, { recursive: true, force: true });
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const growth = (label) => {
  const r = rows.get(label);
  const a = r?.get(10_000);
  const b = r?.get(50_000);
  return a && b ? b.seconds / a.seconds : null;
};
const lines = [...rows].map(([label, bySize]) => {
  const g = growth(label);
  return `| ${label} | ${FULL.map((n) => fmt(bySize.get(n))).join(' | ')} | ${g === null ? '-' : `${g.toFixed(1)}x`} |`;
});
const validate10k = rows.get('`validate <folder>`')?.get(10_000);
const growths = [...rows.keys()].map(growth).filter((g) => g !== null);
const worst = growths.length ? Math.max(...growths) : null;

if (sizes.join(',') !== FULL.join(',')) {
  console.log('bench: partial run (SKILLBENCH_SCALE_SIZES): docs/benchmarks.md not written');
} else {
  writeBenchSection(
    'Scale (generated catalogues)',
    `Command: \`npm run bench\` (or \`node bench/run.mjs scale\`), file \`bench/scale.bench.mjs\`, through \`bin/skillbench.js\`.
Machine: ${machineLine()}. No API key set (offline selectors only).

Catalogues from \`bench/generate-catalogue.mjs\` (seeded, the same on every machine): N skill folders, each a SKILL.md
with a 12-30 word description drawn from a Zipf-Mandelbrot distribution over a 20,000-word vocabulary (1 skill in 50
a near copy of an earlier one), and 100 requests (half paraphrase a skill, half fit none). Each cell is the wall time
and the peak memory (maxRSS) of the skillbench process: the median of 3 runs at 1,000 and 10,000 skills, one run at
50,000. The similarity rows use the offline model (\`use\`); the warm rows read every vector from the cache.

| command | 1,000 skills | 10,000 skills | 50,000 skills | time 10,000 -> 50,000 |
|---|---:|---:|---:|---:|
${lines.join('\n')}

- Target: from 10,000 to 50,000 skills (5 times the skills) the cost grows at most 6 times: worst growth here
  ${worst === null ? '-' : `${worst.toFixed(1)}x`} (${worst !== null && worst <= 6 ? 'met' : 'NOT met'}).
- Target: \`validate\` on 10,000 skills under 5 s: ${validate10k ? `${validate10k.seconds.toFixed(2)} s (${validate10k.seconds < 5 ? 'met' : 'NOT met'})` : '-'}.
- Where the time goes at 50,000 skills: reading 50,000 files, parsing their frontmatter, and counting the tokens of
  the catalogue texts (eval-trigger records a token audit in its results). The near-duplicate check of \`validate\`
  compares each skill with at most 32 others (see \`src/near-duplicates.ts\`).`,
  );
}
