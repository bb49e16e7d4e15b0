#!/usr/bin/env node
// Rewrites the "exact first turn" blocks of docs/hosts.md from `skillbench prompt --json` (run after `npm run build`):
//
//   node scripts/host-forms.mjs          # rewrite the blocks in place
//   node scripts/host-forms.mjs --check  # exit 1 when a block differs (test/hosts-wire.test.ts checks the same)
//
// Each block sits between `<!-- prompt-form:HOST -->` and `<!-- /prompt-form -->` and holds the `prompt` field of
//   skillbench prompt --host HOST --skills fixtures/hosts/catalogue --request "Split this PDF into pages" --json
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const doc = path.join(root, 'docs/hosts.md');
export const FORM_REQUEST = 'Split this PDF into pages';
export const FORM_SKILLS = 'fixtures/hosts/catalogue';

function form(host) {
  const out = execFileSync(process.execPath, [path.join(root, 'bin/skillbench.js'), 'prompt', '--host', host, '--skills', FORM_SKILLS, '--request', FORM_REQUEST, '--json'], { cwd: root, encoding: 'utf8' });
  return JSON.stringify(JSON.parse(out).prompt, null, 2);
}

const text = readFileSync(doc, 'utf8');
let changed = 0;
const next = text.replace(/(<!-- prompt-form:([a-z0-9.-]+) -->\n)([\s\S]*?)(<!-- \/prompt-form -->)/g, (_, open, host, body, close) => {
  const block = `\`\`\`json\n${form(host)}\n\`\`\`\n`;
  if (block !== body) changed++;
  return `${open}${block}${close}`;
});
if (process.argv.includes('--check')) {
  if (changed) {
    console.error(`docs/hosts.md: ${changed} prompt form(s) differ from skillbench prompt --json; run node scripts/host-forms.mjs`);
    process.exit(1);
  }
} else {
  writeFileSync(doc, next);
  console.log(`docs/hosts.md: ${changed} prompt form(s) rewritten`);
}
