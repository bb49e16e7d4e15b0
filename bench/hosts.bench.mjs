#!/usr/bin/env node
// Tokens per decision under each host, against the bare minimum (one `name: description` line per skill, the tool
// with its enum, the request), on the bundled catalogue and on MetaTool (199 tools, 1,040 requests) when
// ../shared/data/metatool is present. Offline o200k estimates of the first turn each host sends, per request, against
// dist/ (run through `npm run bench`, or `node bench/run.mjs hosts`). Results go to docs/benchmarks.md, section "Hosts".
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { machineLine, root, writeBenchSection } from './run.mjs';

const dist = (p) => import(pathToFileURL(path.join(root, 'dist', p)).href);
const [{ loadCatalogue }, { loadRequests }, { builtinHostNames, resolveHost }, { hostFrame }, { bareMinimumTokens, toolsJson }, { countTokens }, { selectableSkills }] = await Promise.all([
  dist('catalogue.js'),
  dist('requests.js'),
  dist('hosts/profile.js'),
  dist('hosts/request.js'),
  dist('hosts/minimum.js'),
  dist('tokenizer.js'),
  dist('selectors/index.js'),
]);

const METATOOL = path.resolve(root, '../shared/data/metatool');
const catalogues = [
  { label: 'bundled catalogue (6 skills, 30 requests)', skills: path.join(root, 'skills'), requests: path.join(root, 'requests.json'), arg: 'skills' },
];
if (existsSync(path.join(METATOOL, 'tools.json'))) {
  catalogues.push({ label: 'MetaTool (199 tools, 1,040 requests)', skills: path.join(METATOOL, 'tools.json'), requests: path.join(METATOOL, 'requests.json'), arg: '../shared/data/metatool/tools.json' });
} else {
  console.log('bench hosts: ../shared/data/metatool is absent: MetaTool skipped');
}

/** Mean tokens of the first turn over the requests, by part, and of the bare minimum. */
function measure(host, skills, requests) {
  const frame = hostFrame(host, skills);
  const system = frame.system.reduce((n, b) => n + countTokens(b.text), 0);
  const tools = countTokens(toolsJson(frame.tools));
  let messages = 0;
  let bare = 0;
  for (const r of requests) {
    messages += countTokens(frame.userMessage(r.text));
    bare += bareMinimumTokens(skills, r.text);
  }
  const n = requests.length;
  const l = frame.listing;
  const status = (s) => l.entries.filter((e) => e.status === s).length;
  const notes = [
    l.budget && l.budget.step !== 'fits' ? `over its ${l.budget.chars.toLocaleString('en-US')}-char budget: ${l.budget.step}` : '',
    status('shortened') ? `${status('shortened')} shortened to ${l.budget.shortenedTo}` : '',
    status('name-only') ? `${status('name-only')} names only` : '',
    status('dropped') ? `${status('dropped')} dropped` : '',
    status('cut') ? `${status('cut')} cut at ${host.catalogue.listing.cut.chars}` : '',
  ].filter(Boolean);
  return { tokens: system + tools + messages / n, system, tools, messages: messages / n, bare: bare / n, notes: notes.join('; ') || '-' };
}

const fmt = (x) => Math.round(x).toLocaleString('en-US');
const rows = [];
/** The generic host's ratio per catalogue, for the summary line. */
const generic = [];
const hosts = [...builtinHostNames().map((name) => ({ label: `\`${name}\``, choice: { host: name } })), { label: '`generic --format xml` (skills-ref form)', choice: { format: 'xml' } }];
for (const c of catalogues) {
  const catalogue = await loadCatalogue(c.skills);
  const skills = selectableSkills(catalogue.skills);
  const requests = await loadRequests(c.requests);
  for (const h of hosts) {
    const host = await resolveHost(h.choice);
    const m = measure(host, skills, requests);
    if (h.choice.host === 'generic') generic.push(`${(m.tokens / m.bare).toFixed(2)}x on ${c.label.split(' (')[0].replace(/^bundled/, 'the bundled')}`);
    rows.push(`| ${c.label} | ${h.label} | ${fmt(m.system)} | ${fmt(m.tools)} | ${fmt(m.messages)} | ${fmt(m.tokens)} | ${fmt(m.bare)} | ${(m.tokens / m.bare).toFixed(2)}x | ${m.notes} |`);
    console.log(`${c.label.padEnd(42)} ${h.label.padEnd(40)} ${fmt(m.tokens).padStart(7)} vs ${fmt(m.bare).padStart(7)} = ${(m.tokens / m.bare).toFixed(2)}x  ${m.notes}`);
  }
}

writeBenchSection(
  'Hosts',
  `Command: \`npm run bench\` (or \`node bench/run.mjs hosts\`), file \`bench/hosts.bench.mjs\`, against \`dist/\`.
Machine: ${machineLine()}. Offline o200k estimates (tiktoken) of the first turn each host sends
(\`skillbench prompt --host H --skills ... --request ...\` shows one), averaged over the request set: system blocks,
tool declarations as JSON, and the user's message (which holds the listing for hosts that put it there). The **bare
minimum** is one \`name: description\` line per skill, \`activate_skill\` with the names as an enum, and the request.
The hosts' own long instructions are not shipped (see [hosts.md](hosts.md)): a host's real first turn is larger by
its system prompt.

| catalogue | host | system | tools | messages | per decision | bare minimum | ratio | listing |
|---|---|---:|---:|---:|---:|---:|---:|---|
${rows.join('\n')}

- Against the bare minimum, the generic host's lean listing costs ${generic.join(' and ')} (the target is at most
  1.1x); the skills-ref XML form (\`--format xml\`, the previous default) is the last row of each catalogue.
- Ratios under 1 are hosts that show less than every full description: Hermes cuts each at 60 characters, and
  MetaTool is over both Claude Code budgets (the listing column says what each does past it).`,
);
