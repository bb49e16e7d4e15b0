#!/usr/bin/env node
// Profiles a CSV: per column type, nulls, distinct values, min/max/mean/median, top values. Prints JSON.
// Usage: node scripts/profile_csv.mjs FILE.csv | --text "<csv content>"   (exit 2 on unreadable input)
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const NULLS = ['', 'na', 'n/a', 'null', 'none', 'nan', '-'];
const fail = (m) => { process.stderr.write(`profile_csv: ${m}\n`); process.exit(2); };

const args = process.argv.slice(2);
let text, source = args[0];
if (source === '--text' && args.length === 2) { text = args[1]; source = '(inline)'; }
else if (args.length === 1 && !source.startsWith('-')) {
  // A relative path is tried from the working directory, then from the skill folder (assets/...).
  const path = existsSync(source) ? source : fileURLToPath(new URL(`../${source}`, import.meta.url));
  try { text = readFileSync(path, 'utf8'); } catch (e) { fail(`cannot read "${source}": ${e.code || e.message}`); }
} else fail('usage: node scripts/profile_csv.mjs FILE.csv | --text "<csv content>"');
text = text.replace(/^\uFEFF/, '');

const head = text.split('\n', 1)[0];
const sep = [',', ';', '\t'].sort((a, b) => head.split(b).length - head.split(a).length)[0];
const rows = [[]];
let f = '', q = false;
for (let i = 0; i < text.length; i++) {
  const c = text[i];
  if (q) { if (c !== '"') f += c; else if (text[i + 1] === '"') f += text[++i]; else q = false; }
  else if (c === '"') q = true;
  else if (c === sep) { rows.at(-1).push(f); f = ''; }
  else if (c === '\n') { rows.at(-1).push(f.replace(/\r$/, '')); rows.push([]); f = ''; }
  else f += c;
}
if (q) fail('unterminated quoted field');
rows.at(-1).push(f.replace(/\r$/, ''));
const [header, ...data] = rows.filter((r) => r.some((v) => v.trim()));
if (!header) fail(`${source}: empty file`);

// Numbers like 1234.5 or -3; with a ';' separator also French 1 234,5.
function num(v) {
  let s = v.replace(/[\s\u00a0\u202f]/g, '');
  if (sep === ';') s = s.replace(',', '.');
  return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s) ? Number(s) : null;
}
const isDate = (v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+Z?)?$/.test(v) && !Number.isNaN(Date.parse(v.slice(0, 10)));
const r3 = (x) => Math.round(x * 1000) / 1000;

function profile(name, j) {
  const all = data.map((r) => (r[j] ?? '').trim());
  const vals = all.filter((v) => !NULLS.includes(v.toLowerCase()));
  const counts = new Map();
  for (const v of vals) counts.set(v, (counts.get(v) || 0) + 1);
  const col = { name: name.trim() || `column_${j + 1}`, type: 'empty', nulls: all.length - vals.length,
    null_pct: r3((100 * (all.length - vals.length)) / (all.length || 1)), distinct: counts.size };
  const nums = vals.map(num);
  if (!vals.length) return col;
  if (nums.every((n) => n !== null)) {
    const s = nums.sort((a, b) => a - b), m = s.length >> 1;
    Object.assign(col, { type: s.every(Number.isInteger) ? 'integer' : 'number', min: s[0], max: s.at(-1),
      mean: r3(s.reduce((a, b) => a + b, 0) / s.length), median: s.length % 2 ? s[m] : r3((s[m - 1] + s[m]) / 2) });
  } else if (vals.every(isDate)) {
    const s = [...vals].sort();
    Object.assign(col, { type: 'date', min: s[0], max: s.at(-1) });
  } else {
    col.type = vals.every((v) => /^(true|false|yes|no|oui|non)$/i.test(v)) ? 'boolean' : 'text';
    const stray = nums.filter((n) => n === null).length;
    if (stray < vals.length * 0.1) col.mostly_numeric = `${vals.length - stray} of ${vals.length} values are numbers`;
    col.top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3).map(([v, n]) => `${v} (${n})`);
  }
  if (counts.size === vals.length && vals.length > 1) col.unique = true;
  return col;
}

const keys = data.map((r) => r.join('\u0001'));
const out = { source, delimiter: sep === '\t' ? 'tab' : sep, rows: data.length, columns: header.length,
  duplicate_rows: keys.length - new Set(keys).size, ragged_rows: data.filter((r) => r.length !== header.length).length,
  profile: [] };
// One line per column keeps the output short for the model reading it.
console.log(JSON.stringify(out, null, 1).replace('"profile": []', `"profile": [\n${header.map(profile).map((c) => JSON.stringify(c)).join(',\n')}\n ]`));
