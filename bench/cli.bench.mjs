#!/usr/bin/env node
// CLI benchmarks, against dist/ through the real launcher (run through `npm run bench`, or `node bench/run.mjs cli`):
//  1. `skillbench --help` start-up time (target: well under 0.5 s: heavy modules load lazily);
//  2. `skillbench eval-trigger` offline on the bundled catalogue, cold (empty cache) and warm (vectors cached);
//  3. the same on MetaTool (199 tools, 1,040 requests) when ../shared/data/metatool is present.
// Results go to docs/benchmarks.md, section "CLI".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machineLine, root, writeBenchSection } from './run.mjs';

const launcher = path.join(root, 'bin', 'skillbench.js');
const env = { ...process.env, GEMINI_API_KEY: '', GOOGLE_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };

/** Runs the CLI once; returns wall seconds, and throws on an unexpected exit code. */
function timeCli(args, expectExit = 0) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [launcher, ...args], { cwd: root, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== expectExit) throw new Error(`skillbench ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  return { seconds, stdout: r.stdout };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (s) => `${s.toFixed(2)} s`;

// 1. --help
timeCli(['--help']); // warm the file system cache
const helpRuns = Array.from({ length: 15 }, () => timeCli(['--help']).seconds);
const nodeRuns = Array.from({ length: 15 }, () => {
  const start = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0']);
  return Number(process.hrtime.bigint() - start) / 1e9;
});

// 2 and 3. eval-trigger offline, cold then warm, each with its own cache folder.
function coldWarm(label, extraArgs) {
  const cache = mkdtempSync(path.join(os.tmpdir(), 'skillbench-bench-'));
  try {
    const args = ['eval-trigger', '--no-progress', '--cache-dir', cache, ...extraArgs];
    const cold = timeCli(args);
    const warm = timeCli(args);
    const accuracy = [...cold.stdout.matchAll(/^│ (fused|similarity|keyword|explicit)\s+│\s+\d+ │ ([\d.]+%)/gm)].map((m) => `${m[1]} ${m[2]}`);
    return `| ${label} | ${fmt(cold.seconds)} | ${fmt(warm.seconds)} | ${accuracy.join(', ')} |`;
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

const rows = [coldWarm('bundled catalogue (6 skills, 30 requests)', [])];
const metatool = path.resolve(root, '..', 'shared', 'data', 'metatool');
if (existsSync(path.join(metatool, 'tools.json'))) {
  rows.push(coldWarm('MetaTool (199 tools, 1,040 requests)', ['--skills', path.join(metatool, 'tools.json'), '--requests', path.join(metatool, 'requests.json')]));
} else {
  console.log(`bench: ${metatool} is absent: MetaTool row skipped`);
}

const body = `Command: \`npm run bench\` (or \`node bench/run.mjs cli\`), file \`bench/cli.bench.mjs\`, through \`bin/skillbench.js\`.
Machine: ${machineLine()}. No API key set (offline selectors only).

| measure | median of 15 | target |
|---|---|---|
| \`skillbench --help\` | ${fmt(median(helpRuns))} (min ${fmt(Math.min(...helpRuns))}, max ${fmt(Math.max(...helpRuns))}) | well under 0.5 s |
| \`node -e 0\` (Node's own start-up, for scale) | ${fmt(median(nodeRuns))} | - |

\`skillbench eval-trigger --no-progress\` offline (fused, similarity with \`use\`, keyword, explicit), a fresh cache folder each:

| catalogue | cold (empty cache) | warm (vectors cached) | accuracy |
|---|---|---|---|
${rows.join('\n')}
`;
writeBenchSection('CLI', body);
console.log(body);
