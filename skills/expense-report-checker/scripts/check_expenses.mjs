#!/usr/bin/env node
// Applies references/policy.md (AN-EXP-2026) to an expense CSV; prints JSON verdicts. Exit 2 on bad input.
// Usage: node scripts/check_expenses.mjs FILE.csv | --text "<csv content>"
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Per-line caps in euro cents (rule 1).
const CAPS = { meal: 2500, 'client-meal': 12000, hotel: 14000, train: 25000, taxi: 6000, supplies: 8000 };
const WEEKEND_EXEMPT = ['hotel', 'train'];
const RECEIPT_ABOVE = 2000;
const ALCOHOL = /\b(wines?|beers?|bar|pub|champagne|cocktails?|whisky|alcohol|vins?|bi[eè]res?|ap[eé]ritifs?|ap[eé]ros?)\b/i;
const COLUMNS = ['date', 'employee', 'category', 'description', 'amount', 'receipt'];
const fail = (m) => { process.stderr.write(`check_expenses: ${m}\n`); process.exit(2); };

function parseCsv(text) {
  const head = text.split('\n', 1)[0];
  const sep = head.split(';').length > head.split(',').length ? ';' : ',';
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
  return rows.filter((r) => r.some((v) => v.trim() !== ''));
}

function check(rec, line) {
  const bad = (field, want) => fail(`line ${line}: ${field} "${rec[field]}" ${want}`);
  const amount = rec.amount.replace(/[€\s]/g, '').replace(',', '.');
  if (!/^\d+(\.\d{1,2})?$/.test(amount)) bad('amount', 'is not a positive number like 42.50');
  const claimed = Math.round(Number(amount) * 100);
  const m = rec.date.trim().match(/^(\d{4})-(\d{2})-(\d{2})$/);
  const date = m && new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  if (!date || date.getUTCMonth() !== +m[2] - 1 || date.getUTCDate() !== +m[3]) bad('date', 'is not a valid YYYY-MM-DD date');
  const receipt = rec.receipt.trim().toLowerCase();
  if (!['yes', 'oui', 'true', '1', 'no', 'non', 'false', '0', ''].includes(receipt)) bad('receipt', 'must be yes or no');
  const category = rec.category.trim().toLowerCase();

  const out = { line, date: m[0], employee: rec.employee.trim(), category, description: rec.description.trim(),
    claimed: claimed / 100, reimbursable: 0, verdict: 'approved', reasons: [] };
  const verdict = (v, why) => { out.verdict = v; out.reasons.push(why); return out; };
  if (!(category in CAPS)) return verdict('rejected', `unknown category "${category}" (allowed: ${Object.keys(CAPS).join(', ')})`);
  if (claimed > RECEIPT_ABOVE && !['yes', 'oui', 'true', '1'].includes(receipt)) return verdict('rejected', 'receipt missing for an amount above 20 EUR (rule 2)');
  if (ALCOHOL.test(out.description) && category !== 'client-meal') return verdict('rejected', 'alcohol is only reimbursable at a client meal (rule 3)');
  if ([0, 6].includes(date.getUTCDay()) && !WEEKEND_EXEMPT.includes(category)) return verdict('review', 'weekend expense: paid once the manager approves it in writing (rule 4)');
  out.reimbursable = Math.min(claimed, CAPS[category]) / 100;
  if (out.reimbursable < out.claimed) verdict('capped', `above the ${category} cap of ${CAPS[category] / 100} EUR (rule 1)`);
  return out;
}

const args = process.argv.slice(2);
let text, source = args[0];
if (source === '--text' && args.length === 2) { text = args[1]; source = '(inline)'; }
else if (args.length === 1 && !source.startsWith('-')) {
  // A relative path is tried from the working directory, then from the skill folder (assets/...).
  const path = existsSync(source) ? source : fileURLToPath(new URL(`../${source}`, import.meta.url));
  try { text = readFileSync(path, 'utf8'); } catch (e) { fail(`cannot read "${source}": ${e.code || e.message}`); }
} else fail('usage: node scripts/check_expenses.mjs FILE.csv | --text "<csv content>"');

const rows = parseCsv(text.replace(/^\uFEFF/, ''));
if (rows.length < 2) fail(`${source}: no expense lines (need a header row and at least one line)`);
const header = rows[0].map((h) => h.trim().toLowerCase());
const missing = COLUMNS.filter((c) => !header.includes(c));
if (missing.length) fail(`${source}: missing column(s) ${missing.join(', ')}; expected header: ${COLUMNS.join(',')}`);

const lines = rows.slice(1).map((cells, i) => check(Object.fromEntries(header.map((h, j) => [h, cells[j] ?? ''])), i + 2));
const sum = (pick) => lines.reduce((t, l) => t + Math.round(pick(l) * 100), 0) / 100;
const count = (v) => lines.filter((l) => l.verdict === v).length;
const only = (v) => (l) => (l.verdict === v ? l.claimed : 0);
const result = {
  policy: 'AN-EXP-2026', source, currency: 'EUR', lines: [],
  counts: { approved: count('approved'), capped: count('capped'), review: count('review'), rejected: count('rejected') },
  totals: { claimed: sum((l) => l.claimed), reimbursable: sum((l) => l.reimbursable), pending_review: sum(only('review')), rejected: sum(only('rejected')) },
};
// One line per expense keeps the output short for the model reading it.
console.log(JSON.stringify(result, null, 1).replace('"lines": []', `"lines": [\n${lines.map((l) => JSON.stringify(l)).join(',\n')}\n ]`));
