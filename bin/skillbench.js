#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install` through the prepare script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  console.error('skillbench: dist/cli.js is missing. Run `npm install` (or `npm run build`) in the skillbench folder first.');
  process.exit(2);
}
// `skillbench ... | head` closes the pipe early: that is the reader's choice, not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv);
