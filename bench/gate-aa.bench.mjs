#!/usr/bin/env node
// A/A simulation of the baseline gate (run through `npm run bench`, or `node bench/run.mjs gate-aa`, against dist/):
// how often does `eval-trigger --baseline` fail when nothing changed, and how often does it catch a dead skill?
//  1. the bundled catalogue (6 skills, 30 requests): a noisy keyword selector (softmax over its BM25 scores, the
//     threshold as "load nothing", temperature T) drawn twice per trial and compared with the real gate; then the
//     same with leave-balance-calculator's description replaced by "Internal helper. Use when asked." (the dead skill);
//  2. MetaTool (199 tools, 1,040 requests) when ../shared/data/metatool is present: many small skills, the case where
//     a per-skill gate without a noise test would false-alarm.
// Results go to docs/benchmarks.md, section "Gate A/A simulation".
//
// Your own model's noise: `node bench/gate-aa.bench.mjs --results results.json [--selector model] [--trials 2000]`
// resamples the choices each request got over the repeats of a `--runs N` results file (N >= 3 advised) and prints
// the false-alarm rate of the gate on it (nothing is written to the docs).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { machineLine, root, writeBenchSection } from './run.mjs';

const dist = (m) => import(pathToFileURL(path.join(root, 'dist', m)).href);
const { loadCatalogue } = await dist('catalogue.js');
const { loadRequests } = await dist('requests.js');
const { rankByKeyword } = await dist('selectors/keyword.js');
const { chooseThreshold, scoredItem, topOf } = await dist('metrics.js');
const { readResults } = await dist('results.js');
const sim = await dist('gate-simulation.js');

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const pct = (r) => `${(100 * r.rate).toFixed(1)}% [${(100 * r.low).toFixed(1)}-${(100 * r.high).toFixed(1)}] (${r.k}/${r.n})`;

if (arg('--results')) {
  // Resampled decisions from the user's own repeated run.
  const file = arg('--results');
  const selector = arg('--selector', 'model');
  const trials = Number(arg('--trials', 2000));
  const results = await readResults(file);
  const byId = sim.empiricalChoices(results, selector);
  const requests = results.requests.filter((r) => byId.has(r.id));
  const dists = requests.map((r) => byId.get(r.id));
  const runs = Math.max(...results.runs.find((r) => r.selector === selector).decisions.map((d) => d.run)) + 1;
  const noise = sim.noiseLevel(requests, dists, runs);
  const aa = sim.simulateGate({ requests, baseline: dists, runs, trials, seed: 1 });
  console.log(`${file}, ${selector}: ${requests.length} requests, ${runs} runs each, ${trials} A/A trials (seed 1)`);
  console.log(`  noise: ${(100 * noise.discordance).toFixed(1)}% of requests expected to change outcome between two runs; ${noise.flaky} flaky (right in 10-90% of draws)`);
  console.log(`  false alarms: any ${pct(aa.any)}; global test ${pct(aa.global)}; per-skill gate ${pct(aa.perSkill)}`);
  process.exit(0);
}

const TEMPERATURES = [0, 0.005, 0.01, 0.02, 0.05];
const RUNS = [1, 3];

/** Keyword rankings and the (optimistic) threshold of a catalogue's skills on the requests. */
function keywordSelector(skills, requests) {
  const rankings = rankByKeyword(skills, requests);
  const threshold = chooseThreshold(requests.map((r, i) => scoredItem(r, topOf(rankings[i]))));
  return { rankings, threshold };
}

/** T = 0 is the deterministic selector: every probability on the thresholded choice. */
function choices(rankings, threshold, T) {
  return rankings.map((r) => (T === 0 ? [{ choice: topOf(r) && topOf(r).score >= threshold ? topOf(r).name : null, p: 1 }] : sim.softmaxChoices(r, threshold, T)));
}

function table(label, requests, base, dead, trials) {
  const lines = [
    `| T | runs | outcome changes between two runs | A/A: gate failed | global test | per-skill gate |${dead ? ' dead skill caught (per-skill gate) | dead skill: gate failed |' : ''}`,
    `|---:|---:|---:|---:|---:|---:|${dead ? '---:|---:|' : ''}`,
  ];
  for (const T of TEMPERATURES) {
    for (const runs of RUNS) {
      if (T === 0 && runs > 1) continue; // repeats of a deterministic selector are identical
      const b = choices(base.rankings, base.threshold, T);
      const noise = sim.noiseLevel(requests, b, runs);
      const aa = sim.simulateGate({ requests, baseline: b, runs, trials, seed: 1 });
      let power = '';
      if (dead) {
        const c = choices(dead.rankings, base.threshold, T); // measured at the baseline's threshold (--threshold baseline)
        const pw = sim.simulateGate({ requests, baseline: b, current: c, runs, trials: Math.round(trials / 2), seed: 2 });
        power = ` ${pct(pw.perSkill)} | ${pct(pw.any)} |`;
      }
      lines.push(`| ${T} | ${runs} | ${(100 * noise.discordance).toFixed(1)}% | ${pct(aa.any)} | ${pct(aa.global)} | ${pct(aa.perSkill)} |${power}`);
      console.log(`${label} T=${T} runs=${runs}: ${lines.at(-1)}`);
    }
  }
  return lines.join('\n');
}

const started = Date.now();
const catalogue = await loadCatalogue(path.join(root, 'skills'));
const requests = await loadRequests(path.join(root, 'requests.json'));
const base = keywordSelector(catalogue.skills, requests);
const deadSkills = catalogue.skills.map((s) => (s.name === 'leave-balance-calculator' ? { ...s, description: 'Internal helper. Use when asked.' } : s));
const dead = { rankings: rankByKeyword(deadSkills, requests) };
const demoTrials = 2000;
const demo = table('bundled', requests, base, dead, demoTrials);

let metatoolSection = 'MetaTool is absent (`../shared/data/metatool`): its rows were skipped.';
const metatool = path.resolve(root, '..', 'shared', 'data', 'metatool');
if (existsSync(path.join(metatool, 'tools.json'))) {
  const tools = await loadCatalogue(path.join(metatool, 'tools.json'));
  const mtRequests = await loadRequests(path.join(metatool, 'requests.json'));
  const mt = table('metatool', mtRequests, keywordSelector(tools.skills, mtRequests), undefined, 300);
  metatoolSection = `MetaTool (199 tools as skills, 1,040 requests, 520 covered: 1 to 4 per tool), 300 trials per row:\n\n${mt}`;
}

const body = `Command: \`npm run bench\` (or \`node bench/run.mjs gate-aa\`), file \`bench/gate-aa.bench.mjs\`, against \`dist/\`
(\`src/gate-simulation.ts\` drives the real \`compareToBaseline\` with the default gate: \`--gate-alpha 0.05\`,
\`--gate-min-effect 0.05\`, \`--gate-min-requests 2\`, \`--gate-skill-loss 0.5\`). Seeded: a rerun gives the same figures.
Machine: ${machineLine()}; ${((Date.now() - started) / 1000).toFixed(0)} s.

A noisy selector: the keyword selector's BM25 scores through a softmax at temperature T, with its threshold as the
"load nothing" option (T = 0 is the deterministic selector; higher T makes borderline requests flaky, as a sampled
model is). Each trial draws a baseline run and a current run (\`runs\` draws per request, the gate comparing each
request's majority) and applies the gate; "outcome changes" is the expected share of requests whose right/wrong
outcome differs between the two runs. The dead skill: leave-balance-calculator's description replaced by
"Internal helper. Use when asked." in the current run, measured at the baseline's threshold.

Bundled catalogue (6 skills, 30 requests), ${demoTrials} A/A trials and ${demoTrials / 2} dead-skill trials per row:

${demo}

${metatoolSection}
`;
writeBenchSection('Gate A/A simulation', body);
console.log(body);
