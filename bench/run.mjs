#!/usr/bin/env node
// `npm run bench`: builds dist/ (tsc), then runs every bench/*.bench.mjs in turn, each in its own process, against
// dist/. A bench file records its figures in docs/benchmarks.md under its own heading with `writeBenchSection`
// (exported here), so every number in the docs comes with the command that made it.
//   node bench/run.mjs                 build, then all benches
//   node bench/run.mjs client          only files whose name contains "client"
//   node bench/run.mjs --no-build      skip tsc (dist/ already fresh)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const benchDoc = path.join(root, 'docs', 'benchmarks.md');
/** Load average when the bench process started (this machine is shared: the figure says how busy it was). */
const startLoad = os.loadavg()[0];

/** One line saying where the figures come from. */
export function machineLine() {
  const cpus = os.cpus();
  const load = startLoad.toFixed(1);
  return `Node ${process.version}, ${cpus.length} cores (${cpus[0]?.model?.trim() ?? 'unknown cpu'}), load average ${load} when it started, ${os.platform()} ${os.release()}, ${new Date().toISOString().slice(0, 10)}`;
}

/**
 * Replaces (or appends) the `## <heading>` section of docs/benchmarks.md with `body`; other sections are kept as they
 * are. A section runs from its heading to the next `## ` heading.
 */
export function writeBenchSection(heading, body) {
  mkdirSync(path.dirname(benchDoc), { recursive: true });
  let doc = existsSync(benchDoc)
    ? readFileSync(benchDoc, 'utf8')
    : '# Benchmarks\n\nFigures from `npm run bench` (each section says the command that made it and the machine it ran on).\n';
  const section = `## ${heading}\n\n${body.trim()}\n`;
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (start === -1) {
    doc = `${doc.replace(/\n*$/, '\n\n')}${section}`;
  } else {
    let end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
    if (end === -1) end = lines.length;
    const before = lines.slice(0, start).join('\n').replace(/\n*$/, '\n\n');
    const after = lines.slice(end).join('\n');
    doc = `${before}${section}${after ? `\n${after}` : ''}`;
  }
  writeFileSync(benchDoc, doc.replace(/\n*$/, '\n'));
}

function main() {
  const args = process.argv.slice(2);
  const filters = args.filter((a) => !a.startsWith('--'));
  if (!args.includes('--no-build')) {
    console.log('bench: building dist/ (tsc -p tsconfig.json)');
    const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
    if (tsc.status !== 0) console.warn('bench: tsc reported errors; benchmarking what it emitted');
  }
  const files = readdirSync(path.join(root, 'bench'))
    .filter((f) => f.endsWith('.bench.mjs'))
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .sort();
  let failed = 0;
  for (const f of files) {
    console.log(`\nbench: ${f}`);
    const r = spawnSync(process.execPath, [path.join(root, 'bench', f)], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) {
      failed++;
      console.error(`bench: ${f} failed (exit ${r.status})`);
    }
  }
  console.log(`\nbench: ${files.length - failed}/${files.length} passed; figures in docs/benchmarks.md`);
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
